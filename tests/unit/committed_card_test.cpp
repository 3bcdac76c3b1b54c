// The committed scorecard as a schedule: every cell it records ran in under a quarter of a cell's
// time limit, so the pinned leg has room for a machine at a quarter of its speed before a slow
// cell becomes a time-out (and the scorecard check a regression). The durations are the pinned
// leg's, measured; a row that does not fit is made faster or split, never the number edited.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "harness/backend/backend_registry.h"
#include "harness/report/scorecard.h"
#include "harness/supervise/cell_process.h"

namespace tl {
namespace {

TEST(CommittedCard, EveryCellRunsInUnderAQuarterOfItsTimeLimit) {
  const BackendSpec& spec = backends::spec("tinygrad");
  const Scorecard card = read_scorecard(spec.committed_scorecard());
  const std::map<std::string, double> durations = card.durations();
  // the limit the run that wrote the card used
  ASSERT_TRUE(card.run.contains("cell_time_limit_s")) << spec.committed_scorecard() << " records no cell time limit";
  const double limit = card.run.at("cell_time_limit_s").get<double>();
  EXPECT_EQ(limit, static_cast<double>(kDefaultCellTimeout.count())) << "the pinned leg writes the card under the default limit";
  const double budget = limit / 4;
  ASSERT_FALSE(card.cells.empty());
  for (const ScorecardCell& cell : card.cells) {
    ASSERT_TRUE(durations.contains(cell.id)) << spec.committed_scorecard() << " has no duration for cell " << cell.id;
    EXPECT_LT(durations.at(cell.id), budget) << cell.id << " (" << cell.roster << ") took " << durations.at(cell.id)
                                             << " s on the pinned leg, over a quarter of the " << limit << " s cell time limit";
  }
}

}  // namespace
}  // namespace tl
