// tlconform run with forwards that misbehave as real ones do: each cell gets the state its own
// process earned (a print does not spoil a result, a forged result is no result, a process left
// behind does not hold the cell, a memory hog is stopped), and nothing outlives the run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "cli_support.h"
#include "harness/process_tree.h"

namespace tl {
namespace {

namespace fs = std::filesystem;
using test::Invocation;
using test::scratch;
using test::source_path;
using test::tlconform;

TEST(CellIsolation, EachMisbehavingForwardGetsTheStateItsProcessEarned) {
  const std::string out = scratch("hostile.json");
  const std::string pid_file = scratch("leftover.pid");
  const auto start = std::chrono::steady_clock::now();
  const ChildOutcome outcome = tlconform(Invocation{
      {"run", "--roster", source_path("tests/unit/data/hostile_rows.yaml"), "--timeout", "120", "--memory", "600M", "--out", out},
      "",
      {"TL_TEST_PID_FILE=" + pid_file}});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(100)) << "a cell waited for its time limit";
  EXPECT_EQ(outcome.exit_code, 1) << outcome.stdout_text << outcome.stderr_text;
  const nlohmann::json card = nlohmann::json::parse(std::ifstream(out));
  std::map<std::string, std::string> states;
  for (const auto& cell : card["cells"]) states[cell["id"]] = cell["state"];
  EXPECT_EQ(states["prints"], "passed");
  EXPECT_EQ(states["forges_a_result"], "harness_error");
  EXPECT_EQ(states["leaves_a_process"], "passed");
  EXPECT_EQ(states["changes_directory"], "passed");
  EXPECT_EQ(states["hogs_memory"], "failed");
  EXPECT_NE(outcome.stdout_text.find("memory limit"), std::string::npos) << outcome.stdout_text;
  EXPECT_NE(outcome.stdout_text.find("without reporting a result"), std::string::npos) << outcome.stdout_text;
  // Progress: each line says how many cells are done of how many.
  EXPECT_NE(outcome.stdout_text.find("[5/5] "), std::string::npos) << outcome.stdout_text;

  pid_t leftover = 0;
  std::ifstream(pid_file) >> leftover;
  ASSERT_GT(leftover, 0) << "the forked process never started";
  const ProcessTree tree = ProcessTree::scan();
  EXPECT_TRUE(!tree.alive(leftover) || tree.zombie(leftover)) << "process " << leftover << " outlived the run";
}

// CTest runs each cell as `cell --isolate`: the same supervisor, so the same states.
TEST(CellIsolation, AnIsolatedCellIsSupervisedToo) {
  const ChildOutcome hog = tlconform({"cell", "--isolate", "--memory", "600M", "--roster",
                                      source_path("tests/unit/data/hostile_rows.yaml"), "--row", "hogs_memory"});
  EXPECT_EQ(hog.exit_code, 1) << hog.stdout_text << hog.stderr_text;
  EXPECT_NE(hog.stdout_text.find("memory limit"), std::string::npos) << hog.stdout_text;
  const ChildOutcome prints =
      tlconform({"cell", "--isolate", "--roster", source_path("tests/unit/data/hostile_rows.yaml"), "--row", "prints"});
  EXPECT_EQ(prints.exit_code, 0) << prints.stdout_text << prints.stderr_text;
}

TEST(CellIsolation, BadLimitsAndUnknownRowsAreUsageErrors) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"run", "--jobs", "abc"}, {"run", "--timeout", "-5"}, {"run", "--memory", "lots"}, {"run", "--row", "no_such_row"}}) {
    const ChildOutcome outcome = tlconform(args, 60);
    EXPECT_EQ(outcome.exit_code, 2) << args[1] << ": " << outcome.stderr_text;
    EXPECT_NE(outcome.stderr_text.find(args[1] == "--row" ? "no row 'no_such_row'" : args[1]), std::string::npos)
        << outcome.stderr_text;
  }
}

}  // namespace
}  // namespace tl
