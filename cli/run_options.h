// What the options of the commands ask for: the runs layer's settings (`run`, `scorecard`) and the
// reporter every command shows its results through.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/args.h"
#include "harness/report/reporter.h"
#include "harness/runs/cell_runs.h"

namespace tl::cli {

// --jobs, --timeout and --memory (default: a share of the available memory per job).
RunSettings run_settings(const Args& args);

// The cells of a run (`run`, `scorecard`): every row's, or those that finished before a signal
// stopped the run, which `interrupted` then says.
struct RunOutcome {
  std::vector<CellRun> runs;
  std::optional<Interruption> interrupted;
  int signal = 0;
};
RunOutcome run_or_interrupted(const std::function<std::vector<CellRun>()>& run);
// Tells the user what an interrupted run left (to stderr) and gives its exit code.
int interrupted_exit(const RunOutcome& outcome, const std::string& card_path);

// The reporter --format names (console by default; --json is short for --format json, --markdown
// for --format markdown).
std::unique_ptr<Reporter> reporter_of(const Args& args);
// The same for a command that shows one document (every command but run and scorecard): a format
// that has no form for documents (junit) is a UsageError before any work is done.
std::unique_ptr<Reporter> document_reporter_of(const Args& args);

}  // namespace tl::cli
