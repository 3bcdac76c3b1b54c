// tlconform end to end, as CI and backend authors run it: a crashing or hanging cell is reported as
// such while the run and its scorecard survive; a regressed cell shows as drift and fails --check;
// bad arguments exit 2.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli_support.h"
#include "harness/backend/backend_registry.h"
#include "harness/model/trace.h"
#include "harness/runs/cell_records.h"
#include "harness/runs/run_facts.h"
#include "harness/supervise/cell_process.h"

namespace tl {
namespace {

namespace fs = std::filesystem;

using test::file_text;
using test::has_staging;
using test::scratch;
using test::tlconform;

// Records of every cell of the committed card, as `tlconform cell --record` writes them from this
// checkout (the same provenance), each in the state `state_of(cell)` gives it (a cell passed as the
// card has it also with the card's checks, their coverage and op count).
void write_committed_records(const fs::path& directory, const std::function<std::string(const nlohmann::json&)>& state_of) {
  const nlohmann::json committed = nlohmann::json::parse(std::ifstream(test::source_path("scorecards/tinygrad/scorecard.json")));
  const Checkout checkout = this_checkout();
  fs::create_directories(directory);
  for (const auto& cell : committed["cells"]) {
    const std::string roster = cell["roster"];
    const std::string state = state_of(cell);
    nlohmann::json record{{"id", cell["id"]},
                          {"family", cell["family"]},
                          {"roster", roster},
                          {"state", state},
                          {"provenance", record_provenance(backends::spec("tinygrad"), checkout,
                                                           test::source_path(roster.substr(0, roster.rfind(':'))))}};
    if (state == "passed" && cell["state"] == "passed") {  // passed as committed: its checks and op count too
      if (cell.contains("ops")) record["ops"] = cell["ops"];
      record["checks"] = nlohmann::json::array();
      for (const auto& name : cell["checks"]) {
        nlohmann::json check{{"name", name}, {"passed", true}};
        if (cell.contains("coverage") && cell["coverage"].contains(name)) check["coverage"] = cell["coverage"][name];
        record["checks"].push_back(std::move(check));
      }
    }
    std::ofstream(directory / (cell["id"].get<std::string>() + ".json")) << record.dump();
  }
}

TEST(Cli, CrashAndHangAreCellStatesAndTheScorecardIsWritten) {
  const std::string roster = std::string(TL_SOURCE_DIR) + "/tests/unit/data/misbehaving_rows.yaml";
  // The hanging row alone, under a short limit: it is timed out whatever it was doing, and the card is written.
  const std::string hung = scratch("hung.json");
  const ChildOutcome hang = tlconform({"run", "--roster", roster, "--row", "hangs", "--timeout", "5", "--out", hung});
  EXPECT_EQ(hang.exit_code, 1) << hang.stdout_text << hang.stderr_text;
  ASSERT_TRUE(fs::exists(hung)) << hang.stdout_text;
  const nlohmann::json hung_card = nlohmann::json::parse(std::ifstream(hung));
  ASSERT_EQ(hung_card["cells"].size(), 1U);
  EXPECT_EQ(hung_card["cells"][0]["state"], "timed_out");

  // The others, under a limit that leaves a recursion under the sanitizers on a busy machine room to
  // reach RecursionError.
  const std::string out = scratch("misbehaving.json");
  const ChildOutcome outcome = tlconform({"run", "--roster", roster, "--row", "segfaults", "--row", "behaves", "--row", "raises",
                                          "--row", "recurses", "--row", "missing_fixture", "--timeout", "60", "--out", out});
  EXPECT_EQ(outcome.exit_code, 1) << outcome.stdout_text << outcome.stderr_text;
  ASSERT_TRUE(fs::exists(out)) << outcome.stdout_text;
  const nlohmann::json card = nlohmann::json::parse(std::ifstream(out));
  std::map<std::string, std::string> states;
  for (const auto& cell : card["cells"]) states[cell["id"]] = cell["state"];
  EXPECT_EQ(states["segfaults"], "crashed");
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
  EXPECT_EQ(card["summary"]["total"], 5);
  EXPECT_TRUE(card.contains("run"));
}

TEST(Cli, ARegressedCellIsDriftAndFailsTheCheck) {
  // Recorded results equal to the committed scorecard, except one row that now fails.
  const std::string records = scratch("records");
  write_committed_records(records, [](const nlohmann::json& cell) -> std::string {
    if (cell["id"] == "tutorial_mlp") return "failed";
    if (cell["family"] == "ecosystem") return "skipped";  // run without TORCHLENS_CONFORMANCE_ECOSYSTEM=1
    return cell["state"];
  });
  // The drift goes to stderr: stdout is the report's (--format).
  const ChildOutcome outcome =
      tlconform({"scorecard", "--backend", "tinygrad", "--from", records, "--check", "--out", scratch("fresh.json")});
  EXPECT_EQ(outcome.exit_code, 1) << outcome.stdout_text << outcome.stderr_text;
  EXPECT_NE(outcome.stderr_text.find("REGRESSION cell tutorial_mlp: passed -> failed"), std::string::npos) << outcome.stderr_text;
  // The capabilities that tutorial_mlp proves lose their proof: on the pinned leg, regressions too.
  EXPECT_NE(outcome.stderr_text.find("REGRESSION capability Closure constant with a readable buffer: supported -> untested"),
            std::string::npos)
      << outcome.stderr_text;
  // A cell that was not run here is drift, not a regression, and so is a capability only it proves;
  // the regressions are tutorial_mlp and the two capabilities it proves.
  EXPECT_NE(outcome.stderr_text.find("cell llm_transformer: passed -> skipped"), std::string::npos) << outcome.stderr_text;
  EXPECT_EQ(outcome.stderr_text.find("REGRESSION cell llm_transformer:"), std::string::npos) << outcome.stderr_text;
  EXPECT_NE(outcome.stderr_text.find("drift      capability A write into a buffer the forward reads back"), std::string::npos)
      << outcome.stderr_text;
  EXPECT_NE(outcome.stderr_text.find(", 3 regression"), std::string::npos) << outcome.stderr_text;
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
  const std::string records = scratch("skipped-records");
  write_committed_records(records, [](const nlohmann::json& cell) -> std::string {
    return cell["family"] == "ecosystem" ? "skipped" : cell["state"];
  });
  const ChildOutcome outcome =
      tlconform({"scorecard", "--backend", "tinygrad", "--from", records, "--write", "--out", scratch("w.json")});
  EXPECT_EQ(outcome.exit_code, 2) << outcome.stdout_text << outcome.stderr_text;
  EXPECT_NE(outcome.stderr_text.find("--write needs every cell run"), std::string::npos) << outcome.stderr_text;
  EXPECT_EQ(file_text(committed_path), before) << "the committed scorecard changed";
}

// A failed cell is not written into the committed card: that would make the regression the baseline.
TEST(Cli, WriteNeedsEveryCellPassed) {
  const std::string committed_path = std::string(TL_SOURCE_DIR) + "/scorecards/tinygrad/scorecard.json";
  const std::string before = file_text(committed_path);
  const std::string records = scratch("failed-records");
  write_committed_records(
      records, [](const nlohmann::json& cell) -> std::string { return cell["id"] == "tutorial_mlp" ? "failed" : cell["state"]; });
  const ChildOutcome outcome =
      tlconform({"scorecard", "--backend", "tinygrad", "--from", records, "--write", "--out", scratch("w.json")});
  EXPECT_EQ(outcome.exit_code, 2) << outcome.stdout_text << outcome.stderr_text;
  EXPECT_NE(
      outcome.stderr_text.find(
          "--write needs every cell to end as its row asks (passed, expected_fail or unsupported), and tutorial_mlp is failed"),
      std::string::npos)
      << outcome.stderr_text;
  EXPECT_EQ(file_text(committed_path), before) << "the committed scorecard changed";
}

// Issue 37.5: --out never names the card a run is checked against, nor the committed card (which
// only --write replaces, after its checks), however it is spelled; nothing is run or written.
TEST(Cli, OutNeverNamesTheBaselineOrTheCommittedCard) {
  const std::string committed_path = test::source_path("scorecards/tinygrad/scorecard.json");
  const std::string before = file_text(committed_path);
  const std::string records = scratch("out-records");
  write_committed_records(records, [](const nlohmann::json& cell) -> std::string { return cell["state"]; });
  const std::string link = scratch("link-to-committed.json");
  fs::create_symlink(committed_path, link);
  for (const std::string& out : {committed_path, link}) {
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"scorecard", "--backend", "tinygrad", "--from", records, "--out", out},
          std::vector<std::string>{"scorecard", "--backend", "tinygrad", "--from", records, "--check", "--out", out},
          std::vector<std::string>{"run", "--row", "tutorial_mlp", "--out", out}}) {
      const ChildOutcome outcome = tlconform(args, 120);
      EXPECT_EQ(outcome.exit_code, 2) << args[0] << " --out " << out << ": " << outcome.stderr_text;
      EXPECT_NE(outcome.stderr_text.find("is the committed scorecard"), std::string::npos) << outcome.stderr_text;
    }
  }
  const std::string baseline = scratch("baseline.json");
  std::ofstream(baseline) << before;
  const ChildOutcome over_baseline = tlconform(
      {"scorecard", "--backend", "tinygrad", "--from", records, "--check", "--baseline", baseline, "--out", baseline}, 120);
  EXPECT_EQ(over_baseline.exit_code, 2) << over_baseline.stderr_text;
  EXPECT_NE(over_baseline.stderr_text.find("is the --check baseline"), std::string::npos) << over_baseline.stderr_text;
  EXPECT_EQ(file_text(baseline), before) << "the baseline was overwritten";
  if (file_text(committed_path) != before) {
    std::ofstream(committed_path) << before;  // put back what an old tlconform overwrote
    ADD_FAILURE() << "the committed scorecard was overwritten";
  }
}

