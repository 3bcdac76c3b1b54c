// One cell, one process: a crash, a hang and unreadable output each become the cell's state.
#include <gtest/gtest.h>

#include "harness/cell_process.h"

namespace tl {
namespace {

CellResult identity() {
  CellResult cell;
  cell.id = "probe";
  cell.family = "config_built";
  cell.roster = {"rosters/x.yaml", 3};
  return cell;
}

TEST(CellProcess, ReadsTheResultLine) {
  const ChildOutcome outcome =
      run_child({"/bin/sh", "-c",
                 R"(echo noise; echo '{"id":"probe","family":"config_built","roster":"r.yaml:4","state":"passed","ops":7}')"},
                std::chrono::seconds(10));
  const CellResult cell = cell_result_from_child(outcome, identity());
  EXPECT_EQ(cell.state, CellState::Passed);
  EXPECT_EQ(cell.ops, 7u);
  EXPECT_EQ(cell.roster.line, 4);
}

TEST(CellProcess, ASegfaultIsCrashed) {
  const ChildOutcome outcome = run_child({"/bin/sh", "-c", "kill -SEGV $$"}, std::chrono::seconds(10));
  const CellResult cell = cell_result_from_child(outcome, identity());
  EXPECT_EQ(cell.state, CellState::Crashed);
  EXPECT_NE(cell.message.find("signal 11"), std::string::npos) << cell.message;
  EXPECT_EQ(cell.roster.str(), "rosters/x.yaml:3");
}

TEST(CellProcess, ASanitizerReportIsCrashed) {
  const ChildOutcome outcome = run_child(
      {"/bin/sh", "-c", "echo '==1==ERROR: AddressSanitizer: SEGV on unknown address' >&2; exit 1"}, std::chrono::seconds(10));
  EXPECT_EQ(cell_result_from_child(outcome, identity()).state, CellState::Crashed);
}

TEST(CellProcess, AHangIsTimedOut) {
  const auto start = std::chrono::steady_clock::now();
  const ChildOutcome outcome = run_child({"/bin/sh", "-c", "sleep 30"}, std::chrono::seconds(1));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(cell_result_from_child(outcome, identity()).state, CellState::TimedOut);
}

TEST(CellProcess, UnreadableOutputIsHarnessError) {
  const ChildOutcome outcome = run_child({"/bin/sh", "-c", "echo not json; exit 3"}, std::chrono::seconds(10));
  const CellResult cell = cell_result_from_child(outcome, identity());
  EXPECT_EQ(cell.state, CellState::HarnessError);
  EXPECT_NE(cell.message.find("code 3"), std::string::npos) << cell.message;
}

}  // namespace
}  // namespace tl
