// Runs cells in child processes under the supervisor (a crash, a hang or a memory blow-up is the
// cell's own state), a few at a time, showing progress as they finish.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cli/args.h"
#include "harness/backend_spec.h"
#include "harness/cell_process.h"
#include "harness/conformance.h"
#include "harness/reporter.h"
#include "harness/roster.h"

namespace tl::cli {

struct CellRun {
  CellResult result;
  double seconds = 0.0;
};

struct RunSettings {
  int jobs = 2;
  CellLimits limits;
};

// --jobs, --timeout and --memory (default: a share of the available memory per job).
RunSettings run_settings(const Args& args);

// The cell of one row as a supervised child: `tlconform cell` on the row's roster file.
ChildSpec cell_spec(const BackendSpec& backend, const std::string& roster_file, const std::string& row_id,
                    const CellLimits& limits);

// Every row of `rosters` (or only those in `only`; an id that is in no roster is a UsageError),
// each as `tlconform cell` in its own process; `on_done` sees each result as it finishes, with how
// many are done of how many. Results come back in roster order.
std::vector<CellRun> run_cells(const BackendSpec& backend, const std::vector<Roster>& rosters,
                               const std::vector<std::string>& only, const RunSettings& settings,
                               const std::function<void(const CellRun&, std::size_t done, std::size_t total)>& on_done);

// The reporter --format names (console by default; --json is short for --format json).
std::unique_ptr<Reporter> reporter_of(const Args& args);
// run_cells's progress callback that feeds `reporter`.
std::function<void(const CellRun&, std::size_t, std::size_t)> reporter_progress(Reporter& reporter);
// The results of `runs`, in order.
std::vector<CellResult> results_of(const std::vector<CellRun>& runs);

// The absolute path of a roster file as rosters display it.
std::string roster_path(const Roster& roster);

}  // namespace tl::cli