// Issue 37.10: a card from a dirty working tree says so, and --write refuses it: the committed card
// is always of a commit. (A run here may be dirty or clean; this one's records claim dirty.)
TEST(Cli, WriteRefusesARunFromADirtyWorkingTree) {
  const std::string committed_path = test::source_path("scorecards/tinygrad/scorecard.json");
  const std::string before = file_text(committed_path);
  const fs::path clean = scratch("here-records");
  write_committed_records(clean, [](const nlohmann::json& cell) -> std::string { return cell["state"]; });
  const std::string fresh = scratch("here.json");
  ASSERT_EQ(tlconform({"scorecard", "--backend", "tinygrad", "--from", clean.string(), "--out", fresh}, 120).exit_code, 0);
  const nlohmann::json here = nlohmann::json::parse(std::ifstream(fresh))["provenance"];
  // The same cells as one run's shard, from a dirty tree: records and manifest say so.
  const fs::path dirty = scratch("dirty-records");
  fs::create_directories(dirty);
  nlohmann::json manifest{{"provenance", nlohmann::json::object()}, {"shard", ""}, {"cells", nlohmann::json::array()}};
  for (const char* key : {"leg", "harness_version", "git_commit", "framework_version_seen", "python_version", "roster_digest"})
    manifest["provenance"][key] = here[key];
  manifest["provenance"]["backend"] = "tinygrad";
  manifest["provenance"]["git_worktree"] = "dirty";
  for (const auto& entry : fs::directory_iterator(clean)) {
    nlohmann::json record = nlohmann::json::parse(std::ifstream(entry.path()));
    record["provenance"]["git_worktree"] = "dirty";
    manifest["cells"].push_back(record["id"]);
    std::ofstream(dirty / entry.path().filename()) << record.dump();
  }
  std::ofstream(dirty / "run-manifest.json") << manifest.dump();
  const std::string out = scratch("dirty.json");
  const ChildOutcome outcome =
      tlconform({"scorecard", "--backend", "tinygrad", "--from", dirty.string(), "--write", "--out", out}, 120);
  EXPECT_EQ(outcome.exit_code, 2) << outcome.stderr_text;
  EXPECT_NE(outcome.stderr_text.find("ran from a dirty working tree"), std::string::npos) << outcome.stderr_text;
  EXPECT_EQ(nlohmann::json::parse(std::ifstream(out))["provenance"]["git_worktree"], "dirty");
  if (file_text(committed_path) != before) {
    std::ofstream(committed_path) << before;  // put back what an old tlconform overwrote
    ADD_FAILURE() << "the committed scorecard was overwritten";
  }
}

