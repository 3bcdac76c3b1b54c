// Shards, as a nightly matrix uses them: `run --shard K/N --record DIR` on each runner, then
// `scorecard --from DIR ...` merges them into the card one unsharded run writes, and refuses a
// merge that would be wrong (a cell recorded nowhere or twice, shards of different runs or rosters).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli_support.h"

namespace tl {
namespace {

namespace fs = std::filesystem;

using test::file_text;
using test::scratch;
using test::source_path;
using test::tlconform;

std::vector<std::string> listed_ids(const std::vector<std::string>& extra) {
  std::vector<std::string> args{"list", "--backend", "tinygrad"};
  args.insert(args.end(), extra.begin(), extra.end());
  const ChildOutcome outcome = tlconform(args, 60);
  EXPECT_EQ(outcome.exit_code, 0) << outcome.stderr_text;
  std::vector<std::string> ids;
  std::istringstream lines(outcome.stdout_text);
  for (std::string line; std::getline(lines, line);) ids.push_back(line.substr(0, line.find('\t')));
  return ids;
}

TEST(Shards, SplitEveryRowOnceAndStayPutWhenOtherRowsChange) {
  const std::vector<std::string> all = listed_ids({});
  ASSERT_GT(all.size(), 10U);
  std::multiset<std::string> union_of_shards;
  for (int k = 1; k <= 3; ++k) {
    const std::vector<std::string> part = listed_ids({"--shard", std::to_string(k) + "/3"});
    EXPECT_FALSE(part.empty()) << "shard " << k << "/3 of " << all.size() << " rows is empty";
    EXPECT_LT(part.size(), all.size());
    union_of_shards.insert(part.begin(), part.end());
    // A shard depends on each id alone: the same rows fall in it when other roster files are left out.
    const std::vector<std::string> narrow =
        listed_ids({"--roster", source_path("rosters/tinygrad/refusals.yaml"), "--shard", std::to_string(k) + "/3"});
    for (const std::string& id : narrow) EXPECT_NE(std::find(part.begin(), part.end(), id), part.end()) << id;
  }
  EXPECT_EQ(union_of_shards, std::multiset<std::string>(all.begin(), all.end()));
}

TEST(Shards, BadShardArgumentsAreUsageErrors) {
  for (const std::string shard : {"0/2", "3/2", "1/0", "a/b", "1/2/3", "2", "1/1001", "-1/2"}) {
    const ChildOutcome outcome = tlconform({"list", "--shard", shard}, 60);
    EXPECT_EQ(outcome.exit_code, 2) << shard;
    EXPECT_NE(outcome.stderr_text.find("--shard takes K/N"), std::string::npos) << shard << ": " << outcome.stderr_text;
  }
  const ChildOutcome with_row = tlconform({"run", "--shard", "1/2", "--row", "tutorial_mlp"}, 60);
  EXPECT_EQ(with_row.exit_code, 2) << with_row.stderr_text;
}

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(std::ifstream(path)); }

std::set<std::string> record_ids(const fs::path& directory) {
  std::set<std::string> ids;
  for (const auto& entry : fs::directory_iterator(directory)) {
    if (entry.path().filename() != "run-manifest.json") ids.insert(entry.path().stem().string());
  }
  return ids;
}

void copy_tree(const fs::path& from, const fs::path& to) {
  fs::remove_all(to);
  fs::copy(from, to, fs::copy_options::recursive);
}

// The merge of two real shard directories equals the unsharded run; then each way a merge can be
// wrong is made on purpose, on copies, and refused with exit 3 and no card.
TEST(Shards, MergedShardsEqualTheUnshardedRunAndBadMergesAreRefused) {
  // The capability rows and the test rows of every state a record can hold (passed, expected_fail,
  // unsupported, skipped or run for `slow`): seven cells, each run three times.
  const std::vector<std::string> rosters{"--roster", source_path("rosters/tinygrad/capabilities.yaml"), "--roster",
                                         source_path("tests/unit/data/record_rows.yaml")};
  auto with_rosters = [&](std::vector<std::string> args) {
    args.insert(args.begin() + 1, rosters.begin(), rosters.end());
    return args;
  };
  const std::string whole = scratch("whole.json");
  const ChildOutcome unsharded = tlconform(with_rosters({"run", "--out", whole}), 600);
  ASSERT_EQ(unsharded.exit_code, 0) << unsharded.stdout_text << unsharded.stderr_text;

  const fs::path one = scratch("shard-1");
  const fs::path two = scratch("shard-2");
  for (const auto& [k, dir] : {std::pair{"1/2", one}, std::pair{"2/2", two}}) {
    const ChildOutcome shard =
        tlconform(with_rosters({"run", "--shard", k, "--record", dir.string(), "--out", scratch("part.json")}), 600);
    ASSERT_EQ(shard.exit_code, 0) << shard.stdout_text << shard.stderr_text;
    EXPECT_NE(shard.stderr_text.find(std::string("(shard ") + k + ")"), std::string::npos) << shard.stderr_text;
  }
  EXPECT_FALSE(record_ids(one).empty());
  EXPECT_FALSE(record_ids(two).empty());

  const std::string merged_path = scratch("merged.json");
  const ChildOutcome merge =
      tlconform(with_rosters({"scorecard", "--from", one.string(), "--from", two.string(), "--out", merged_path}), 120);
  ASSERT_EQ(merge.exit_code, 0) << merge.stdout_text << merge.stderr_text;
  const nlohmann::json expected = read_json(whole);
  const nlohmann::json merged = read_json(merged_path);
  EXPECT_EQ(merged["cells"], expected["cells"]);
  EXPECT_EQ(merged["capabilities"], expected["capabilities"]);
  EXPECT_EQ(merged["summary"], expected["summary"]);
  EXPECT_EQ(merged["provenance"], expected["provenance"]);
  EXPECT_EQ(merged["run"]["durations_s"].size(), expected["cells"].size()) << "the shards' durations are kept";
  EXPECT_EQ(merged["run"]["merged_from"], nlohmann::json({"1/2", "2/2"}));

  // Each wrong merge: exit 3, a message saying what is wrong, and no card written.
  auto expect_refused = [&](const std::vector<std::string>& froms, const std::string& why, const std::string& what) {
    std::vector<std::string> args{"scorecard"};
    for (const std::string& from : froms) args.insert(args.end(), {"--from", from});
    const std::string out = scratch("refused.json");
    args.insert(args.end(), {"--out", out});
    const ChildOutcome outcome = tlconform(with_rosters(args), 120);
    EXPECT_EQ(outcome.exit_code, 3) << what << ": " << outcome.stderr_text;
    EXPECT_NE(outcome.stderr_text.find("merge refused: "), std::string::npos) << what << ": " << outcome.stderr_text;
    EXPECT_NE(outcome.stderr_text.find(why), std::string::npos) << what << ": " << outcome.stderr_text;
    EXPECT_FALSE(fs::exists(out)) << what;
  };
  const std::string a_cell = *record_ids(two).begin();

  expect_refused({one.string()}, "recorded in none of the --from directories", "a shard left out");

  const fs::path lost = scratch("lost");
  copy_tree(two, lost);
  fs::remove(lost / (a_cell + ".json"));
  expect_refused({one.string(), lost.string()}, a_cell, "a record deleted from a shard");

  const fs::path doubled = scratch("doubled");
  copy_tree(one, doubled);
  fs::copy_file(two / (a_cell + ".json"), doubled / (a_cell + ".json"));
  nlohmann::json manifest = read_json((doubled / "run-manifest.json").string());
  manifest["cells"].push_back(a_cell);
  std::ofstream(doubled / "run-manifest.json") << manifest.dump();
  expect_refused({doubled.string(), two.string()}, "recorded more than once: " + a_cell, "a cell in two shards");

  expect_refused({one.string(), one.string(), two.string()}, "is given twice", "one directory twice");

  const fs::path other_version = scratch("other-version");
  copy_tree(two, other_version);
  manifest = read_json((other_version / "run-manifest.json").string());
  manifest["provenance"]["framework_version_seen"] = "0.14.0";
  std::ofstream(other_version / "run-manifest.json") << manifest.dump();
  expect_refused({one.string(), other_version.string()}, "the shards disagree on framework_version_seen",
                 "shards on two tinygrad versions");

  const fs::path no_manifest = scratch("no-manifest");
  copy_tree(two, no_manifest);
  fs::remove(no_manifest / "run-manifest.json");
  expect_refused({one.string(), no_manifest.string()}, "merge records of one kind", "a record directory of another kind");

  // Merged against other rosters than the shards ran: refused, not a card with holes.
  const ChildOutcome narrower = tlconform({"scorecard", "--roster", source_path("tests/unit/data/record_rows.yaml"), "--from",
                                           one.string(), "--from", two.string(), "--out", scratch("narrow.json")},
                                          120);
  EXPECT_EQ(narrower.exit_code, 3) << narrower.stderr_text;
  EXPECT_NE(narrower.stderr_text.find("in none of the rosters here"), std::string::npos) << narrower.stderr_text;
}

}  // namespace
}  // namespace tl
