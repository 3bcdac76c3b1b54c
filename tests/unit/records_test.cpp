// Cell records and their merge (scorecard --from): a record carries the run that made it, and a
// merge takes only records of this checkout's rosters and run (issue 37.3); what a record may claim
// (expected_fail, unsupported, skipped) comes from its row, never from the record. --record writes
// only into a directory of records (issue 37.9).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <tuple>

#include <nlohmann/json.hpp>

#include "cli_support.h"

namespace tl {
namespace {

namespace fs = std::filesystem;
using test::file_text;
using test::Invocation;
using test::scratch;
using test::source_path;

const std::vector<std::string> kRows{"doubles", "known_limit", "needs_a_later_version", "needs_slow"};

// tlconform without the slow feature, so needs_slow is skipped wherever the test runs.
ChildOutcome tlconform(const std::vector<std::string>& args) {
  return test::tlconform(Invocation{args, "", {"-u", "TORCHLENS_CONFORMANCE_SLOW"}, 300});
}

nlohmann::json read_json(const fs::path& path) { return nlohmann::json::parse(std::ifstream(path)); }

// A copy of the test roster and each of its rows recorded by `cell --isolate --record`, as CTest does.
struct Recorded {
  fs::path roster;
  fs::path records;
};

Recorded record_every_row(const std::string& name) {
  Recorded made{scratch(name) + "/record_rows.yaml", scratch(name) + "/records"};
  fs::create_directories(made.roster.parent_path());
  fs::copy_file(source_path("tests/unit/data/record_rows.yaml"), made.roster);
  for (const std::string& row : kRows) {
    const ChildOutcome cell =
        tlconform({"cell", "--isolate", "--roster", made.roster.string(), "--row", row, "--record", made.records.string()});
    EXPECT_NE(cell.exit_code, 2) << row << ": " << cell.stderr_text;
  }
  return made;
}

ChildOutcome merge(const Recorded& made, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"scorecard", "--roster", made.roster.string(), "--from", made.records.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return tlconform(args);
}

TEST(Records, ARecordSaysWhichRunMadeIt) {
  const Recorded made = record_every_row("provenance");
  const nlohmann::json record = read_json(made.records / "doubles.json");
  ASSERT_TRUE(record.contains("provenance")) << record.dump(2);
  for (const char* key : {"backend", "harness_version", "git_commit", "git_worktree", "roster_file_digest"})
    EXPECT_TRUE(record["provenance"].contains(key)) << key << ": " << record.dump(2);
  const std::string card = scratch("provenance.json");
  const ChildOutcome merged = merge(made, {"--out", card});
  EXPECT_EQ(merged.exit_code, 0) << merged.stderr_text;
  // The card says the commit and the working tree's state its cells ran from (clean or dirty).
  const nlohmann::json provenance = read_json(card)["provenance"];
  EXPECT_EQ(provenance["git_commit"], record["provenance"]["git_commit"]);
  EXPECT_EQ(provenance["git_worktree"], record["provenance"]["git_worktree"]);
  EXPECT_TRUE(provenance["git_worktree"] == "clean" || provenance["git_worktree"] == "dirty") << provenance.dump();
}

// A row changed after its cell was recorded (here: made to fail) is not merged from the old record:
// the merge is refused, naming the record and the roster file, instead of a card with 0 regressions.
TEST(Records, ARecordOfAnEarlierRosterIsRefused) {
  const Recorded made = record_every_row("earlier-roster");
  const std::string baseline = scratch("earlier-baseline.json");
  ASSERT_EQ(merge(made, {"--out", baseline}).exit_code, 0);
  std::string roster = file_text(made.roster);
  roster.replace(roster.find("expect: {output: [2.0, 4.0]}"), 28, "expect: {output: [2.0, 5.0]}");
  std::ofstream(made.roster) << roster;
  const std::string out = scratch("earlier-roster.json");
  const ChildOutcome checked = merge(made, {"--check", "--baseline", baseline, "--out", out});
  EXPECT_EQ(checked.exit_code, 3) << checked.stderr_text;
  EXPECT_NE(checked.stderr_text.find("merge refused"), std::string::npos) << checked.stderr_text;
  EXPECT_NE(checked.stderr_text.find((made.records / "doubles.json").string()), std::string::npos) << checked.stderr_text;
  EXPECT_NE(checked.stderr_text.find("another version of " + made.roster.string()), std::string::npos) << checked.stderr_text;
  EXPECT_FALSE(fs::exists(out));
}

// Each edit makes a record claim what its run or its row does not grant; each is refused (exit 3,
// the file named, no card).
TEST(Records, ARecordClaimsOnlyWhatItsRowAndRunGrant) {
  const Recorded made = record_every_row("claims");
  const std::vector<std::tuple<std::string, std::string, std::function<void(nlohmann::json&)>>> cases{
      {"doubles", "has no xfail", [](nlohmann::json& r) { r["state"] = "expected_fail"; }},
      {"doubles", "requires no framework version", [](nlohmann::json& r) { r["state"] = "unsupported"; }},
      {"doubles", "requires no feature", [](nlohmann::json& r) { r["state"] = "skipped"; }},
      {"known_limit", "is xfail",
       [](nlohmann::json& r) {
         r["state"] = "passed";
         r.erase("checks");
       }},
      {"needs_a_later_version", "outside tinygrad>=0.14", [](nlohmann::json& r) { r["state"] = "passed"; }},
      {"doubles", "git_commit", [](nlohmann::json& r) { r["provenance"]["git_commit"] = std::string(40, '0'); }},
      {"doubles", "harness_version", [](nlohmann::json& r) { r["provenance"]["harness_version"] = "0.0.1"; }},
  };
  for (const auto& [row, why, edit] : cases) {
    const fs::path copy = scratch("claims-copy");
    fs::copy(made.records, copy, fs::copy_options::recursive);
    nlohmann::json record = read_json(copy / (row + ".json"));
    edit(record);
    std::ofstream(copy / (row + ".json")) << record.dump();
    const std::string out = scratch("claims.json");
    const ChildOutcome merged = tlconform({"scorecard", "--roster", made.roster.string(), "--from", copy.string(), "--out", out});
    EXPECT_EQ(merged.exit_code, 3) << row << " (" << why << "): " << merged.stderr_text;
    EXPECT_NE(merged.stderr_text.find((copy / (row + ".json")).string()), std::string::npos) << why << merged.stderr_text;
    EXPECT_NE(merged.stderr_text.find(why), std::string::npos) << why << ": " << merged.stderr_text;
    EXPECT_FALSE(fs::exists(out)) << why;
  }
}

// Issue 37.4: a row that stops being tested is a regression on the pinned leg unless the baseline
// already had it so: an xfail added to a passing row, a requires: the pinned version fails. On
// another leg each is drift.
TEST(Records, ARowThatStopsBeingTestedIsARegressionOnThePinnedLeg) {
  const Recorded made = record_every_row("stops-being-tested");
  const std::string baseline = scratch("stops-baseline.json");
  ASSERT_EQ(merge(made, {"--out", baseline}).exit_code, 0);
  const std::string original = file_text(made.roster);
  const std::vector<std::pair<std::string, std::string>> edits{
      {"    expect: {output: [2.0, 4.0]}", "    xfail: now a known limit\n    expect: {output: [2.0, 5.0]}"},
      {"    expect: {output: [2.0, 4.0]}", "    requires: [tinygrad>=0.14]\n    expect: {output: [2.0, 4.0]}"},
  };
  const std::vector<std::string> after{"expected_fail", "unsupported"};
  for (std::size_t i = 0; i < edits.size(); ++i) {
    std::string roster = original;
    roster.replace(roster.find(edits[i].first), edits[i].first.size(), edits[i].second);
    std::ofstream(made.roster) << roster;
    fs::remove_all(made.records);
    for (const std::string& row : kRows)
      tlconform({"cell", "--isolate", "--roster", made.roster.string(), "--row", row, "--record", made.records.string()});
    const ChildOutcome pinned = merge(made, {"--check", "--baseline", baseline, "--out", scratch("stops.json")});
    EXPECT_EQ(pinned.exit_code, 1) << after[i] << ": " << pinned.stderr_text;
    EXPECT_NE(pinned.stderr_text.find("REGRESSION cell doubles: passed -> " + after[i]), std::string::npos) << pinned.stderr_text;
    const ChildOutcome other_leg =
        merge(made, {"--leg", "in-range-latest", "--check", "--baseline", baseline, "--out", scratch("stops-latest.json")});
    EXPECT_EQ(other_leg.exit_code, 0) << after[i] << ": " << other_leg.stderr_text;
    EXPECT_NE(other_leg.stderr_text.find("drift      cell doubles: passed -> " + after[i]), std::string::npos)
        << other_leg.stderr_text;
  }
}

// --record writes DIR/ID.json and DIR/run-manifest.json only in a directory of records: one that
// holds anything else (or is a file) is refused before any cell runs, and left as it was.
TEST(Records, RecordRefusesADirectoryThatHoldsAnythingElse) {
  const std::string roster = source_path("tests/unit/data/record_rows.yaml");
  const std::vector<std::pair<std::string, std::function<void(const fs::path&)>>> targets{
      {"holds notes.txt", [](const fs::path& dir) { std::ofstream(dir / "notes.txt") << "mine"; }},
      {"holds doubles.json", [](const fs::path& dir) { std::ofstream(dir / "doubles.json") << R"({"name": "my package"})"; }},
      {"holds run-manifest.json", [](const fs::path& dir) { std::ofstream(dir / "run-manifest.json") << R"({"x": 1})"; }},
      {"holds a directory", [](const fs::path& dir) { fs::create_directories(dir / "src"); }},
  };
  for (const auto& [what, fill] : targets) {
    const fs::path dir = scratch("not-records");
    fs::create_directories(dir);
    fill(dir);
    std::map<std::string, std::string> before;
    for (const auto& entry : fs::directory_iterator(dir))
      before[entry.path().filename()] = entry.is_regular_file() ? file_text(entry.path()) : "";
    for (const std::vector<std::string>& command :
         {std::vector<std::string>{"run", "--roster", roster, "--row", "doubles", "--record", dir.string(), "--out",
                                   scratch("x.json")},
          std::vector<std::string>{"cell", "--roster", roster, "--row", "doubles", "--isolate", "--record", dir.string()}}) {
      const ChildOutcome outcome = tlconform(command);
      EXPECT_EQ(outcome.exit_code, 2) << command[0] << ", " << what << ": " << outcome.stderr_text;
      EXPECT_NE(outcome.stderr_text.find("not a directory of cell records"), std::string::npos) << what << outcome.stderr_text;
      std::map<std::string, std::string> after;
      for (const auto& entry : fs::directory_iterator(dir))
        after[entry.path().filename()] = entry.is_regular_file() ? file_text(entry.path()) : "";
      EXPECT_EQ(after, before) << command[0] << ", " << what << ": the directory changed";
    }
  }
  const std::string file = scratch("a-file");
  std::ofstream(file) << "mine";
  const ChildOutcome outcome = tlconform({"cell", "--roster", roster, "--row", "doubles", "--isolate", "--record", file});
  EXPECT_EQ(outcome.exit_code, 2) << outcome.stderr_text;
  EXPECT_EQ(file_text(file), "mine");
  // A directory of records from an earlier run, a killed write's temporary file among them, is one.
  const Recorded made = record_every_row("records-again");
  std::ofstream(made.records / ".doubles.json.tmp-AbC123") << "{";
  const ChildOutcome again =
      tlconform({"cell", "--roster", made.roster.string(), "--row", "doubles", "--isolate", "--record", made.records.string()});
  EXPECT_EQ(again.exit_code, 0) << again.stderr_text;
}

}  // namespace
}  // namespace tl
