#include "harness/runs/cell_runs.h"

#include <cstring>
#include <filesystem>
#include <iostream>
#include <set>

#include "harness/io/text_escape.h"

namespace tl {

std::string roster_path(const Roster& roster) {
  const std::filesystem::path file(roster.file);
  return file.is_absolute() ? file.string() : (std::filesystem::path(TL_SOURCE_DIR) / file).string();
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

namespace {

std::string name_of_signal(int signal) {
  const char* name = sigabbrev_np(signal);
  return name == nullptr ? "signal " + std::to_string(signal) : "SIG" + std::string(name);
}

}  // namespace

RunInterrupted::RunInterrupted(int signal, std::vector<CellRun> finished, std::vector<std::string> unfinished)
    : std::runtime_error("interrupted by " + name_of_signal(signal)),
      signal_(signal),
      finished_(std::move(finished)),
      unfinished_(std::move(unfinished)) {}

std::string RunInterrupted::signal_name() const { return name_of_signal(signal_); }

std::vector<ChildOutcome> run_supervised(const std::vector<ChildCommand>& commands, const std::vector<std::string>& labels,
                                         int jobs, std::string_view doing,
                                         const std::function<void(std::size_t, const ChildOutcome&, std::size_t)>& finished) {
  std::size_t done = 0;
  SupervisorEvents events;
  events.finished = [&](std::size_t index, const ChildOutcome& outcome) { finished(index, outcome, ++done); };
  events.still_running = [&](const std::vector<std::pair<std::size_t, double>>& running) {
    std::cerr << "[" << done << "/" << commands.size() << "] still " << doing << ":";
    for (const auto& [index, seconds] : running)
      std::cerr << " " << terminal_line(labels[index]) << " (" << static_cast<int>(seconds) << " s)";
    std::cerr << std::endl;
  };
  return commands.empty() ? std::vector<ChildOutcome>{} : run_children(commands, jobs, events);
}

ChildCommand cell_command(const BackendSpec& backend, const std::string& roster_file, const std::string& row_id,
                          const CellLimits& limits) {
  const std::string self = std::filesystem::canonical("/proc/self/exe").string();
  return cell_child_command({self, "cell", "--backend", backend.name, "--roster", roster_file, "--row", row_id, "--result-fd",
                             std::to_string(kResultFd), "--key-fd", std::to_string(kResultKeyFd)},
                            limits);
}

std::vector<CellRun> run_cells(const BackendSpec& backend, const std::vector<Roster>& rosters,
                               const std::vector<std::string>& only, const RunSettings& settings,
                               const std::function<void(const CellRun&, std::size_t done, std::size_t total)>& on_done) {
  std::set<std::string> selected(only.begin(), only.end());
  std::vector<CellResult> identities;
  std::vector<std::string> ids, xfails;
  std::vector<ChildCommand> commands;
  for (const Roster& roster : rosters) {
    for (const RosterRow& row : roster.rows) {
      if (!selected.empty() && !selected.contains(row.id)) continue;
      identities.push_back(CellResult::of(row));
      ids.push_back(row.id);
      xfails.push_back(row.xfail);
      commands.push_back(cell_command(backend, roster_path(roster), row.id, settings.limits));
    }
  }
  for (const std::string& id : ids) selected.erase(id);
  if (!selected.empty()) throw RunRequestError("no row '" + *selected.begin() + "' in the rosters given (see tlconform list)");

  std::vector<CellRun> runs(commands.size());
  const std::vector<ChildOutcome> outcomes = run_supervised(
      commands, ids, settings.jobs, "running", [&](std::size_t index, const ChildOutcome& outcome, std::size_t done) {
        runs[index] = {cell_result_from_child(outcome, identities[index], settings.limits, xfails[index]), outcome.seconds};
        on_done(runs[index], done, runs.size());
      });
  if (const int signal = interrupting_signal(outcomes)) {
    std::vector<CellRun> finished;
    std::vector<std::string> unfinished;
    for (std::size_t index = 0; index < outcomes.size(); ++index) {
      if (outcomes[index].interrupted_by != 0)
        unfinished.push_back(ids[index]);
      else
        finished.push_back(runs[index]);
    }
    throw RunInterrupted(signal, std::move(finished), std::move(unfinished));
  }
  return runs;
}

}  // namespace tl
