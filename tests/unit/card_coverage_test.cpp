// Coverage on the card (harness/cells/cell_result.h, harness/report/scorecard.h): the checks that
// judge ops one by one say how many of them they judged, the card keeps it for every passed check,
// and a check that passes while judging less than the committed card's is a regression on the
// pinned leg. A cell's state and check names alone cannot show an alone check that fell from every
// op to a sample. No Python is needed.
#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/cells/cell_result.h"
#include "harness/report/scorecard.h"

namespace tl {
namespace {

CellResult traced_cell(const std::string& id, std::size_t alone_checked, std::size_t alone_of) {
  CellResult cell;
  cell.id = id;
  cell.family = "config_built";
  cell.roster = {"rosters/test.yaml", 3};
  cell.state = CellState::Passed;
  cell.ops = 20;
  cell.checks = {{"capture", true, "20 ops recorded"},
                 {"payloads_equal_alone", true, "equal", Coverage{alone_checked, alone_of}},
                 {"replay_validation", true, "passed", Coverage{15, 15}}};
  return cell;
}

Scorecard card_of(const std::vector<CellResult>& cells, const std::string& leg = "pinned") {
  BackendSpec spec;
  spec.name = "tinygrad";
  spec.pinned_version = "0.13.0";
  RunFacts facts;
  facts.leg = leg;
  // Through the file format, as --check reads both cards.
  return Scorecard::from_json(make_scorecard(spec, facts, cells).to_json(), "card.json");
}

// A cell's record (what a cell process reports, and `run --record` keeps) carries each check's coverage.
TEST(CardCoverage, ACellRecordKeepsEachChecksCoverage) {
  const CellResult cell = traced_cell("mlp", 64, 1249);
  const CellResult read = CellResult::from_json(cell.to_json());
  ASSERT_EQ(read.checks.size(), 3u);
  EXPECT_EQ(read.checks[0].coverage, std::nullopt);
  EXPECT_EQ(read.checks[1].coverage, (Coverage{64, 1249}));
  EXPECT_EQ(read.checks[2].coverage, (Coverage{15, 15}));
}

// A record read back is held to the card's rules: a coverage that checked more than it could judge is
// refused (a CorruptRecord for `scorecard --from`), not carried onto the card.
TEST(CardCoverage, ARecordWithCoverageOfTheWrongShapeIsRefused) {
  nlohmann::json record = traced_cell("mlp", 64, 1249).to_json();
  record["checks"][1]["coverage"] = {{"checked", 65}, {"of", 64}};
  EXPECT_THROW(CellResult::from_json(record), std::invalid_argument);
  record["checks"][1]["coverage"] = {{"checked", 3}};
  EXPECT_THROW(CellResult::from_json(record), std::invalid_argument);
}

// The card records a passed check's coverage, under its name; a failed check's says nothing a reader
// could lean on, so it is left out.
TEST(CardCoverage, TheCardRecordsWhatEachPassedCheckJudged) {
  CellResult failing = traced_cell("failing", 3, 10);
  failing.state = CellState::Failed;
  failing.checks[1].passed = false;
  const Scorecard card = card_of({traced_cell("mlp", 64, 1249), failing});
  EXPECT_EQ(card.cells[0].coverage.at("payloads_equal_alone"), (Coverage{64, 1249}));
  EXPECT_EQ(card.cells[0].coverage.at("replay_validation"), (Coverage{15, 15}));
  EXPECT_EQ(card.cells[0].coverage.count("capture"), 0u);
  EXPECT_EQ(card.cells[1].coverage.count("payloads_equal_alone"), 0u);
  EXPECT_EQ(card.to_json()["cells"][0]["coverage"]["payloads_equal_alone"], (nlohmann::json{{"checked", 64}, {"of", 1249}}));
}

std::string rejection(const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json card = card_of({traced_cell("mlp", 5, 5)}).to_json();
  edit(card["cells"][0]);
  try {
    Scorecard::from_json(card, "card.json");
  } catch (const ScorecardError& error) {
    return error.what();
  }
  return "accepted";
}

TEST(CardCoverage, ACardWithCoverageOfTheWrongShapeIsRefusedNamingTheCell) {
  EXPECT_NE(rejection([](nlohmann::json& c) { c["coverage"] = 5; }).find("cells[0] (cell mlp).coverage must be an object"),
            std::string::npos);
  EXPECT_NE(rejection([](nlohmann::json& c) {
              c["coverage"]["payloads_equal_alone"] = {{"checked", 3}};
            }).find("coverage.payloads_equal_alone must be {\"checked\": N, \"of\": M}"),
            std::string::npos);
  EXPECT_NE(rejection([](nlohmann::json& c) {
              c["coverage"]["payloads_equal_alone"] = {{"checked", -1}, {"of", 4}};
            }).find("with whole numbers"),
            std::string::npos);
  EXPECT_NE(rejection([](nlohmann::json& c) {
              c["coverage"]["payloads_equal_alone"] = {{"checked", 6}, {"of", 5}};
            }).find("checked 6 of only 5"),
            std::string::npos);
  EXPECT_EQ(rejection([](nlohmann::json&) {}), "accepted");
}

// Each way a passed check can judge less: fewer ops, no longer every op, other ops it could judge
// (what it could judge is fixed by the graph), no coverage at all. On the
// pinned leg each is a regression (the pinned tinygrad builds the same graph every run); on another
// leg drift. Judging as much, or more of the same ops, is no drift.
TEST(CardCoverage, ACheckThatJudgesLessThanTheCommittedCardsIsARegression) {
  const Scorecard committed = card_of({traced_cell("mlp", 1249, 1249)});
  struct Case {
    CellResult fresh;
    std::string after;  // "" for no drift
  };
  CellResult no_coverage = traced_cell("mlp", 0, 0);
  no_coverage.checks[1].coverage.reset();
  const std::vector<Case> cases{
      {traced_cell("mlp", 64, 1249), "passed, payloads_equal_alone judged 64 of 1249"},
      {traced_cell("mlp", 1249, 1250), "passed, payloads_equal_alone judged 1249 of 1250"},
      {no_coverage, "passed, payloads_equal_alone with no coverage recorded"},
      {traced_cell("mlp", 1248, 1248), "passed, payloads_equal_alone judged 1248 of 1248"},
      {traced_cell("mlp", 1249, 1249), ""},
      {traced_cell("mlp", 1250, 1250), "passed, payloads_equal_alone judged 1250 of 1250"},
  };
  for (const std::string leg : {"pinned", "in-range-latest"}) {
    for (const Case& c : cases) {
      const std::vector<Drift> drift = scorecard_drift(committed, card_of({c.fresh}, leg));
      if (c.after.empty()) {
        EXPECT_TRUE(drift.empty()) << leg << ": " << drift.size() << " drift(s), first " << (drift.empty() ? "" : drift[0].after);
        continue;
      }
      ASSERT_EQ(drift.size(), 1u) << leg << ": " << c.after;
      EXPECT_EQ(drift[0].id, "mlp");
      EXPECT_EQ(drift[0].before, "passed, payloads_equal_alone judged 1249 of 1249");
      EXPECT_EQ(drift[0].after, c.after);
      EXPECT_EQ(drift[0].regression, leg == "pinned") << leg << ": " << c.after;
    }
  }
  // A sample that stays the committed sample is no drift; one that shrinks is.
  const Scorecard sampled = card_of({traced_cell("mlp", 64, 1249)});
  EXPECT_TRUE(scorecard_drift(sampled, card_of({traced_cell("mlp", 64, 1249)})).empty());
  ASSERT_EQ(scorecard_drift(sampled, card_of({traced_cell("mlp", 32, 1249)})).size(), 1u);
  ASSERT_EQ(scorecard_drift(sampled, card_of({traced_cell("mlp", 64, 64)})).size(), 1u) << "a sample said to be of every op";
  EXPECT_TRUE(scorecard_drift(sampled, card_of({traced_cell("mlp", 128, 1249)})).empty()) << "a larger sample";
}

}  // namespace
}  // namespace tl
