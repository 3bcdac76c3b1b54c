// The refusal cell machinery can fail: a wrong code, a mutation before the refusal, a patch or a
// disabled GC left behind, a request that is not refused. Each broken row is real Python run
// against the real tinygrad; no part of tinygrad is mocked.
#include <gtest/gtest.h>

#include <pybind11/embed.h>

#include "backends/tinygrad/protocol.h"
#include "harness/backend/backend_registry.h"
#include "harness/cells/conformance.h"
#include "tinygrad_rows.h"

namespace tl {
namespace {

CellResult run_broken(const std::string& id) {
  static const Roster roster =
      load_roster(std::string(TL_SOURCE_DIR) + "/tests/unit/data/broken_refusals.yaml", testing::tinygrad_vocabulary());
  for (const RosterRow& row : roster.rows) {
    if (row.id == id) return run_cell(backends::spec("tinygrad"), row);
  }
  throw std::runtime_error("no row " + id);
}

const Check& check(const CellResult& result, const std::string& name) {
  for (const Check& candidate : result.checks) {
    if (candidate.name == name) return candidate;
  }
  throw std::runtime_error("no check " + name);
}

TEST(RefusalCell, FailsOnTheWrongCode) {
  const CellResult result = run_broken("wrong_code");
  EXPECT_EQ(result.state, CellState::Failed);
  EXPECT_FALSE(check(result, "refusal_code").passed);
  EXPECT_NE(check(result, "refusal_code").detail.find("mid_capture_execution_unsupported"), std::string::npos);
}

TEST(RefusalCell, FailsWhenNothingIsRefused) {
  const CellResult result = run_broken("not_refused");
  EXPECT_EQ(result.state, CellState::Failed);
  EXPECT_NE(check(result, "refusal_code").detail.find("not refused"), std::string::npos);
}

TEST(RefusalCell, FailsWhenAnInputWasMutatedBeforeTheRefusal) {
  const CellResult result = run_broken("mutates_input_then_refused");
  EXPECT_EQ(result.state, CellState::Failed);
  EXPECT_TRUE(check(result, "refusal_code").passed);
  EXPECT_FALSE(check(result, "inputs_unchanged").passed);
}

TEST(RefusalCell, FailsWhenAPatchIsLeftBehind) {
  const CellResult result = run_broken("leaves_patch_behind");
  EXPECT_EQ(result.state, CellState::Failed);
  EXPECT_FALSE(check(result, "attributes_restored").passed);
  EXPECT_NE(check(result, "attributes_restored").detail.find("Tensor.exp2"), std::string::npos);
}

TEST(RefusalCell, FailsWhenGcIsLeftDisabled) {
  const CellResult result = run_broken("disables_gc");
  pybind11::module_::import("gc").attr("enable")();
  EXPECT_EQ(result.state, CellState::Failed);
  EXPECT_FALSE(check(result, "gc_enabled").passed);
}

TEST(RefusalCell, FailsWhenRngStateMoved) {
  const CellResult result = run_broken("draws_rng_then_refused");
  EXPECT_EQ(result.state, CellState::Failed);
  EXPECT_FALSE(check(result, "rng_unchanged").passed);
}

}  // namespace
}  // namespace tl
