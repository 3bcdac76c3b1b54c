// What a scorecard of a run taken now records: versions, commit, roster digest, and the run-dependent part.
#pragma once

#include <chrono>
#include <vector>

#include "harness/report/scorecard.h"
#include "harness/roster/roster.h"
#include "harness/runs/cell_runs.h"

namespace tl {

// `time_limit`: each cell's, recorded in the card's run-dependent part (a committed card's cells are
// held to a quarter of it).
RunFacts run_facts(const BackendSpec& spec, const std::vector<Roster>& rosters, const std::vector<CellRun>& runs,
                   const std::string& leg, std::chrono::seconds time_limit);

}  // namespace tl
