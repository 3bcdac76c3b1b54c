// tlconform inspect: print a saved .tlspec bundle (no Python is started), in the --format asked for.
#include "cli/commands.h"
#include "cli/run_options.h"
#include "harness/backend/backend_registry.h"

namespace tl::cli {

int inspect_command(const Args& args) {
  if (!args.values.contains("bundle")) throw UsageError("inspect needs a bundle directory: tlconform inspect DIR");
  const std::unique_ptr<Reporter> reporter = document_reporter_of(args);
  reporter->trace(load_trace(args.required("bundle")), nullptr);
  return kExitPassed;
}

}  // namespace tl::cli
