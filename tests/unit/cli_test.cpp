// tlconform end to end, as CI and backend authors run it: a crashing or hanging cell is reported as
// such while the run and its scorecard survive; a regressed cell shows as drift and fails --check;
// bad arguments exit 2.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "harness/cell_process.h"
#include "harness/trace.h"

namespace tl {
namespace {

namespace fs = std::filesystem;

ChildOutcome tlconform(std::vector<std::string> args, int seconds = 300) {
  args.insert(args.begin(), TL_TLCONFORM);
  return run_child(args, std::chrono::seconds(seconds));
}

std::string scratch(const std::string& name) {
  const fs::path path = fs::path(::testing::TempDir()) / ("cli_test_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(path);
  return path.string();
}

std::string file_text(const fs::path& path) {
  std::ostringstream text;
  text << std::ifstream(path, std::ios::binary).rdbuf();
  return text.str();
}

TEST(Cli, CrashAndHangAreCellStatesAndTheScorecardIsWritten) {
  const std::string out = scratch("misbehaving.json");
  const ChildOutcome outcome =
      tlconform({"run", "--roster", std::string(TL_SOURCE_DIR) + "/tests/unit/data/misbehaving_rows.yaml", "--timeout", "20",
                 "--out", out});
  EXPECT_EQ(outcome.exit_code, 1) << outcome.stdout_text << outcome.stderr_text;
  ASSERT_TRUE(fs::exists(out)) << outcome.stdout_text;
  const nlohmann::json card = nlohmann::json::parse(std::ifstream(out));
  std::map<std::string, std::string> states;
  for (const auto& cell : card["cells"]) states[cell["id"]] = cell["state"];
  EXPECT_EQ(states["segfaults"], "crashed");
  EXPECT_EQ(states["hangs"], "timed_out");
  EXPECT_EQ(states["behaves"], "passed");
  // A Python error in the forward fails the cell and says what happened.
  EXPECT_EQ(states["raises"], "failed");
  EXPECT_EQ(states["recurses"], "failed");
  EXPECT_NE(outcome.stdout_text.find("ValueError: the forward gave up"), std::string::npos) << outcome.stdout_text;
  EXPECT_NE(outcome.stdout_text.find("RecursionError"), std::string::npos) << outcome.stdout_text;
  // A row whose fixture file is missing fails with Python's error and its roster line.
  EXPECT_EQ(states["missing_fixture"], "failed");
  EXPECT_NE(outcome.stdout_text.find("No such file or directory"), std::string::npos) << outcome.stdout_text;
  EXPECT_NE(outcome.stdout_text.find("misbehaving_rows.yaml:35"), std::string::npos) << outcome.stdout_text;
  EXPECT_EQ(card["summary"]["total"], 6);
  EXPECT_TRUE(card.contains("run"));
}

TEST(Cli, ARegressedCellIsDriftAndFailsTheCheck) {
  // Recorded results equal to the committed scorecard, except one row that now fails.
  const nlohmann::json committed =
      nlohmann::json::parse(std::ifstream(std::string(TL_SOURCE_DIR) + "/scorecards/tinygrad/scorecard.json"));
  const std::string records = scratch("records");
  fs::create_directories(records);
  for (const auto& cell : committed["cells"]) {
    nlohmann::json record{{"id", cell["id"]}, {"family", cell["family"]}, {"roster", cell["roster"]}, {"state", cell["state"]}};
    if (cell["id"] == "tutorial_mlp") record["state"] = "failed";
    if (cell["family"] == "ecosystem") record["state"] = "skipped";  // run without TORCHLENS_CONFORMANCE_ECOSYSTEM=1
    std::ofstream(fs::path(records) / (cell["id"].get<std::string>() + ".json")) << record.dump();
  }
  const ChildOutcome outcome =
      tlconform({"scorecard", "--backend", "tinygrad", "--from", records, "--check", "--out", scratch("fresh.json")});
  EXPECT_EQ(outcome.exit_code, 1) << outcome.stdout_text << outcome.stderr_text;
  EXPECT_NE(outcome.stdout_text.find("REGRESSION cell tutorial_mlp: passed -> failed"), std::string::npos) << outcome.stdout_text;
  // The capabilities that tutorial_mlp proves lose their proof.
  EXPECT_NE(outcome.stdout_text.find("capability Closure constant with a readable buffer: supported -> untested"),
            std::string::npos)
      << outcome.stdout_text;
  // A cell that was not run here is drift, not a regression; the one regression is tutorial_mlp.
  EXPECT_NE(outcome.stdout_text.find("cell llm_transformer_block: passed -> skipped"), std::string::npos) << outcome.stdout_text;
  EXPECT_EQ(outcome.stdout_text.find("REGRESSION cell llm_transformer_block"), std::string::npos) << outcome.stdout_text;
  EXPECT_NE(outcome.stdout_text.find(", 1 regression"), std::string::npos) << outcome.stdout_text;
}

TEST(Cli, WriteIsOnlyForThePinnedLeg) {
  const ChildOutcome outcome = tlconform({"scorecard", "--backend", "tinygrad", "--from", scratch("none"), "--leg",
                                          "in-range-latest", "--write", "--out", scratch("x.json")});
  EXPECT_EQ(outcome.exit_code, 2) << outcome.stdout_text << outcome.stderr_text;
  EXPECT_NE(outcome.stderr_text.find("--write is for the pinned leg"), std::string::npos) << outcome.stderr_text;
}

TEST(Cli, WriteNeedsEveryCellRun) {
  const std::string committed_path = std::string(TL_SOURCE_DIR) + "/scorecards/tinygrad/scorecard.json";
  const std::string before = file_text(committed_path);
  const nlohmann::json committed = nlohmann::json::parse(before);
  const std::string records = scratch("skipped-records");
  fs::create_directories(records);
  for (const auto& cell : committed["cells"]) {
    nlohmann::json record{{"id", cell["id"]}, {"family", cell["family"]}, {"roster", cell["roster"]}, {"state", cell["state"]}};
    if (cell["family"] == "ecosystem") record["state"] = "skipped";
    std::ofstream(fs::path(records) / (cell["id"].get<std::string>() + ".json")) << record.dump();
  }
  const ChildOutcome outcome =
      tlconform({"scorecard", "--backend", "tinygrad", "--from", records, "--write", "--out", scratch("w.json")});
  EXPECT_EQ(outcome.exit_code, 2) << outcome.stdout_text << outcome.stderr_text;
  EXPECT_NE(outcome.stderr_text.find("--write needs every cell run"), std::string::npos) << outcome.stderr_text;
  EXPECT_EQ(file_text(committed_path), before) << "the committed scorecard changed";
}

TEST(Cli, MisuseExitsTwoWithUsage) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"frobnicate"}, {"list", "--bogus"}, {"trace"}, {"cell", "--row"}, {"list", "--roster", "/nonexistent.yaml"}}) {
    const ChildOutcome outcome = tlconform(args, 60);
    EXPECT_EQ(outcome.exit_code, 2) << args[0] << ": " << outcome.stderr_text;
    EXPECT_FALSE(outcome.stderr_text.empty());
  }
  const ChildOutcome unknown_row = tlconform({"cell", "--row", "no_such_row"}, 60);
  EXPECT_EQ(unknown_row.exit_code, 2);
  EXPECT_NE(unknown_row.stderr_text.find("no row 'no_such_row'"), std::string::npos);
}

