// tlconform list: rows and their cells, from the roster files alone (no Python is started).
#include <filesystem>
#include <iostream>
#include <map>

#include "cli/commands.h"
#include "cli/run_options.h"
#include "harness/io/text_escape.h"
#include "harness/report/scorecard.h"
#include "harness/runs/shard.h"

namespace tl::cli {
namespace {

// A CMake bracket argument, safe for any text.
std::string bracket(const std::string& text) { return "[==[" + text + "]==]"; }

// Each cell's seconds in the committed scorecard's run, as CTest COST: a fresh build directory has
// no timing history, and CTest then starts the highest COST first, so the longest cell does not
// start last and become the suite's tail. No card, or a corrupt one: no costs (its own test says so).
std::map<std::string, double> committed_durations(const BackendSpec& spec) {
  try {
    return read_scorecard(spec.committed_scorecard()).durations();
  } catch (const std::exception&) {
    return {};
  }
}

// How many cells of each family carry the `sample` label: the first rows of the family, in roster
// order, that need no opt-in feature. The sanitizer stage runs the unit tests and this sample (it
// checks the harness's C++, which every family's cell drives, not the framework's speed).
constexpr int kSamplePerFamily = 3;

bool needs_opt_in(const BackendSpec& spec, const RosterRow& row) {
  if (row.family == Family::Ecosystem) return true;
  for (const Requirement& requirement : row.requirements) {
    for (const Feature& feature : spec.features) {
      if (feature.name == requirement.feature && feature.enabled) return true;
    }
  }
  return false;
}

}  // namespace

int list_command(const Args& args) {
  const BackendSpec& spec = backend_of(args);
  std::vector<Roster> rosters = load_rosters(args);
  if (args.values.contains("shard")) {
    if (args.has("ctest")) throw UsageError("--ctest lists every cell (the scorecard check needs them all); drop --shard");
    rosters = shard_of(rosters, parse_shard(args.value("shard")));
  }
  if (args.has("ctest")) {
    // Read by tests/conformance/discover_cells.cmake at ctest time: one test per cell, each
    // recording its result for the scorecard check that runs after all of them.
    const std::string self = std::filesystem::canonical("/proc/self/exe").string();
    const std::string record = args.value("record", "");
    std::string all_cells;
    const std::map<std::string, double> cost = committed_durations(spec);
    std::map<Family, int> sampled;
    for (const Roster& roster : rosters) {
      const std::string file = roster_path(roster);
      for (const RosterRow& row : roster.rows) {
        const std::string name = "conformance." + row.id;
        all_cells += (all_cells.empty() ? "" : ";") + name;
        const bool sample = !needs_opt_in(spec, row) && sampled[row.family] < kSamplePerFamily;
        if (sample) ++sampled[row.family];
        // --isolate: each cell under the same supervisor as `run` (time and memory limits, and
        // nothing it started outlives it), so ctest never waits on a process a forward left behind.
        std::cout << "add_test(" << bracket(name) << " " << bracket(self) << " cell --isolate --backend " << bracket(spec.name)
                  << " --roster " << bracket(file) << " --row " << bracket(row.id)
                  << (record.empty() ? "" : " --record " + bracket(record)) << ")\n"
                  << "set_tests_properties(" << bracket(name) << " PROPERTIES LABELS "
                  << bracket(std::string("conformance;") + to_string(row.family) + (sample ? ";sample" : ""))
                  << " SKIP_RETURN_CODE " << kExitSkipped << " TIMEOUT " << kDefaultCellTimeout.count() + 60
                  << " WORKING_DIRECTORY " << bracket(TL_SOURCE_DIR)
                  << (cost.contains(row.id) ? " COST " + std::to_string(cost.at(row.id)) : "") << ")\n";
      }
    }
    if (!record.empty()) {
      // The pinned leg's check: the recorded cells against the committed scorecard.
      const std::string check = "conformance.scorecard_check";
      const std::string card = (std::filesystem::path(record).parent_path() / "scorecard-check.json").string();
      std::cout << "add_test(" << bracket(check) << " " << bracket(self) << " scorecard --backend " << bracket(spec.name)
                << " --check --from " << bracket(record) << " --out " << bracket(card) << ")\n"
                << "set_tests_properties(" << bracket(check) << " PROPERTIES LABELS " << bracket("conformance;scorecard")
                << " DEPENDS " << bracket(all_cells) << " WORKING_DIRECTORY " << bracket(TL_SOURCE_DIR) << ")\n";
    }
    return kExitPassed;
  }
  for (const Roster& roster : rosters) {
    for (const RosterRow& row : roster.rows) {
      std::cout << row.id << "\t" << to_string(row.family) << "\t" << terminal_line(row.where.str()) << "\n";
    }
  }
  return kExitPassed;
}

}  // namespace tl::cli
