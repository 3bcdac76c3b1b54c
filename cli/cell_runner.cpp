#include "cli/cell_runner.h"

#include <atomic>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

#include "harness/cell_process.h"

namespace tl::cli {

std::string roster_path(const Roster& roster) {
  const std::filesystem::path file(roster.file);
  return file.is_absolute() ? file.string() : (std::filesystem::path(TL_SOURCE_DIR) / file).string();
}

std::vector<CellRun> run_cells(const std::vector<Roster>& rosters, const std::vector<std::string>& only, int jobs,
                               std::chrono::seconds limit, const std::function<void(const CellRun&)>& on_done) {
  const std::set<std::string> selected(only.begin(), only.end());
  struct Task {
    std::string file;
    const RosterRow* row;
  };
  std::vector<Task> tasks;
  for (const Roster& roster : rosters) {
    for (const RosterRow& row : roster.rows) {
      if (selected.empty() || selected.contains(row.id)) tasks.push_back({roster_path(roster), &row});
    }
  }
  const std::string self = std::filesystem::canonical("/proc/self/exe").string();
  std::vector<CellRun> runs(tasks.size());
  std::atomic<std::size_t> next{0};
  std::mutex report;
  auto worker = [&] {
    for (std::size_t i = next++; i < tasks.size(); i = next++) {
      const RosterRow& row = *tasks[i].row;
      CellResult identity;
      identity.id = row.id;
      identity.family = to_string(row.family);
      identity.roster = row.where;
      const auto start = std::chrono::steady_clock::now();
      const ChildOutcome outcome = run_child({self, "cell", "--roster", tasks[i].file, "--row", row.id, "--json"}, limit);
      runs[i] = {cell_result_from_child(outcome, identity),
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
      const std::lock_guard<std::mutex> lock(report);
      on_done(runs[i]);
    }
  };
  std::vector<std::thread> workers;
  for (int j = 0; j < std::max(1, jobs); ++j) workers.emplace_back(worker);
  for (std::thread& thread : workers) thread.join();
  return runs;
}

}  // namespace tl::cli