// Issue 37.10: a card that cannot be written is its own exit code (4), not a failed cell's (1), and
// the message names the file and the space left (here a file size limit makes the room run out).
TEST(Cli, ACardThatCannotBeWrittenExitsFour) {
  const std::string records = scratch("unwritable-records");
  write_committed_records(records, [](const nlohmann::json& cell) -> std::string { return cell["state"]; });
  const std::string out = scratch("too-big.json");
  const ChildOutcome outcome = run_child({"/bin/sh", "-c", "trap '' XFSZ; ulimit -f 8; exec \"$@\"", "sh", test::tlconform_path(),
                                          "scorecard", "--backend", "tinygrad", "--from", records, "--out", out},
                                         std::chrono::seconds(120));
  EXPECT_EQ(outcome.exit_code, 4) << outcome.stderr_text;
  EXPECT_NE(outcome.stderr_text.find("cannot write " + out), std::string::npos) << outcome.stderr_text;
  EXPECT_NE(outcome.stderr_text.find("free on its filesystem"), std::string::npos) << outcome.stderr_text;
  EXPECT_FALSE(fs::exists(out));
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

// A small bundle (no Python needed) with NaN and infinities among its payloads.
std::string saved_bundle(const std::string& name) {
  const fs::path directory = fs::path(scratch(name)) / "bundle.tlspec";
  fs::create_directories(directory.parent_path());
  const DType f32 = *dtype_from_name("float32");
  Trace trace;
  trace.backend = "tinygrad";
  trace.framework_version = "0.13.0";
  trace.device = "PYTHON";
  trace.ops = {Op{.label = "input0:0",
                  .framework_op = "RESHAPE",
                  .kind = OpKind::Input,
                  .dtype = f32,
                  .shape = {4},
                  .out = Payload::from_doubles(f32, {4}, {std::nan(""), HUGE_VAL, -HUGE_VAL, 0.5})}};
  trace.inputs = trace.outputs = {0};
  trace.save(directory.string());
  return directory.string();
}

// inspect reads only regular files within budgets: a million-deep manifest or a FIFO is a clear
// error (exit 2, naming the file), not a stack overflow or a hang; NaN and infinities in --json
// stay distinguishable.
TEST(Cli, InspectRefusesDeepManifestsAndFifosAndKeepsNan) {
  const std::string bundle = saved_bundle("inspect");
  ChildOutcome outcome = tlconform({"inspect", bundle, "--json"}, 30);
  ASSERT_EQ(outcome.exit_code, 0) << outcome.stderr_text;
  EXPECT_EQ(nlohmann::json::parse(outcome.stdout_text)["ops"][0]["payload"], nlohmann::json({"nan", "inf", "-inf", 0.5}));

  const fs::path manifest = fs::path(bundle) / "manifest.json";
  std::string text = file_text(manifest);
  text.replace(text.find("\"ops\":") + 6, 0, std::string(1000000, '[') + std::string(1000000, ']') + ", \"x\":");
  std::ofstream(manifest, std::ios::trunc) << text;
  outcome = tlconform({"inspect", bundle}, 30);
  EXPECT_EQ(outcome.exit_code, 2) << "signal " << outcome.signal << ": " << outcome.stderr_text.substr(0, 2000);
  EXPECT_NE(outcome.stderr_text.find(manifest.string() + ": nests deeper than 64 levels"), std::string::npos)
      << outcome.stderr_text.substr(0, 2000);

  for (const char* name : {"manifest.json", "payloads.safetensors"}) {
    const std::string fresh = saved_bundle(std::string("fifo_") + name);
    const fs::path fifo = fs::path(fresh) / name;
    fs::remove(fifo);
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    outcome = tlconform({"inspect", fresh}, 20);
    EXPECT_FALSE(outcome.timed_out) << "inspect hung on a FIFO " << name;
    EXPECT_EQ(outcome.exit_code, 2) << outcome.stderr_text;
    EXPECT_NE(outcome.stderr_text.find(fifo.string() + ": is not a regular file"), std::string::npos) << outcome.stderr_text;
  }
}

// Issue 22.9: a crafted bundle's labels and fields cannot set the terminal's title, clear it or
// print lines of their own: inspect shows every control character escaped, one op a line.
TEST(Cli, InspectEscapesControlCharactersInABundle) {
  const std::string bundle = saved_bundle("hostile_labels");
  const fs::path manifest = fs::path(bundle) / "manifest.json";
  nlohmann::json json = nlohmann::json::parse(file_text(manifest));
  json["ops"][0]["label"] = "\x1b]0;pwned\x07\n99 ops; outputs: 0";
  json["device"] = "\x1b[2JPYTHON";
  std::ofstream(manifest, std::ios::trunc) << json.dump();
  const ChildOutcome outcome = tlconform({"inspect", bundle}, 30);
  ASSERT_EQ(outcome.exit_code, 0) << outcome.stderr_text;
  EXPECT_EQ(outcome.stdout_text.find('\x1b'), std::string::npos) << outcome.stdout_text;
  EXPECT_EQ(outcome.stdout_text.find('\x07'), std::string::npos) << outcome.stdout_text;
  EXPECT_NE(outcome.stdout_text.find("\\x1b]0;pwned\\x07\\x0a99 ops; outputs: 0"), std::string::npos) << outcome.stdout_text;
  EXPECT_EQ(outcome.stdout_text.find("\n99 ops"), std::string::npos) << "a label printed a line of its own";
  EXPECT_NE(outcome.stdout_text.find("device \\x1b[2JPYTHON"), std::string::npos) << outcome.stdout_text;
}

// Issue 37.10: the paths tlconform prints after writing (a card, a baseline it checked, a bundle, a
// picture) show control characters escaped: a path holding ESC or a newline sets no title and
// prints no line of its own.
TEST(Cli, PrintedPathsShowControlCharactersEscaped) {
  const fs::path dir = scratch("hostile-paths");
  fs::create_directories(dir);
  const std::string hostile = "\x1b]0;pwned\x07\nforged line";
  const std::string card = (dir / ("card" + hostile + ".json")).string();
  const std::string bundle = (dir / ("bundle" + hostile)).string();
  const std::string picture = (dir / ("graph" + hostile + ".dot")).string();
  const ChildOutcome run = tlconform({"run", "--row", "tutorial_mlp", "--out", card}, 300);
  const std::string records = scratch("hostile-path-records");
  write_committed_records(records, [](const nlohmann::json& cell) -> std::string { return cell["state"]; });
  const std::string baseline = (dir / ("baseline" + hostile + ".json")).string();
  fs::copy_file(test::source_path("scorecards/tinygrad/scorecard.json"), baseline);
  const ChildOutcome check =
      tlconform({"scorecard", "--from", records, "--check", "--baseline", baseline, "--out", scratch("hostile-check.json")}, 300);
  const ChildOutcome trace = tlconform({"trace", "--row", "tutorial_mlp", "--save", bundle, "--graph", picture}, 300);
  for (const ChildOutcome& outcome : {run, check, trace}) {
    EXPECT_EQ(outcome.exit_code, 0) << outcome.stderr_text;
    EXPECT_EQ(outcome.stderr_text.find('\x1b'), std::string::npos) << outcome.stderr_text;
    EXPECT_EQ(outcome.stderr_text.find("\nforged line"), std::string::npos) << outcome.stderr_text;
    EXPECT_NE(outcome.stderr_text.find("\\x1b]0;pwned\\x07\\x0aforged line"), std::string::npos) << outcome.stderr_text;
  }
}

// Issue 22.13: the backend's requirement table names this distribution's install extra, and says
// that the page's name is its upstream's.
TEST(Cli, SpecNamesThisDistributionsInstallExtra) {
  const ChildOutcome text = tlconform({"spec"}, 30);
  ASSERT_EQ(text.exit_code, 0) << text.stderr_text;
  EXPECT_NE(text.stdout_text.find("install_extra\ttlconform[tinygrad]\t(pip install 'tlconform[tinygrad]')"), std::string::npos)
      << text.stdout_text;
  EXPECT_NE(
      text.stdout_text.find("spec_install_extra\ttorchlens[tinygrad]\t(the name on the backend's page, which is upstream's"),
      std::string::npos)
      << text.stdout_text;
  const nlohmann::json json = nlohmann::json::parse(tlconform({"spec", "--json"}, 30).stdout_text);
  EXPECT_EQ(json["install_extra"], "tlconform[tinygrad]");
  EXPECT_EQ(tlconform({"spec", "--field", "install_extra"}, 30).stdout_text, "tlconform[tinygrad]\n");
}

// Issue 22.13: `run` without --out writes its card beside the user (the directory it started in),
// never into the source tree, and says where.
TEST(Cli, RunWithoutOutWritesBesideTheUser) {
  const fs::path home = scratch("run_home");
  fs::create_directories(home);
  const fs::path in_tree = fs::path(TL_SOURCE_DIR) / "build" / "scorecard.json";
  const auto before = fs::exists(in_tree) ? fs::last_write_time(in_tree) : fs::file_time_type::min();
  const ChildOutcome outcome = tlconform(test::Invocation{{"run", "--row", "tutorial_mlp"}, home.string(), {}, 300});
  EXPECT_EQ(outcome.exit_code, 0) << outcome.stderr_text;
  EXPECT_TRUE(fs::exists(home / "scorecard.json")) << outcome.stderr_text;
  EXPECT_NE(outcome.stderr_text.find("scorecard written to " + (home / "scorecard.json").string()), std::string::npos)
      << outcome.stderr_text;
  EXPECT_EQ(fs::exists(in_tree) ? fs::last_write_time(in_tree) : fs::file_time_type::min(), before)
      << "run wrote the source tree's build/scorecard.json";
}

// Issue 22.14: the CTest listing labels a fixed sample of cells per family `sample` (what the
// sanitizer stage runs): the first rows of each family that need no opt-in feature.
TEST(Cli, ListCtestLabelsAFixedSamplePerFamily) {
  const ChildOutcome outcome = tlconform({"list", "--ctest"}, 30);
  ASSERT_EQ(outcome.exit_code, 0) << outcome.stderr_text;
  std::map<std::string, int> sampled;
  std::istringstream lines(outcome.stdout_text);
  for (std::string line; std::getline(lines, line);) {
    const auto labels = line.find("LABELS [==[conformance;");
    if (labels == std::string::npos || line.find(";sample]==]") == std::string::npos) continue;
    const std::string family = line.substr(labels + 23, line.find(";sample]==]") - labels - 23);
    ++sampled[family];
  }
  EXPECT_EQ(sampled, (std::map<std::string, int>{
                         {"capability", 3}, {"config_built", 3}, {"op_sweep", 3}, {"random_init", 3}, {"refusal", 3}}))
      << outcome.stdout_text.substr(0, 3000);
  EXPECT_EQ(tlconform({"list", "--ctest"}, 30).stdout_text, outcome.stdout_text) << "the sample is not fixed";
}

// A corrupt scorecard is its own error (exit 3, naming the file and the cell), never read as
// drift or as untested rows.
TEST(Cli, CapabilitiesRejectsACorruptScorecard) {
  const nlohmann::json committed =
      nlohmann::json::parse(std::ifstream(std::string(TL_SOURCE_DIR) + "/scorecards/tinygrad/scorecard.json"));
  const std::string first = committed["cells"][0]["id"];
  nlohmann::json duplicate = committed;
  duplicate["cells"].push_back(committed["cells"][0]);
  duplicate["cells"].back()["state"] = "failed";
  nlohmann::json unknown = committed;
  unknown["cells"][0]["state"] = "mostly_passed";
  const std::vector<std::pair<nlohmann::json, std::string>> cases{
      {duplicate, "cell " + first + " appears twice"},
      {unknown, "cell " + first + " has state 'mostly_passed'"},
      {nlohmann::json{{"summary", 5}}, "the card has no 'schema_version'"}};
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string path = scratch("corrupt_card_" + std::to_string(i) + ".json");
    std::ofstream(path) << cases[i].first.dump();
    const ChildOutcome outcome = tlconform({"capabilities", "--scorecard", path}, 30);
    EXPECT_EQ(outcome.exit_code, 3) << outcome.stdout_text << outcome.stderr_text;
    EXPECT_NE(outcome.stderr_text.find("bad scorecard: " + path + ": " + cases[i].second), std::string::npos)
        << outcome.stderr_text;
  }
  // No scorecard at all is not corrupt: every row is untested.
  const ChildOutcome absent = tlconform({"capabilities", "--scorecard", scratch("absent.json")}, 30);
  EXPECT_EQ(absent.exit_code, 0) << absent.stderr_text;
}

