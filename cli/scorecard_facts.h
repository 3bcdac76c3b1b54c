// Provenance for a scorecard taken now: versions, commit, roster digest, and the run-dependent part.
#pragma once

#include <vector>

#include "cli/cell_runner.h"
#include "harness/roster.h"
#include "harness/scorecard.h"

namespace tl::cli {

RunFacts scorecard_facts(const BackendSpec& spec, const std::vector<Roster>& rosters, const std::vector<CellRun>& runs,
                         const std::string& leg);

}  // namespace tl::cli
