// tlconform run with forwards that misbehave as real ones do: each cell gets the state its own
// process earned (a print does not spoil a result, a forged result is no result, a process left
// behind does not hold the cell, a memory hog is stopped), and nothing outlives the run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "cli_support.h"
#include "harness/supervise/process_tree.h"

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
  // 1.5G: under AddressSanitizer a cell whose forward forks (its children keeping pages the parent
  // then copies) held 607 MiB once; the hog grows without end, so any limit stops it.
  const ChildOutcome outcome = tlconform(Invocation{{"run", "--roster", source_path("tests/unit/data/hostile_rows.yaml"),
                                                     "--timeout", "120", "--memory", "1536M", "--out", out},
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

std::map<std::string, std::string> states_of(const std::string& card_file) {
  std::map<std::string, std::string> states;
  const nlohmann::json card = nlohmann::json::parse(std::ifstream(card_file));
  for (const auto& cell : card["cells"]) states[cell["id"]] = cell["state"];
  return states;
}

// Issue 22.1: a forward that writes a well-formed result line to every descriptor it may hold and
// exits 0 cannot make its cell pass: not under `run`, not under `cell --isolate` (CTest's path),
// not in the card. The channel's lines are signed with a key the forward never sees.
TEST(CellIsolation, AForwardCannotForgeItsVerdict) {
  const std::string roster = source_path("tests/unit/data/forging_rows.yaml");
  const std::string out = scratch("forged.json");
  const ChildOutcome run = tlconform({"run", "--roster", roster, "--row", "forges_on_every_descriptor", "--out", out});
  EXPECT_EQ(run.exit_code, 1) << run.stdout_text << run.stderr_text;
  EXPECT_EQ(states_of(out)["forges_on_every_descriptor"], "harness_error") << test::file_text(out);
  EXPECT_NE(run.stdout_text.find("did not sign"), std::string::npos) << run.stdout_text;

  const std::string records = scratch("forged-records");
  const ChildOutcome isolated =
      tlconform({"cell", "--isolate", "--roster", roster, "--row", "forges_on_every_descriptor", "--record", records});
  EXPECT_EQ(isolated.exit_code, 1) << isolated.stdout_text << isolated.stderr_text;
  const nlohmann::json record = nlohmann::json::parse(std::ifstream(records + "/forges_on_every_descriptor.json"));
  EXPECT_EQ(record["state"], "harness_error") << record.dump();
}

// Issue 37.7: a forward's os.fork() child runs the rest of the cell (capture, checks, result), and
// the process the supervisor started exits 0 without a result. The fork has neither the channel
// nor its key, so nothing it does is the cell's verdict: the cell reported none.
TEST(CellIsolation, AForkOfTheCellCannotReportForIt) {
  const std::string roster = source_path("tests/unit/data/forging_rows.yaml");
  const std::string out = scratch("forked.json");
  const ChildOutcome run = tlconform({"run", "--roster", roster, "--row", "forks_and_lets_the_fork_report", "--out", out});
  EXPECT_EQ(run.exit_code, 1) << run.stdout_text << run.stderr_text;
  EXPECT_EQ(states_of(out)["forks_and_lets_the_fork_report"], "harness_error") << test::file_text(out);
  EXPECT_NE(run.stdout_text.find("exited with code 0 without reporting a result"), std::string::npos) << run.stdout_text;
}

// Issue 22.2: bytes that are not UTF-8, printed by the first of several rows, lose nothing: every
// cell runs, each record and the card are written (the bytes as U+FFFD), also as JUnit, also from
// a roster whose file name is not UTF-8, and from `cell --isolate --record`.
TEST(CellIsolation, BytesThatAreNotUtf8AbortNothing) {
  const fs::path dir = scratch("not-utf8");
  fs::create_directories(dir);
  const fs::path roster = dir / "rows_\xff\xfe.yaml";
  fs::copy_file(source_path("tests/unit/data/forging_rows.yaml"), roster);
  const std::string out = (dir / "card.json").string();
  const std::string records = (dir / "rec").string();
  const ChildOutcome run = tlconform({"run", "--roster", roster.string(), "--row", "prints_bytes_that_are_not_utf8", "--row",
                                      "fails_with_noncharacters", "--row", "behaves_after_them", "--record", records, "--out",
                                      out, "--format", "junit"});
  EXPECT_EQ(run.exit_code, 1) << run.stderr_text;
  EXPECT_EQ(run.stderr_text.find("type_error"), std::string::npos) << run.stderr_text;
  const std::map<std::string, std::string> states = states_of(out);
  EXPECT_EQ(states.at("prints_bytes_that_are_not_utf8"), "failed");
  EXPECT_EQ(states.at("fails_with_noncharacters"), "failed");
  EXPECT_EQ(states.at("behaves_after_them"), "passed");
  for (const char* id : {"prints_bytes_that_are_not_utf8", "fails_with_noncharacters", "behaves_after_them"})
    EXPECT_TRUE(fs::exists(fs::path(records) / (std::string(id) + ".json"))) << id;
  const nlohmann::json record = nlohmann::json::parse(std::ifstream(fs::path(records) / "prints_bytes_that_are_not_utf8.json"));
  EXPECT_NE(record["output"].get<std::string>().find("\xEF\xBF\xBD\xEF\xBF\xBD bytes"), std::string::npos) << record.dump();
  // The JUnit report on stdout is XML 1.0 a real parser reads.
  const std::string xml = (dir / "junit.xml").string();
  std::ofstream(xml, std::ios::binary) << run.stdout_text;
  const ChildOutcome parsed =
      run_child({source_path(".venv/bin/python"), "-c", "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])", xml},
                std::chrono::seconds(60));
  EXPECT_EQ(parsed.exit_code, 0) << parsed.stderr_text << run.stdout_text;

  const std::string cell_records = (dir / "cell-rec").string();
  const ChildOutcome isolated = tlconform(
      {"cell", "--isolate", "--roster", roster.string(), "--row", "prints_bytes_that_are_not_utf8", "--record", cell_records});
  EXPECT_EQ(isolated.exit_code, 1) << isolated.stderr_text;
  EXPECT_NO_THROW({
    const nlohmann::json parsed =
        nlohmann::json::parse(std::ifstream(fs::path(cell_records) / "prints_bytes_that_are_not_utf8.json"));
    static_cast<void>(parsed);
  });
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
