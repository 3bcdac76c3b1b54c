// tlconform trace: capture one row and print its ops (a table, or JSON with payload values).
#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "harness/tlspec.h"
#include "harness/trace_json.h"
#include "harness/trace_options.h"

namespace tl::cli {

void print_ops(const Trace& trace) {
  std::printf("%-5s %-28s %-9s %-8s %-8s %-14s %s\n", "index", "label", "kind", "const", "dtype", "shape", "parents");
  for (const Op& op : trace.ops) {
    std::string parents;
    for (const ParentRef& parent : op.parents) parents += (parents.empty() ? "" : ",") + std::to_string(parent.op);
    std::printf("%-5zu %-28s %-9s %-8s %-8s %-14s %s\n", op.index, op.label.c_str(), to_string(op.kind),
                op.constant_kind.value_or("-").c_str(), op.dtype.name.c_str(), shape_string(op.shape).c_str(), parents.c_str());
  }
  std::printf("%zu ops; outputs:", trace.size());
  for (std::size_t output : trace.outputs) std::printf(" %zu", output);
  std::printf("\n");
}

int trace_command(const Args& args) {
  const std::vector<Roster> rosters = load_rosters(args);
  const RosterRow& row = find_row(rosters, args.required("row"));
  if (args.values.contains("save")) {
    // Before anything runs: the parent must take files, and the target must be new or a bundle.
    const std::string bundle = bundle_path(args.required("save")).string();
    try {
      check_bundle_target(bundle);
    } catch (const TlspecError& error) {
      throw UsageError(std::string("cannot save to --save: ") + error.what());
    }
    writable_parent("save", bundle);
  }
  const Trace trace = backend_of(args).protocol()->trace_row(row);
  if (args.values.contains("save")) {
    trace.save(args.required("save"), !args.has("no-payloads"));
    std::cerr << "saved " << trace.size() << " ops to " << args.required("save") << std::endl;
  }
  if (args.has("json")) {
    std::cout << trace_to_json(trace).dump(2) << "\n";
    return kExitPassed;
  }
  print_ops(trace);
  std::printf("%d evaluation(s), %d kernel(s), device %s\n", trace.stats.evaluations, trace.stats.kernels, trace.device.c_str());
  return kExitPassed;
}

}  // namespace tl::cli
