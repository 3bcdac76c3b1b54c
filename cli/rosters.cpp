#include <algorithm>
#include <filesystem>

#include "cli/commands.h"

namespace tl::cli {

std::vector<Roster> load_rosters(const Args& args) {
  std::vector<std::string> files = args.all("roster");
  if (files.empty()) {
    for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(TL_SOURCE_DIR) / "rosters" / "tinygrad")) {
      if (entry.path().extension() == ".yaml") files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
  }
  for (const std::string& file : files) {
    if (!std::filesystem::exists(file)) throw UsageError("no roster file " + file);
  }
  return tl::load_rosters(files);  // ids unique across every file
}

const RosterRow& find_row(const std::vector<Roster>& rosters, const std::string& id) {
  for (const Roster& roster : rosters) {
    for (const RosterRow& row : roster.rows) {
      if (row.id == id) return row;
    }
  }
  throw UsageError("no row '" + id + "' in the rosters given (see tlconform list)");
}

}  // namespace tl::cli
