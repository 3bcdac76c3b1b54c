// tlconform capabilities: the backend's can-and-cannot table with states computed from the cells of
// a pinned-leg scorecard (default: the committed one). No Python is started.
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "harness/scorecard.h"
#include "harness/text_escape.h"

namespace tl::cli {

int capabilities_command(const Args& args) {
  const BackendSpec& spec = backend_of(args);
  const std::string path = args.value("scorecard", spec.committed_scorecard());
  if (!std::filesystem::exists(path)) std::cerr << "tlconform: no scorecard at " << path << ": every row is untested\n";
  const std::vector<CapabilityRow> rows = capability_rows_from(spec, path);
  if (args.has("json")) {
    std::cout << json_text(capabilities_json(rows), 2) << "\n";
  } else if (args.has("markdown")) {
    std::cout << capabilities_markdown(spec.name, rows);
  } else {
    for (const CapabilityRow& row : rows)
      std::cout << to_string(row.state) << "\t" << terminal_line(row.capability.name) << "\t(" << terminal_line(row.why) << ")\n";
  }
  return kExitPassed;
}

}  // namespace tl::cli
