// tlconform run: the selected cells, each in its own process, shown by the --format reporter (a
// line per cell and a summary by default), and a scorecard file (default build/scorecard.json).
#include <filesystem>
#include <iostream>

#include "cli/cell_runner.h"
#include "cli/commands.h"
#include "cli/scorecard_facts.h"
#include "harness/atomic_file.h"

namespace tl::cli {

int run_command(const Args& args) {
  const std::vector<Roster> rosters = load_rosters(args);
  const std::string out =
      writable_output("out", args.value("out", (std::filesystem::path(TL_SOURCE_DIR) / "build" / "scorecard.json").string()));
  const RunSettings settings = run_settings(args);
  const BackendSpec& spec = backend_of(args);
  const std::unique_ptr<Reporter> reporter = reporter_of(args);
  const auto runs = run_cells(spec, rosters, args.all("row"), settings, reporter_progress(*reporter));
  const nlohmann::json card =
      make_scorecard(spec, scorecard_facts(spec, rosters, runs, args.value("leg", "pinned")), results_of(runs));
  write_file_atomically(out, card.dump(2) + "\n");
  reporter->run_finished(card, results_of(runs));
  std::cerr << "scorecard written to " << out << "\n";
  for (const CellRun& run : runs) {
    if (is_failure(run.result.state)) return kExitFailed;
  }
  return kExitPassed;
}

}  // namespace tl::cli
