// The committed scorecard as a schedule: every cell it records ran in under a quarter of a cell's
// time limit, so the pinned leg has room for a machine at a quarter of its speed before a slow
// cell becomes a time-out (and the scorecard check a regression). The durations are the pinned
// leg's, measured; a row that does not fit is made faster or split, never the number edited.
#include <gtest/gtest.h>

#include <string>

#include "harness/backend_registry.h"
#include "harness/cell_process.h"
#include "harness/scorecard.h"

namespace tl {
namespace {

TEST(CommittedCard, EveryCellRunsInUnderAQuarterOfItsTimeLimit) {
  const BackendSpec& spec = backends::spec("tinygrad");
  const nlohmann::json card = read_scorecard(spec.committed_scorecard());
  const nlohmann::json durations = card.at("run").value("durations_s", nlohmann::json::object());
  const double budget = static_cast<double>(kDefaultCellTimeout.count()) / 4;
  ASSERT_FALSE(card.at("cells").empty());
  for (const auto& cell : card.at("cells")) {
    const std::string id = cell.at("id");
    ASSERT_TRUE(durations.contains(id)) << spec.committed_scorecard() << " has no duration for cell " << id;
    EXPECT_LT(durations.at(id).get<double>(), budget)
        << id << " (" << cell.value("roster", "?") << ") took " << durations.at(id).get<double>() << " s on the pinned leg, "
        << "over a quarter of the " << kDefaultCellTimeout.count() << " s cell time limit";
  }
}

}  // namespace
}  // namespace tl
