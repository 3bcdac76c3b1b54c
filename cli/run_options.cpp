#include "cli/run_options.h"

#include <iostream>

#include <stdexcept>
#include "cli/commands.h"
#include "harness/io/text_escape.h"

namespace tl::cli {

RunSettings run_settings(const Args& args) {
  RunSettings settings;
  settings.jobs = static_cast<int>(args.integer("jobs", 2, 1, 64));
  settings.limits.time = std::chrono::seconds(args.integer("timeout", kDefaultCellTimeout.count(), 1, 7LL * 24 * 3600));
  settings.limits.memory =
      args.values.contains("memory") ? parse_byte_size("memory", args.value("memory")) : default_cell_memory(settings.jobs);
  return settings;
}

RunOutcome run_or_interrupted(const std::function<std::vector<CellRun>()>& run) {
  try {
    return RunOutcome{.runs = run()};
  } catch (const RunInterrupted& stop) {
    return RunOutcome{
        .runs = stop.finished(), .interrupted = Interruption{stop.signal_name(), stop.unfinished()}, .signal = stop.signal()};
  }
}

int interrupted_exit(const RunOutcome& outcome, const std::string& card_path) {
  std::cerr << "interrupted by " << outcome.interrupted->signal << ": " << outcome.interrupted->unfinished.size()
            << " cell(s) did not finish, their processes killed; the card at " << terminal_line(card_path) << " holds the "
            << outcome.runs.size() << " that did, marked interrupted\n";
  return kExitInterruptedBase + outcome.signal;
}

std::unique_ptr<Reporter> reporter_of(const Args& args) {
  const std::string format = args.has("json") ? "json" : args.has("markdown") ? "markdown" : args.value("format", "console");
  try {
    return make_reporter(format, std::cout);
  } catch (const std::invalid_argument& error) {
    throw UsageError(error.what());
  }
}

std::unique_ptr<Reporter> document_reporter_of(const Args& args) {
  std::unique_ptr<Reporter> reporter = reporter_of(args);
  if (!reporter->shows_documents())
    throw UsageError("--format " + args.value("format") + " shows runs of cells (run, scorecard); use console, json or markdown");
  return reporter;
}

}  // namespace tl::cli
