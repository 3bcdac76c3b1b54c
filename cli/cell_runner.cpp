#include "cli/cell_runner.h"

#include <filesystem>
#include <iostream>
#include <set>

namespace tl::cli {

std::string roster_path(const Roster& roster) {
  const std::filesystem::path file(roster.file);
  return file.is_absolute() ? file.string() : (std::filesystem::path(TL_SOURCE_DIR) / file).string();
}

std::unique_ptr<Reporter> reporter_of(const Args& args) {
  const std::string format = args.has("json") ? "json" : args.value("format", "console");
  try {
    return make_reporter(format, std::cout);
  } catch (const std::invalid_argument& error) {
    throw UsageError(error.what());
  }
}

std::function<void(const CellRun&, std::size_t, std::size_t)> reporter_progress(Reporter& reporter) {
  return [&reporter](const CellRun& run, std::size_t done, std::size_t total) {
    reporter.cell_finished(run.result, run.seconds, done, total);
  };
}

std::vector<CellResult> results_of(const std::vector<CellRun>& runs) {
  std::vector<CellResult> results;
  results.reserve(runs.size());
  for (const CellRun& run : runs) results.push_back(run.result);
  return results;
}

RunSettings run_settings(const Args& args) {
  RunSettings settings;
  settings.jobs = static_cast<int>(args.integer("jobs", 2, 1, 64));
  settings.limits.time = std::chrono::seconds(args.integer("timeout", kDefaultCellTimeout.count(), 1, 7LL * 24 * 3600));
  settings.limits.memory =
      args.values.contains("memory") ? parse_byte_size("memory", args.value("memory")) : default_cell_memory(settings.jobs);
  return settings;
}

ChildSpec cell_spec(const BackendSpec& backend, const std::string& roster_file, const std::string& row_id,
                    const CellLimits& limits) {
  const std::string self = std::filesystem::canonical("/proc/self/exe").string();
  return cell_child_spec({self, "cell", "--backend", backend.name, "--roster", roster_file, "--row", row_id, "--result-fd",
                          std::to_string(kResultFd), "--key-fd", std::to_string(kResultKeyFd)},
                         limits);
}

std::vector<CellRun> run_cells(const BackendSpec& backend, const std::vector<Roster>& rosters,
                               const std::vector<std::string>& only, const RunSettings& settings,
                               const std::function<void(const CellRun&, std::size_t done, std::size_t total)>& on_done) {
  std::set<std::string> selected(only.begin(), only.end());
  std::vector<CellResult> identities;
  std::vector<std::string> xfails;
  std::vector<ChildSpec> specs;
  for (const Roster& roster : rosters) {
    for (const RosterRow& row : roster.rows) {
      if (!selected.empty() && !selected.contains(row.id)) continue;
      identities.push_back(CellResult::of(row));
      xfails.push_back(row.xfail);
      specs.push_back(cell_spec(backend, roster_path(roster), row.id, settings.limits));
    }
  }
  for (const CellResult& identity : identities) selected.erase(identity.id);
  if (!selected.empty()) throw UsageError("no row '" + *selected.begin() + "' in the rosters given (see tlconform list)");

  std::vector<CellRun> runs(specs.size());
  std::size_t done = 0;
  SupervisorEvents events;
  events.finished = [&](std::size_t index, const ChildOutcome& outcome) {
    runs[index] = {cell_result_from_child(outcome, identities[index], settings.limits, xfails[index]), outcome.seconds};
    on_done(runs[index], ++done, runs.size());
  };
  events.still_running = [&](const std::vector<std::pair<std::size_t, double>>& running) {
    std::cerr << "[" << done << "/" << runs.size() << "] still running:";
    for (const auto& [index, seconds] : running) std::cerr << " " << identities[index].id << " (" << int(seconds) << " s)";
    std::cerr << std::endl;
  };
  run_children(specs, settings.jobs, events);
  return runs;
}

}  // namespace tl::cli
