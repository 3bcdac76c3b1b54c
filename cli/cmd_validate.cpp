// tlconform validate: capture one row, replay-validate it against a fresh eager forward, and print
// the status with every per-op decision, in the --format asked for.
#include "cli/commands.h"
#include "cli/run_options.h"
#include "harness/judge/protocol.h"

namespace tl::cli {

int validate_command(const Args& args) {
  const std::vector<Roster> rosters = load_rosters(args);
  const RosterRow& row = find_row(rosters, args.required("row"));
  const std::unique_ptr<Reporter> reporter = document_reporter_of(args);
  const auto protocol = protocol_of(backend_of(args));
  const RowCapture capture = protocol->capture_row(row);
  const EagerRun eager = protocol->eager_row(row);
  const ValidationStatus status = protocol->validate(capture.trace, eager.outputs);
  reporter->validation(status);
  return status.passed() ? kExitPassed : kExitFailed;
}

}  // namespace tl::cli
