// Reading scorecards (harness/scorecard.h): a committed card is checked whole before use, so an
// unknown state, a duplicate cell id or a card of the wrong shape is a ScorecardError naming the
// file and the cell, never drift that hides a regression. No Python is needed.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "harness/report/scorecard.h"

namespace tl {
namespace {

namespace fs = std::filesystem;

nlohmann::json committed_card() {
  return nlohmann::json::parse(std::ifstream(std::string(TL_SOURCE_DIR) + "/scorecards/tinygrad/scorecard.json"));
}

std::string rejection(const nlohmann::json& card) {
  try {
    Scorecard::from_json(card, "card.json");
  } catch (const ScorecardError& error) {
    return error.what();
  }
  return "accepted";
}

TEST(Scorecard, TheCommittedCardIsWellFormed) { EXPECT_EQ(rejection(committed_card()), "accepted"); }

// One reader and one writer: what the reader takes from a card, the writer gives back, key for key.
TEST(Scorecard, ReadingThenWritingGivesTheCardBack) {
  const nlohmann::json card = committed_card();
  EXPECT_EQ(Scorecard::from_json(card, "card.json").to_json(), card);
  nlohmann::json failing = card;
  failing["cells"][0]["state"] = "failed";
  failing["cells"][0]["message"] = "a message";
  failing["cells"][0]["failed_checks"] = {"capture"};
  failing["cells"][0]["failures"] = {{{"check", "capture"}, {"detail", "what it found"}}};
  EXPECT_EQ(Scorecard::from_json(failing, "card.json").to_json(), failing);
  nlohmann::json interrupted = card;
  interrupted["interrupted"] = {{"signal", "SIGINT"}, {"unfinished", {"op_add", "op_sub"}}};
  EXPECT_EQ(Scorecard::from_json(interrupted, "card.json").to_json(), interrupted);
}

TEST(Scorecard, RejectsUnknownStatesAndDuplicatesNamingTheCell) {
  nlohmann::json card = committed_card();
  const std::string first = card["cells"][0]["id"];
  card["cells"][0]["state"] = "passed-ish";
  EXPECT_NE(rejection(card).find("card.json: cell " + first + " has state 'passed-ish'"), std::string::npos) << rejection(card);
  card = committed_card();
  card["cells"].push_back(card["cells"][0]);
  EXPECT_NE(rejection(card).find("card.json: cell " + first + " appears twice (cells[0] and cells["), std::string::npos)
      << rejection(card);
  card = committed_card();
  const std::string capability = card["capabilities"][0]["name"];
  card["capabilities"][0]["state"] = "maybe";
  EXPECT_NE(rejection(card).find("capability '" + capability + "' has state 'maybe'"), std::string::npos) << rejection(card);
  card = committed_card();
  card["capabilities"].push_back(card["capabilities"][0]);
  EXPECT_NE(rejection(card).find("capability '" + capability + "' appears twice"), std::string::npos) << rejection(card);
}

TEST(Scorecard, RejectsCardsOfTheWrongShape) {
  const std::vector<std::pair<std::function<void(nlohmann::json&)>, std::string>> cases{
      {[](nlohmann::json& c) { c = nlohmann::json::array(); }, "must be a JSON object, not a JSON array"},
      {[](nlohmann::json& c) { c["summary"] = 5; }, "summary must be an object, not 5"},
      {[](nlohmann::json& c) { c["cells"] = 5; }, "cells must be a list, not 5"},
      {[](nlohmann::json& c) { c.erase("capabilities"); }, "has no 'capabilities'"},
      {[](nlohmann::json& c) { c["cells"][1] = "x"; }, "cells[1] must be an object"},
      {[](nlohmann::json& c) { c["cells"][1]["id"] = 7; }, "cells[1].id must be a string, not 7"},
      {[](nlohmann::json& c) { c["cells"][1].erase("state"); }, "has no 'state'"},
      {[](nlohmann::json& c) { c["cells"][1]["checks"] = {1}; }, "checks must hold strings"},
      {[](nlohmann::json& c) { c["cells"][1]["ops"] = 2.5; }, "ops must be a whole number"},
      {[](nlohmann::json& c) { c["capabilities"][0] = nullptr; }, "capabilities[0] must be an object"},
      {[](nlohmann::json& c) { c["provenance"]["leg"] = 5; }, "provenance.leg must be a string"},
      {[](nlohmann::json& c) { c["spec"] = "tinygrad"; }, "spec must be an object"},
      {[](nlohmann::json& c) { c["schema_version"] = 2; }, "has schema_version 2; this harness reads 1"},
      {[](nlohmann::json& c) { c["interrupted"] = "SIGTERM"; }, "interrupted must be an object"},
      {[](nlohmann::json& c) {
         c["interrupted"] = {{"signal", "SIGTERM"}};
       },
       "interrupted has no 'unfinished'"},
      {[](nlohmann::json& c) {
         c["interrupted"] = {{"signal", 15}, {"unfinished", {}}};
       },
       "interrupted.signal must be a string"},
  };
  for (const auto& [edit, needle] : cases) {
    nlohmann::json card = committed_card();
    edit(card);
    EXPECT_NE(rejection(card).find(needle), std::string::npos) << needle << ": " << rejection(card);
  }
}

// A committed card listing a cell twice (passed, then failed) would let a fresh failure of that cell
// compare equal to the second entry and pass the check: it is an error instead.
TEST(Scorecard, DriftRefusesACommittedCardThatWouldMaskARegression) {
  const Scorecard committed = Scorecard::from_json(committed_card(), "committed");
  nlohmann::json fresh = committed_card();
  fresh["cells"][0]["state"] = "failed";
  const auto drift = scorecard_drift(committed, Scorecard::from_json(fresh, "fresh"));
  ASSERT_FALSE(drift.empty());
  EXPECT_TRUE(drift[0].regression);
  // a card cannot be read at all, let alone compared, when it lists a cell twice or names no state
  nlohmann::json masked = committed_card();
  masked["cells"].push_back(masked["cells"][0]);
  masked["cells"].back()["state"] = "failed";
  EXPECT_THROW(Scorecard::from_json(masked, "masked"), ScorecardError);
  nlohmann::json unknown = committed_card();
  unknown["cells"][0]["state"] = "bogus";
  EXPECT_THROW(Scorecard::from_json(unknown, "unknown"), ScorecardError);
}

TEST(Scorecard, ReadingAFileNamesItAndNeverHangs) {
  const fs::path directory = fs::path(::testing::TempDir()) / ("scorecard_test_" + std::to_string(::getpid()));
  fs::remove_all(directory);
  fs::create_directories(directory);
  const auto message = [](const fs::path& path) {
    try {
      read_scorecard(path.string());
    } catch (const ScorecardError& error) {
      return std::string(error.missing() ? "missing: " : "") + error.what();
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message(fs::path(TL_SOURCE_DIR) / "scorecards/tinygrad/scorecard.json"), "accepted");
  EXPECT_EQ(message(directory / "absent.json").rfind("missing: ", 0), 0u);
  ASSERT_EQ(::mkfifo((directory / "fifo.json").c_str(), 0600), 0);
  EXPECT_NE(message(directory / "fifo.json").find("fifo.json: is not a regular file"), std::string::npos);
  std::ofstream(directory / "deep.json") << std::string(100000, '[') << std::string(100000, ']');
  EXPECT_NE(message(directory / "deep.json").find("deep.json: nests deeper than"), std::string::npos);
  nlohmann::json card = committed_card();
  card["cells"].push_back(card["cells"][3]);
  std::ofstream(directory / "duplicate.json") << card.dump();
  EXPECT_NE(message(directory / "duplicate.json").find("duplicate.json: cell "), std::string::npos);
  fs::remove_all(directory);
}

}  // namespace
}  // namespace tl