// A malformed --scorecard fails the doctor's scorecard row; every other row still prints.
TEST(Cli, DoctorPrintsEveryRowWithAMalformedScorecard) {
  const std::string path = scratch("wrong_shape.json");
  std::ofstream(path) << "[]";
  const ChildOutcome outcome = tlconform({"doctor", "--json", "--scorecard", path}, 120);
  EXPECT_EQ(outcome.exit_code, 1) << outcome.stderr_text;
  nlohmann::json rows;
  ASSERT_NO_THROW(rows = nlohmann::json::parse(outcome.stdout_text)) << outcome.stdout_text << outcome.stderr_text;
  std::map<std::string, nlohmann::json> by_name;
  for (const auto& row : rows) by_name[row["name"]] = row;
  EXPECT_TRUE(by_name.contains("python") && by_name.contains("tinygrad") && by_name.contains("device")) << rows.dump();
  ASSERT_TRUE(by_name.contains("backend_scorecard:tinygrad")) << rows.dump();
  EXPECT_EQ(by_name["backend_scorecard:tinygrad"]["status"], "failed");
  EXPECT_NE(by_name["backend_scorecard:tinygrad"]["value"].get<std::string>().find(path + ": must be a JSON object"),
            std::string::npos)
      << rows.dump();
}

// Recorded results (scorecard --from) are read like every user file: a FIFO, a million-deep record,
// a record of another cell or one whose state contradicts its own checks is a corrupt input (exit 3,
// the file named, no card written), never a hang, a crash, a duplicate or a verdict.
TEST(Cli, ScorecardFromRefusesBadRecords) {
  const nlohmann::json committed =
      nlohmann::json::parse(std::ifstream(std::string(TL_SOURCE_DIR) + "/scorecards/tinygrad/scorecard.json"));
  const std::string victim = committed["cells"][1]["id"];
  const nlohmann::json& victim_cell = committed["cells"][1];
  // What each bad record holds, written over the victim's good one.
  const std::map<std::string, std::function<void(const fs::path&)>> corruptions{
      {"fifo", [](const fs::path& file) { ASSERT_EQ(::mkfifo(file.c_str(), 0600), 0); }},
      {"deep",
       [&](const fs::path& file) {
         std::ofstream(file) << R"({"id": ")" << victim << R"(", "checks": )" << std::string(1000000, '[')
                             << std::string(1000000, ']') << "}";
       }},
      {"another cell",
       [](const fs::path& file) {
         std::ofstream(file) << nlohmann::json{
             {"id", "tutorial_mlp"},
             {"family", "config_built"},
             {"roster", "x.yaml:1"},
             {"state", "passed"}}.dump();
       }},
      // Hand-edited from failed to passed; its own check still says it failed.
      {"contradicts itself",
       [&](const fs::path& file) {
         nlohmann::json record{{"id", victim},
                               {"family", victim_cell["family"]},
                               {"roster", victim_cell["roster"]},
                               {"state", "passed"},
                               {"checks", {{{"name", "output_matches"}, {"passed", false}, {"detail", "max |a-b| 3"}}}}};
         std::ofstream(file) << record.dump();
       }},
  };
  for (const auto& [what, corrupt] : corruptions) {
    const fs::path records = scratch("bad-records");
    write_committed_records(records, [](const nlohmann::json& cell) -> std::string { return cell["state"]; });
    const fs::path bad = records / (victim + ".json");
    fs::remove(bad);
    corrupt(bad);
    const std::string out = scratch("bad-records.json");
    const ChildOutcome outcome = tlconform({"scorecard", "--backend", "tinygrad", "--from", records.string(), "--out", out}, 60);
    EXPECT_FALSE(outcome.timed_out) << what << ": hung";
    EXPECT_EQ(outcome.exit_code, 3) << what << ": " << outcome.stderr_text.substr(0, 2000);
    EXPECT_NE(outcome.stderr_text.find(bad.string()), std::string::npos) << what << ": " << outcome.stderr_text.substr(0, 2000);
    EXPECT_FALSE(fs::exists(out)) << what << ": a card was written from a corrupt record";
  }
}

}  // namespace
}  // namespace tl

