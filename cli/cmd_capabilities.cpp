// tlconform capabilities: the backend's can-and-cannot table with states computed from the cells of
// a pinned-leg scorecard (default: the committed one). No Python is started.
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "cli/run_options.h"
#include "harness/io/text_escape.h"
#include "harness/report/scorecard.h"

namespace tl::cli {

int capabilities_command(const Args& args) {
  const BackendSpec& spec = backend_of(args);
  const std::string path = args.value("scorecard", spec.committed_scorecard());
  if (!std::filesystem::exists(path))
    std::cerr << "tlconform: no scorecard at " << terminal_line(path) << ": every row is untested\n";
  const std::vector<CapabilityRow> rows = capability_rows_from(spec, path);
  document_reporter_of(args)->capabilities(spec.name, rows);
  return kExitPassed;
}

}  // namespace tl::cli
