// Provenance for a scorecard taken now: versions, commit, roster digest, and the run-dependent part.
#pragma once

#include <vector>

#include "cli/cell_runner.h"
#include "harness/roster.h"
#include "harness/scorecard.h"

namespace tl::cli {

RunFacts scorecard_facts(const std::vector<Roster>& rosters, const std::vector<CellRun>& runs, const std::string& leg);

// The committed scorecard of the tinygrad backend.
std::string committed_scorecard_path();

}  // namespace tl::cli
