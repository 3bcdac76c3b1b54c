// What the options of the commands ask for: the runs layer's settings (`run`, `scorecard`) and the
// reporter every command shows its results through.
#pragma once

#include <memory>

#include "cli/args.h"
#include "harness/report/reporter.h"
#include "harness/runs/cell_runs.h"

namespace tl::cli {

// --jobs, --timeout and --memory (default: a share of the available memory per job).
RunSettings run_settings(const Args& args);

// The reporter --format names (console by default; --json is short for --format json, --markdown
// for --format markdown).
std::unique_ptr<Reporter> reporter_of(const Args& args);
// The same for a command that shows one document (every command but run and scorecard): a format
// that has no form for documents (junit) is a UsageError before any work is done.
std::unique_ptr<Reporter> document_reporter_of(const Args& args);

}  // namespace tl::cli
