// tlconform run: every selected cell in its own process, a summary, and a scorecard file.
#include <chrono>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <unistd.h>

#include "backends/registry.h"
#include "cli/commands.h"
#include "harness/atomic_file.h"
#include "harness/cell_process.h"
#include "harness/python_runtime.h"
#include "harness/scorecard.h"

namespace tl::cli {

int run_command(const Args& args) {
  const std::vector<Roster> rosters = load_rosters(args);
  const std::string out = args.value("out", (std::filesystem::path(TL_SOURCE_DIR) / "build" / "scorecard.json").string());
  const auto limit = std::chrono::seconds(std::stoi(args.value("timeout", "600")));
  const std::vector<std::string> rows = args.all("row");
  const std::set<std::string> only(rows.begin(), rows.end());
  const std::string self = std::filesystem::canonical("/proc/self/exe").string();

  std::vector<CellResult> results;
  std::vector<std::string> files;
  nlohmann::json durations = nlohmann::json::object();
  for (const Roster& roster : rosters) {
    const std::string file = (std::filesystem::path(TL_SOURCE_DIR) / roster.file).string();
    files.push_back(file);
    for (const RosterRow& row : roster.rows) {
      if (!only.empty() && !only.contains(row.id)) continue;
      CellResult identity;
      identity.id = row.id;
      identity.family = to_string(row.family);
      identity.roster = row.where;
      const auto start = std::chrono::steady_clock::now();
      const ChildOutcome outcome = run_child({self, "cell", "--roster", file, "--row", row.id, "--json"}, limit);
      const CellResult result = cell_result_from_child(outcome, identity);
      durations[row.id] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (!args.has("json")) {
        std::cout << to_string(result.state) << "\t" << result.id << "\t" << result.roster.str();
        if (result.ops) std::cout << "\t" << *result.ops << " ops";
        std::cout << "\t" << durations[row.id].get<double>() << " s";
        if (result.state != CellState::Passed) std::cout << "\n    " << result.message;
        std::cout << std::endl;
      }
      results.push_back(result);
    }
  }

  RunFacts facts;
  const RuntimeInfo& runtime = python_runtime();
  facts.framework_version_seen = runtime.tinygrad_version;
  facts.python_version = runtime.python_version;
  facts.roster_digest = digest_files(files);
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  facts.run = {{"date", std::time(nullptr)}, {"host", host}, {"durations_s", durations}};
  const nlohmann::json card = make_scorecard(backends::spec("tinygrad"), facts, results);
  std::filesystem::create_directories(std::filesystem::absolute(out).parent_path());
  write_file_atomically(out, card.dump(2) + "\n");

  const nlohmann::json& summary = card["summary"];
  if (args.has("json")) {
    std::cout << card.dump(2) << "\n";
  } else {
    std::cout << "summary: " << summary["total"].get<int>() << " cells";
    for (const auto& [state, count] : summary["by_state"].items()) std::cout << ", " << count.get<int>() << " " << state;
    std::cout << "\nscorecard written to " << out << "\n";
  }
  for (const CellResult& result : results) {
    if (result.state != CellState::Passed && result.state != CellState::Skipped) return kExitFailed;
  }
  return kExitPassed;
}

}  // namespace tl::cli