namespace tl {
namespace {

// A baseline with a duplicate cell id (which could mask a regression) or an unknown state is
// refused as a corrupt file, exit 3, before any cell runs.
TEST(Cli, ACorruptBaselineIsItsOwnErrorBeforeAnyCellRuns) {
  nlohmann::json committed = nlohmann::json::parse(std::ifstream(test::source_path("scorecards/tinygrad/scorecard.json")));
  const std::string duplicate = scratch("duplicate.json");
  nlohmann::json doubled = committed;
  doubled["cells"].push_back(committed["cells"][0]);
  std::ofstream(duplicate) << doubled.dump();
  const std::string unknown = scratch("unknown.json");
  nlohmann::json strange = committed;
  strange["cells"][1]["state"] = "mostly_passed";
  std::ofstream(unknown) << strange.dump();
  for (const auto& [baseline, why] : {std::pair{duplicate, std::string("appears twice")}, {unknown, "mostly_passed"}}) {
    const auto start = std::chrono::steady_clock::now();
    const ChildOutcome outcome =
        tlconform({"scorecard", "--backend", "tinygrad", "--check", "--baseline", baseline, "--out", scratch("o.json")}, 120);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20)) << "cells ran first";
    EXPECT_EQ(outcome.exit_code, 3) << outcome.stdout_text << outcome.stderr_text;
    EXPECT_NE(outcome.stderr_text.find(baseline), std::string::npos) << outcome.stderr_text;
    EXPECT_NE(outcome.stderr_text.find(why), std::string::npos) << outcome.stderr_text;
    EXPECT_EQ(outcome.stdout_text.find("passed"), std::string::npos) << outcome.stdout_text;
  }
}

}  // namespace
}  // namespace tl

