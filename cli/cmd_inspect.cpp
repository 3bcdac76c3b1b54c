// tlconform inspect: print a saved .tlspec bundle (no Python is started).
#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "harness/text_escape.h"
#include "harness/trace_json.h"

namespace tl::cli {

void print_ops(const Trace& trace);

int inspect_command(const Args& args) {
  if (!args.values.contains("bundle")) throw UsageError("inspect needs a bundle directory: tlconform inspect DIR");
  const Trace trace = Trace::load(args.required("bundle"));
  if (args.has("json")) {
    std::cout << json_text(trace_to_json(trace), 2) << "\n";
    return kExitPassed;
  }
  print_ops(trace);
  // Every field comes from the bundle's manifest: shown, never acted on by the terminal.
  std::printf("backend %s, framework %s, device %s, %s\n", terminal_line(trace.backend).c_str(),
              terminal_line(trace.framework_version).c_str(), terminal_line(trace.device).c_str(),
              trace.ops.empty() || trace.ops[0].out ? "payloads included (audit-only: no live replay)\n"
                                                    : "saved without payloads (audit-only)\n");
  return kExitPassed;
}

}  // namespace tl::cli
