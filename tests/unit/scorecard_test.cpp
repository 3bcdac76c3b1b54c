// Reading scorecards (harness/scorecard.h): a committed card is checked whole before use, so an
// unknown state, a duplicate cell id or a card of the wrong shape is a ScorecardError naming the
// file and the cell, never drift that hides a regression. No Python is needed.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

#include "harness/report/committed_card.h"
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

// Issue 37.4: on the pinned leg, a row that stops being tested is a regression unless the committed
// card already had it so: passed -> expected_fail (an xfail added), passed -> unsupported, and a
// capability losing its proof. On another leg each is drift.
TEST(Scorecard, OnThePinnedLegARowThatStopsBeingTestedIsARegression) {
  const nlohmann::json committed_json = committed_card();
  const Scorecard committed = Scorecard::from_json(committed_json, "committed");
  const std::string first = committed_json["cells"][0]["id"];
  const std::string second = committed_json["cells"][1]["id"];
  ASSERT_EQ(committed_json["cells"][0]["state"], "passed");
  ASSERT_EQ(committed_json["cells"][1]["state"], "passed");
  for (const std::string leg : {"pinned", "in-range-latest"}) {
    nlohmann::json fresh = committed_json;
    fresh["provenance"]["leg"] = leg;
    fresh["cells"][0]["state"] = "expected_fail";
    fresh["cells"][1]["state"] = "unsupported";
    std::size_t proved = 0;
    for (auto& capability : fresh["capabilities"]) {
      if (capability["state"] == "supported" && proved++ == 0) capability["state"] = "untested";
    }
    std::map<std::string, bool> regression;
    for (const Drift& d : scorecard_drift(committed, Scorecard::from_json(fresh, "fresh"))) regression[d.id] = d.regression;
    ASSERT_EQ(regression.size(), 3u) << leg;
    EXPECT_EQ(regression.at(first), leg == "pinned") << leg << ": passed -> expected_fail";
    EXPECT_EQ(regression.at(second), leg == "pinned") << leg << ": passed -> unsupported";
    for (const auto& [id, is] : regression) {
      if (id != first && id != second) {
        EXPECT_EQ(is, leg == "pinned") << leg << ": capability " << id << " lost its proof";
      }
    }
  }
  // What the committed card already had is no drift at all.
  EXPECT_TRUE(scorecard_drift(committed, committed).empty());
}

// A cell that stays passed hides no regression: one that no longer runs a check the committed card
// lists is a regression on every leg; another op count is one on the pinned leg (the pinned tinygrad
// builds the same graph every time) and drift elsewhere; a check added is no drift at all.
TEST(Scorecard, APassedCellThatLostACheckOrChangedItsOpsIsARegression) {
  const nlohmann::json committed_json = committed_card();
  const Scorecard committed = Scorecard::from_json(committed_json, "committed");
  std::size_t traced = 0;
  while (committed_json["cells"][traced]["state"] != "passed" || !committed_json["cells"][traced].contains("ops") ||
         committed_json["cells"][traced]["checks"].size() < 2)
    ++traced;
  const std::string id = committed_json["cells"][traced]["id"];
  for (const std::string leg : {"pinned", "in-range-latest"}) {
    nlohmann::json fresh = committed_json;
    fresh["provenance"]["leg"] = leg;
    auto& checks = fresh["cells"][traced]["checks"];
    const std::string lost = checks.back();
    checks.erase(checks.size() - 1);
    std::vector<Drift> drift = scorecard_drift(committed, Scorecard::from_json(fresh, "fresh"));
    ASSERT_EQ(drift.size(), 1u) << leg;
    EXPECT_EQ(drift[0].id, id);
    EXPECT_EQ(drift[0].after, "passed without " + lost);
    EXPECT_TRUE(drift[0].regression) << leg;

    fresh = committed_json;
    fresh["provenance"]["leg"] = leg;
    fresh["cells"][traced]["ops"] = fresh["cells"][traced]["ops"].get<std::uint64_t>() - 1;
    fresh["cells"][traced]["checks"].push_back("a_new_check");
    drift = scorecard_drift(committed, Scorecard::from_json(fresh, "fresh"));
    ASSERT_EQ(drift.size(), 1u) << leg;
    EXPECT_NE(drift[0].after.find(" ops"), std::string::npos) << drift[0].after;
    EXPECT_EQ(drift[0].regression, leg == "pinned") << leg;
  }
}

// Issue 37.4 and 37.10: what may replace the committed card. Each case is one reason --write refuses.
TEST(Scorecard, OnlyAPinnedCleanCompleteRunMayReplaceTheCommittedCard) {
  const BackendSpec spec = [] {
    BackendSpec made;
    made.name = "tinygrad";
    made.distribution = "tinygrad";
    made.pinned_version = "0.13.0";
    return made;
  }();
  const nlohmann::json committed_json = committed_card();
  const Scorecard committed = Scorecard::from_json(committed_json, "committed");
  auto fresh_with = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json fresh = committed_json;
    fresh["provenance"]["framework_version_seen"] = "0.13.0";
    fresh["provenance"]["leg"] = "pinned";
    fresh["provenance"]["git_worktree"] = "clean";
    edit(fresh);
    return Scorecard::from_json(fresh, "fresh");
  };
  EXPECT_EQ(why_not_committed(spec, fresh_with([](nlohmann::json&) {}), committed, "clean"), std::nullopt);
  const std::vector<std::pair<std::function<void(nlohmann::json&)>, std::string>> refusals{
      {[](nlohmann::json& c) { c["provenance"]["leg"] = "in-range-latest"; }, "--write is for the pinned leg"},
      {[](nlohmann::json& c) { c["provenance"]["framework_version_seen"] = "0.13.1"; }, "--write is for the pinned leg"},
      {[](nlohmann::json& c) { c["cells"][0]["state"] = "skipped"; }, "--write needs every cell run"},
      {[](nlohmann::json& c) { c["cells"][0]["state"] = "failed"; }, "--write needs every cell to end as its row asks"},
      {[](nlohmann::json& c) { c["cells"][0]["state"] = "unsupported"; }, "was passed in the committed card and is unsupported"},
      {[](nlohmann::json& c) {
         c["interrupted"] = {{"signal", "SIGTERM"}, {"unfinished", {"x"}}};
       },
       "interrupted"},
      {[](nlohmann::json& c) { c["provenance"]["git_worktree"] = "dirty"; }, "from a dirty working tree"},
      {[](nlohmann::json& c) { c["provenance"].erase("git_worktree"); }, "from a clean git checkout"},
  };
  for (const auto& [edit, needle] : refusals) {
    const std::optional<std::string> why = why_not_committed(spec, fresh_with(edit), committed, "clean");
    ASSERT_TRUE(why.has_value()) << needle;
    EXPECT_NE(why->find(needle), std::string::npos) << needle << ": " << *why;
  }
  // The tree the card is written into counts too, and a row the committed card already had as
  // unsupported (or lacked) may stay so; an xfail added is drift --check reports, and may be written.
  EXPECT_NE(why_not_committed(spec, fresh_with([](nlohmann::json&) {}), committed, "dirty").value_or("").find("dirty"),
            std::string::npos);
  EXPECT_EQ(why_not_committed(spec, fresh_with([](nlohmann::json& c) { c["cells"][0]["state"] = "expected_fail"; }), committed,
                              "clean"),
            std::nullopt);
  EXPECT_EQ(why_not_committed(spec, fresh_with([](nlohmann::json& c) { c["cells"][0]["state"] = "unsupported"; }), std::nullopt,
                              "clean"),
            std::nullopt);
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