// An output path that cannot be written is a usage error found before any cell runs or any file
// is written.
TEST(Cli, UnwritableOutputsExitTwoBeforeRunning) {
  const fs::path blocker = scratch("a_file");
  std::ofstream(blocker) << "not a directory\n";
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"run", "--row", "tutorial_mlp", "--out", (blocker / "card.json").string()},
                                             {"scorecard", "--backend", "tinygrad", "--out", (blocker / "card.json").string()},
                                             {"trace", "--row", "tutorial_mlp", "--save", (blocker / "mlp.tlspec").string()}}) {
    const ChildOutcome outcome = tlconform(args, 60);
    EXPECT_EQ(outcome.exit_code, 2) << args[0] << ": " << outcome.stderr_text;
    EXPECT_NE(outcome.stderr_text.find("give a path in a writable directory"), std::string::npos) << outcome.stderr_text;
    EXPECT_EQ(outcome.stdout_text.find("passed"), std::string::npos) << "a cell ran: " << outcome.stdout_text;
  }
  EXPECT_EQ(file_text(blocker), "not a directory\n");
}

TEST(Cli, ListNeverStartsPython) {
  // With a venv that does not exist, anything that started Python would fail.
  const std::string fake_venv = scratch("no-venv");
  ChildOutcome outcome =
      run_child({"/usr/bin/env", "TL_VENV=" + fake_venv, TL_TLCONFORM, "list", "--ctest"}, std::chrono::seconds(60));
  EXPECT_EQ(outcome.exit_code, 0) << outcome.stderr_text;
  EXPECT_NE(outcome.stdout_text.find("conformance.tutorial_mlp"), std::string::npos);
}

