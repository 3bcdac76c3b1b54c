// Runs cells in child processes (a crash or hang is the cell's own state), a few at a time.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "harness/conformance.h"
#include "harness/roster.h"

namespace tl::cli {

struct CellRun {
  CellResult result;
  double seconds = 0.0;
};

// Every row of `rosters` (or only those in `only`), each as `tlconform cell` in its own process,
// `jobs` at a time; `on_done` sees each result as it finishes. Results come back in roster order.
std::vector<CellRun> run_cells(const std::vector<Roster>& rosters, const std::vector<std::string>& only, int jobs,
                               std::chrono::seconds limit, const std::function<void(const CellRun&)>& on_done);

// The absolute path of a roster file as rosters display it.
std::string roster_path(const Roster& roster);

}  // namespace tl::cli
