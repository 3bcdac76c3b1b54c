// tlconform capabilities: the backend's can-and-cannot table with states computed from the cells of
// a pinned-leg scorecard (default: the committed one). No Python is started.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "backends/registry.h"
#include "cli/commands.h"

namespace tl::cli {

std::vector<CapabilityRow> capability_rows_from(const std::string& scorecard_path) {
  std::map<std::string, CellState> cells;
  std::ifstream in(scorecard_path);
  if (in) {
    const nlohmann::json card = nlohmann::json::parse(in);
    // Only the pinned leg proves states; another leg's cells are drift, not proof.
    if (card.at("provenance").value("leg", "") == "pinned") {
      for (const auto& cell : card.at("cells")) {
        if (const auto state = cell_state_from_string(cell.at("state").get<std::string>()))
          cells[cell.at("id").get<std::string>()] = *state;
      }
    }
  }
  return summarize_capabilities(backends::spec("tinygrad").capabilities, cells);
}

int capabilities_command(const Args& args) {
  const std::string path =
      args.value("scorecard", (std::filesystem::path(TL_SOURCE_DIR) / "scorecards" / "tinygrad" / "scorecard.json").string());
  if (!std::filesystem::exists(path)) std::cerr << "tlconform: no scorecard at " << path << ": every row is untested\n";
  const std::vector<CapabilityRow> rows = capability_rows_from(path);
  if (args.has("json")) {
    std::cout << capabilities_json(rows).dump(2) << "\n";
  } else if (args.has("markdown")) {
    std::cout << capabilities_markdown("tinygrad", rows);
  } else {
    for (const CapabilityRow& row : rows)
      std::cout << to_string(row.state) << "\t" << row.capability.name << "\t(" << row.why << ")\n";
  }
  return kExitPassed;
}

}  // namespace tl::cli