namespace tl {
namespace {

namespace fs = std::filesystem;
using test::scratch;
using test::tlconform;

// An xfail row that passes is unexpected_pass and fails the run; one that fails is expected_fail;
// the card keeps each failed check's message, and every format reports the same run.
TEST(Cli, XfailIsReportedBothWaysAndTheCardSaysWhy) {
  const std::string roster = scratch("xfail_rows.yaml");
  std::ofstream(roster) << "rows:\n"
                           "  - id: xfail_but_passes\n    family: config_built\n    xfail: thought broken\n"
                           "    inputs: {x: [1.0]}\n    forward: x * 2\n    expect: {output: [2.0]}\n"
                           "  - id: xfail_and_fails\n    family: config_built\n    xfail: a known limit\n"
                           "    inputs: {x: [1.0]}\n    forward: x * 2\n    expect: {output: [3.0]}\n";
  const std::string out = scratch("xfail.json");
  const ChildOutcome outcome = tlconform({"run", "--roster", roster, "--out", out, "--format", "junit"});
  EXPECT_EQ(outcome.exit_code, 1) << outcome.stdout_text << outcome.stderr_text;
  EXPECT_NE(outcome.stdout_text.find(R"(<failure type="unexpected_pass")"), std::string::npos) << outcome.stdout_text;
  EXPECT_EQ(outcome.stdout_text.find("scorecard written"), std::string::npos) << "stdout is the report's alone";
  const nlohmann::json card = nlohmann::json::parse(std::ifstream(out));
  std::map<std::string, nlohmann::json> cells;
  for (const auto& cell : card["cells"]) cells[cell["id"]] = cell;
  EXPECT_EQ(cells["xfail_but_passes"]["state"], "unexpected_pass");
  EXPECT_EQ(cells["xfail_and_fails"]["state"], "expected_fail");
  EXPECT_EQ(cells["xfail_and_fails"]["failures"][0]["check"], "expected_output");
  EXPECT_NE(cells["xfail_and_fails"]["failures"][0]["detail"].get<std::string>().find("expected"), std::string::npos);
  fs::remove(roster);
}

}  // namespace
}  // namespace tl
