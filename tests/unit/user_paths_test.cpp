// Every path a user gives is the file the user meant: made absolute once, against the directory
// tlconform started in, before anything runs. Children get absolute paths, and a forward that calls
// os.chdir changes nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_support.h"
#include "harness/report/scorecard.h"

namespace tl {
namespace {

namespace fs = std::filesystem;
using test::file_text;
using test::Invocation;
using test::scratch;
using test::source_path;
using test::tlconform;

// A directory with its own rosters/tinygrad/config_built.yaml whose tutorial_mlp expects wrong
// values: run from there, a relative --roster must run this file, and so fail.
fs::path directory_with_its_own_roster() {
  fs::path home = scratch("user_home");
  fs::create_directories(home / "rosters" / "tinygrad");
  std::ofstream(home / "rosters" / "tinygrad" / "config_built.yaml") << R"(rows:
  - id: tutorial_mlp
    family: config_built
    inputs:
      x: [1.0, 2.0]
    forward: x * 2
    expect:
      output: [5.0, 5.0]
)";
  return home;
}

TEST(UserPaths, ARelativeRosterIsTheUsersFileInEveryCommand) {
  const fs::path home = directory_with_its_own_roster();
  const std::string roster = "rosters/tinygrad/config_built.yaml";
  const ChildOutcome cell = tlconform(Invocation{{"cell", "--roster", roster, "--row", "tutorial_mlp"}, home.string()});
  EXPECT_EQ(cell.exit_code, 1) << cell.stdout_text << cell.stderr_text;

  const ChildOutcome run =
      tlconform(Invocation{{"run", "--roster", roster, "--row", "tutorial_mlp", "--out", "card.json"}, home.string()});
  EXPECT_EQ(run.exit_code, 1) << run.stdout_text << run.stderr_text;
  const nlohmann::json card = nlohmann::json::parse(std::ifstream(home / "card.json"));
  EXPECT_EQ(card["cells"][0]["state"], "failed") << card["cells"].dump();
  EXPECT_NE(run.stdout_text.find("expected_output"), std::string::npos) << run.stdout_text;
  // The digest is the user's file's, not the hash of a file that is not there.
  EXPECT_EQ(card["provenance"]["roster_digest"], digest_files({(home / roster).string()}));

  const ChildOutcome list = tlconform(Invocation{{"list", "--ctest", "--roster", roster}, home.string(), {}, 60});
  EXPECT_EQ(list.exit_code, 0) << list.stderr_text;
  EXPECT_NE(list.stdout_text.find((home / roster).string()), std::string::npos) << list.stdout_text;
}

TEST(UserPaths, ARelativeRosterMissingHereIsAUsageError) {
  const fs::path elsewhere = scratch("elsewhere");
  fs::create_directories(elsewhere);
  const ChildOutcome run = tlconform(
      Invocation{{"run", "--roster", "rosters/tinygrad/config_built.yaml", "--out", "card.json"}, elsewhere.string(), {}, 60});
  EXPECT_EQ(run.exit_code, 2) << run.stdout_text << run.stderr_text;
  EXPECT_NE(run.stderr_text.find("no roster file " + (elsewhere / "rosters/tinygrad/config_built.yaml").string()),
            std::string::npos)
      << run.stderr_text;
  EXPECT_FALSE(fs::exists(elsewhere / "card.json"));
}

// The forward moves to / before the cell writes its record: the record still lands where the user
// said, relative to where tlconform started.
TEST(UserPaths, AForwardThatChangesDirectoryChangesNothing) {
  const fs::path home = scratch("chdir_home");
  fs::create_directories(home);
  const ChildOutcome cell = tlconform(Invocation{
      {"cell", "--roster", source_path("tests/unit/data/hostile_rows.yaml"), "--row", "changes_directory", "--record", "rec"},
      home.string()});
  EXPECT_EQ(cell.exit_code, 0) << cell.stdout_text << cell.stderr_text;
  EXPECT_TRUE(fs::exists(home / "rec" / "changes_directory.json"));
  EXPECT_NE(cell.stdout_text.find("tlspec_round_trip"), std::string::npos) << cell.stdout_text;
}

TEST(UserPaths, OutputsThatAreDirectoriesAreUsageErrors) {
  const fs::path home = scratch("out_dir");
  fs::create_directories(home / "card.json");
  const ChildOutcome run = tlconform(Invocation{{"run", "--row", "tutorial_mlp", "--out", "card.json"}, home.string(), {}, 60});
  EXPECT_EQ(run.exit_code, 2) << run.stdout_text << run.stderr_text;
  EXPECT_NE(run.stderr_text.find("is a directory"), std::string::npos) << run.stderr_text;
  EXPECT_EQ(run.stdout_text.find("passed"), std::string::npos) << "a cell ran: " << run.stdout_text;
}

}  // namespace
}  // namespace tl
