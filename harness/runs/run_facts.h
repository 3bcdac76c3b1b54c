// What a scorecard of a run taken now records: versions, commit, the working tree's state, roster
// digest, and the run-dependent part.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "harness/report/scorecard.h"
#include "harness/roster/roster.h"
#include "harness/runs/cell_runs.h"

namespace tl {

// The source tree this harness was built from, as it is now: no Python is started.
struct Checkout {
  std::string harness_version;
  std::string git_commit;    // HEAD, or "unknown"
  std::string git_worktree;  // git_worktree_state of the tree
};
Checkout this_checkout();

// "clean" when `directory`'s git working tree matches HEAD (no change, staged or not, and no
// untracked file that is not ignored), "dirty" otherwise, "unknown" when it is no git checkout.
std::string git_worktree_state(const std::string& directory);

// `checkout`: the tree as the run started. `time_limit`: each cell's, recorded in the card's
// run-dependent part (a committed card's cells are held to a quarter of it).
RunFacts run_facts(const BackendSpec& spec, const std::vector<Roster>& rosters, const std::vector<CellRun>& runs,
                   const std::string& leg, std::chrono::seconds time_limit, const Checkout& checkout);

}  // namespace tl