TEST(Cli, DoctorShowsTheBackendScorecardRow) {
  const ChildOutcome outcome = tlconform({"doctor", "--json"}, 120);
  const nlohmann::json rows = nlohmann::json::parse(outcome.stdout_text);
  bool found = false;
  for (const auto& row : rows) {
    if (row["name"] == "backend_scorecard:tinygrad") {
      found = true;
      EXPECT_EQ(row["status"], "ok") << row.dump();
      EXPECT_NE(row["value"].get<std::string>().find("pinned 0.13.0"), std::string::npos);
    }
  }
  EXPECT_TRUE(found) << outcome.stdout_text;
}

bool has_staging(const fs::path& parent) {
  for (const auto& entry : fs::directory_iterator(parent)) {
    if (entry.path().filename().string().find(".staging-") != std::string::npos) return true;
  }
  return false;
}

// Durable writes: a save killed while it writes the new bundle leaves the old one whole at the
// target path; the next save clears the dead run's staging directory.
TEST(Cli, AKilledSaveLeavesThePreviousBundleIntact) {
  const fs::path parent = scratch("killed_save");
  fs::create_directories(parent);
  const std::string bundle = (parent / "large.tlspec").string();
  const std::vector<std::string> save = {
      TL_TLCONFORM, "trace",         "--roster", std::string(TL_SOURCE_DIR) + "/tests/unit/data/large_payload.yaml",
      "--row",      "large_payload", "--save",   bundle};
  ASSERT_EQ(run_child(save, std::chrono::seconds(300)).exit_code, 0);
  const std::string manifest = file_text(fs::path(bundle) / "manifest.json");
  const std::string payloads = file_text(fs::path(bundle) / "payloads.safetensors");
  ASSERT_GT(payloads.size(), 1000000u);

  bool killed_mid_write = false;
  for (int attempt = 0; attempt < 5 && !killed_mid_write; ++attempt) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      std::freopen("/dev/null", "w", stdout);
      std::vector<char*> argv;
      argv.reserve(save.size() + 1);
      for (const std::string& arg : save) argv.push_back(const_cast<char*>(arg.c_str()));
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    // The staging directory exists only while the new bundle is being written.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (!has_staging(parent) && waitpid(child, nullptr, WNOHANG) == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    killed_mid_write = has_staging(parent);
    // Whenever the kill landed, the target holds a whole bundle.
    EXPECT_EQ(file_text(fs::path(bundle) / "manifest.json"), manifest);
    EXPECT_EQ(file_text(fs::path(bundle) / "payloads.safetensors"), payloads);
    EXPECT_NO_THROW(Trace::load(bundle));
  }
  ASSERT_TRUE(killed_mid_write) << "no kill landed while the bundle was being written";
  ASSERT_EQ(run_child(save, std::chrono::seconds(300)).exit_code, 0);
  EXPECT_FALSE(has_staging(parent)) << "the killed run's staging directory was left behind";
  EXPECT_NO_THROW(Trace::load(bundle));
}

}  // namespace
}  // namespace tl
