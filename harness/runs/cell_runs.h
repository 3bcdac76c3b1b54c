// Runs cells in child processes under the supervisor (a crash, a hang or a memory blow-up is the
// cell's own state), a few at a time, showing progress as they finish. `tlconform run` and
// `scorecard` run cells through it; `report --graphs` draws pictures through run_supervised.
#pragma once

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "harness/backend/backend_spec.h"
#include "harness/report/reporter.h"
#include "harness/roster/roster.h"
#include "harness/runs/run_request.h"
#include "harness/supervise/cell_process.h"

namespace tl {

struct CellRun {
  CellResult result;
  double seconds = 0.0;
};

struct RunSettings {
  int jobs = 2;
  CellLimits limits;
};

// A run stopped by SIGINT or SIGTERM (child_supervisor.h): every running cell's processes were
// killed and no cell started after it. `finished` holds the cells that ended before it, in roster
// order; `unfinished` the ids of the others, in roster order.
class RunInterrupted : public std::runtime_error {
 public:
  RunInterrupted(int signal, std::vector<CellRun> finished, std::vector<std::string> unfinished);
  int signal() const { return signal_; }
  std::string signal_name() const;  // "SIGINT", "SIGTERM"
  const std::vector<CellRun>& finished() const { return finished_; }
  const std::vector<std::string>& unfinished() const { return unfinished_; }

 private:
  int signal_;
  std::vector<CellRun> finished_;
  std::vector<std::string> unfinished_;
};

// Runs `commands` under the supervisor, `jobs` at a time. `finished(index, outcome, done)` sees each
// child as it ends (done: how many have ended, this one included); while children run, a line on
// stderr says which ("[3/10] still <doing>: op_matmul (41 s) ..."), `labels` naming them. Returns
// the outcomes; a run stopped by a signal has them marked (interrupting_signal).
std::vector<ChildOutcome> run_supervised(const std::vector<ChildCommand>& commands, const std::vector<std::string>& labels,
                                         int jobs, std::string_view doing,
                                         const std::function<void(std::size_t, const ChildOutcome&, std::size_t)>& finished);

// The cell of one row as a supervised child: `tlconform cell` (this executable) on the row's roster file.
ChildCommand cell_command(const BackendSpec& backend, const std::string& roster_file, const std::string& row_id,
                          const CellLimits& limits);

// Every row of `rosters` (or only those in `only`; an id that is in no roster is a RunRequestError),
// each as `tlconform cell` in its own process; `on_done` sees each result as it finishes, with how
// many are done of how many. Results come back in roster order; a run stopped by SIGINT or SIGTERM
// throws RunInterrupted with the cells that finished.
std::vector<CellRun> run_cells(const BackendSpec& backend, const std::vector<Roster>& rosters,
                               const std::vector<std::string>& only, const RunSettings& settings,
                               const std::function<void(const CellRun&, std::size_t done, std::size_t total)>& on_done);

// run_cells's progress callback that feeds `reporter`.
std::function<void(const CellRun&, std::size_t, std::size_t)> reporter_progress(Reporter& reporter);
// The results of `runs`, in order.
std::vector<CellResult> results_of(const std::vector<CellRun>& runs);

// The absolute path of a roster file as rosters display it.
std::string roster_path(const Roster& roster);

}  // namespace tl
