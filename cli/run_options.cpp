#include "cli/run_options.h"

#include <iostream>
#include <stdexcept>

namespace tl::cli {

RunSettings run_settings(const Args& args) {
  RunSettings settings;
  settings.jobs = static_cast<int>(args.integer("jobs", 2, 1, 64));
  settings.limits.time = std::chrono::seconds(args.integer("timeout", kDefaultCellTimeout.count(), 1, 7LL * 24 * 3600));
  settings.limits.memory =
      args.values.contains("memory") ? parse_byte_size("memory", args.value("memory")) : default_cell_memory(settings.jobs);
  return settings;
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
