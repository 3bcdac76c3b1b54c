// tlconform run: the selected cells, each in its own process; one line per cell, a summary, and a
// scorecard file (default build/scorecard.json).
#include <filesystem>
#include <iomanip>
#include <iostream>

#include "backends/registry.h"
#include "cli/cell_runner.h"
#include "cli/commands.h"
#include "cli/scorecard_facts.h"
#include "harness/atomic_file.h"

namespace tl::cli {

void print_cell_line(const CellRun& run, std::size_t done, std::size_t total) {
  const CellResult& result = run.result;
  if (total != 0) std::cout << "[" << done << "/" << total << "] ";
  std::cout << to_string(result.state) << "\t" << result.id << "\t" << result.roster.str();
  if (result.ops) std::cout << "\t" << *result.ops << " ops";
  std::cout << "\t" << std::fixed << std::setprecision(1) << run.seconds << " s" << std::defaultfloat;
  if (result.state != CellState::Passed && result.state != CellState::Skipped) {
    std::cout << "\n    " << result.message.substr(0, 2000);
    // The cell's own output, its last part: where a forward's prints and tracebacks end up.
    const std::string& output = result.output;
    if (!output.empty()) std::cout << "\n" << (output.size() > 4000 ? "[...]" + output.substr(output.size() - 4000) : output);
  } else if (result.state == CellState::Skipped) {
    std::cout << "\t(" << result.message << ")";
  }
  std::cout << std::endl;
}

void print_summary(const nlohmann::json& card) {
  const nlohmann::json& summary = card["summary"];
  std::cout << "summary: " << summary["total"].get<int>() << " cells";
  for (const auto& [state, count] : summary["by_state"].items()) std::cout << ", " << count.get<int>() << " " << state;
  std::cout << "\n";
  for (const auto& [family, counts] : summary["by_family"].items()) {
    std::cout << "  " << family << ": " << counts.value("passed", 0) << "/" << counts.value("total", 0) << " passed";
    if (counts.value("skipped", 0) != 0) std::cout << ", " << counts.value("skipped", 0) << " skipped";
    std::cout << "\n";
  }
}

std::vector<CellResult> results_of(const std::vector<CellRun>& runs) {
  std::vector<CellResult> results;
  results.reserve(runs.size());
  for (const CellRun& run : runs) results.push_back(run.result);
  return results;
}

int run_command(const Args& args) {
  const std::vector<Roster> rosters = load_rosters(args);
  const std::string out =
      writable_output("out", args.value("out", (std::filesystem::path(TL_SOURCE_DIR) / "build" / "scorecard.json").string()));
  const RunSettings settings = run_settings(args);
  const auto runs = run_cells(rosters, args.all("row"), settings, [&](const CellRun& run, std::size_t done, std::size_t total) {
    if (!args.has("json")) print_cell_line(run, done, total);
  });
  const nlohmann::json card =
      make_scorecard(backends::spec("tinygrad"), scorecard_facts(rosters, runs, args.value("leg", "pinned")), results_of(runs));
  write_file_atomically(out, card.dump(2) + "\n");
  if (args.has("json")) {
    std::cout << card.dump(2) << "\n";
  } else {
    print_summary(card);
    std::cout << "scorecard written to " << out << "\n";
  }
  for (const CellRun& run : runs) {
    if (run.result.state != CellState::Passed && run.result.state != CellState::Skipped) return kExitFailed;
  }
  return kExitPassed;
}

}  // namespace tl::cli
