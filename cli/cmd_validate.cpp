// tlconform validate: capture one row, replay-validate it against a fresh eager forward, and print
// the status with every per-op decision.
#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "harness/text_escape.h"

namespace tl::cli {

int validate_command(const Args& args) {
  const std::vector<Roster> rosters = load_rosters(args);
  const RosterRow& row = find_row(rosters, args.required("row"));
  const auto protocol = backend_of(args).protocol();
  const RowCapture capture = protocol->capture_row(row);
  const EagerRun eager = protocol->eager_row(row);
  const ValidationStatus status = protocol->validate(capture.trace, eager.outputs);
  if (args.has("json")) {
    std::cout << json_text(status.to_json(), 2) << "\n";
  } else {
    std::printf("%-5s %-28s %-13s %-10s %s\n", "op", "label", "phase", "decision", "reason");
    for (const Decision& d : status.decisions) {
      std::printf("%-5zu %-28s %-13s %-10s %s\n", d.op, terminal_line(d.label).c_str(), to_string(d.phase), to_string(d.verdict),
                  terminal_line(d.reason).c_str());
    }
    std::cout << "state: " << to_string(status.state) << " (" << status.replayed << " ops replayed)";
    if (!status.message.empty()) std::cout << ": " << terminal_text(status.message);
    std::cout << "\n";
  }
  return status.passed() ? kExitPassed : kExitFailed;
}

}  // namespace tl::cli
