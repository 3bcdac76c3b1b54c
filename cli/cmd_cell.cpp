// tlconform cell: run one cell in this process. CTest runs each cell this way; `run` spawns it.
#include <filesystem>
#include <iostream>

#include "backends/registry.h"
#include "cli/commands.h"
#include "harness/atomic_file.h"
#include "harness/conformance.h"

namespace tl::cli {

int cell_command(const Args& args) {
  const std::vector<Roster> rosters = load_rosters(args);
  const RosterRow& row = find_row(rosters, args.required("row"));
  if (args.values.contains("record")) {
    // No stale verdict: a cell that dies before the end leaves no record, which the check reports.
    std::filesystem::remove(std::filesystem::path(args.required("record")) / (row.id + ".json"));
  }
  const auto protocol = backends::spec("tinygrad").protocol();
  const CellResult result = run_cell(*protocol, row);
  if (args.values.contains("record")) {
    std::filesystem::create_directories(args.required("record"));
    write_file_atomically((std::filesystem::path(args.required("record")) / (row.id + ".json")).string(),
                          result.to_json().dump() + "\n");
  }
  if (args.has("json")) {
    std::cout << result.to_json().dump() << std::endl;
  } else {
    for (const Check& check : result.checks)
      std::cout << (check.passed ? "  ok    " : "  FAIL  ") << check.name << ": " << check.detail << "\n";
    std::cout << row.where.str() << ": row " << row.id << " " << to_string(result.state);
    if (result.state != CellState::Passed) std::cout << ": " << result.message;
    std::cout << std::endl;
  }
  if (result.state == CellState::Passed) return kExitPassed;
  return result.state == CellState::Skipped ? kExitSkipped : kExitFailed;
}

}  // namespace tl::cli
