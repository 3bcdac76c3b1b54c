// The backend a command works on (--backend, default tinygrad) and the rosters it reads: --roster
// files, or every *.yaml under the backend's rosters directory, checked against its vocabulary.
#include <algorithm>
#include <filesystem>

#include "cli/commands.h"
#include "harness/backend/backend_registry.h"
#include "harness/cells/families.h"

namespace tl::cli {

const BackendSpec& backend_of(const Args& args) {
  try {
    // Without --backend: tinygrad, or the one backend a build has (a test binary with its own).
    const std::vector<std::string> known = backends::names();
    const bool only_one = known.size() == 1;
    return backends::spec(args.value("backend", only_one ? known.front() : kDefaultBackend));
  } catch (const BackendUnsupportedError& error) {
    throw UsageError(std::string("--backend: ") + error.what());
  }
}

std::vector<Roster> load_rosters(const Args& args) {
  const BackendSpec& spec = backend_of(args);
  std::vector<std::string> files = args.all("roster");
  if (files.empty()) {
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(spec.rosters_directory(), error)) {
      if (entry.path().extension() == ".yaml") files.push_back(entry.path().string());
    }
    if (error) throw UsageError("no rosters for backend " + spec.name + " at " + spec.rosters_directory() + ": give --roster");
    std::sort(files.begin(), files.end());
  }
  for (const std::string& file : files) {
    if (!std::filesystem::exists(file)) throw UsageError("no roster file " + file);
  }
  return tl::load_rosters(files, roster_vocabulary(spec));  // ids unique across every file
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
