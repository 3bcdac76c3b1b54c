// tlconform trace: capture one row and print its ops (a table, or JSON with payload values); save
// it as a .tlspec bundle, or draw it (--graph), coloured by its validation with --validate.
#include <cstdio>
#include <iostream>
#include <optional>

#include "cli/commands.h"
#include "harness/backend_protocol.h"
#include "harness/graphviz.h"
#include "harness/text_escape.h"
#include "harness/tlspec.h"
#include "harness/trace_graph.h"
#include "harness/trace_json.h"
#include "harness/trace_options.h"

namespace tl::cli {
namespace {

// --graph is checked before anything runs, as --out and --save are: a picture format, a writable
// place (an existing file is replaced), and Graphviz installed.
void check_graph_target(const Args& args) {
  if (args.has("validate") && !args.values.contains("graph"))
    throw UsageError("--validate colours the --graph picture: give --graph FILE too (tlconform validate prints the decisions)");
  if (!args.values.contains("graph")) return;
  const std::string path = args.required("graph");
  const std::optional<std::string> format = graph_format(path);
  if (!format) throw UsageError("--graph " + path + ": give a file name ending in " + kGraphExtensions);
  writable_output("graph", path);
  if (*format != "dot") find_dot();  // a missing Graphviz is said now, not after the capture
}

struct TracedRow {
  Trace trace;
  std::optional<ValidationStatus> status;
};

// The row's trace; with --validate, captured and validated against a fresh eager forward exactly as
// `tlconform validate` does. Validation is asked for, not implied by --graph: it runs the row a
// second time and replays every op (tens of seconds on a deep row), and it decides the exit code.
TracedRow trace_row_of(const Args& args, const RosterRow& row) {
  const auto protocol = backend_of(args).protocol();
  if (!args.has("validate")) return {protocol->trace_row(row), std::nullopt};
  RowCapture capture = protocol->capture_row(row);
  const EagerRun eager = protocol->eager_row(row);
  ValidationStatus status = protocol->validate(capture.trace, eager.outputs);
  return {std::move(capture.trace), std::move(status)};
}

void draw_row(const Args& args, const RosterRow& row, const TracedRow& traced) {
  const GraphOptions options{.title = row.id, .validation = traced.status ? &*traced.status : nullptr};
  draw_trace(traced.trace, args.required("graph"), options);
  std::cerr << "drew " << traced.trace.size() << " ops to " << args.required("graph") << std::endl;
}

}  // namespace

// A table for a terminal: labels and kinds come from the trace (a bundle's manifest may hold any
// text), so each is shown with its control characters escaped (text_escape.h), one op a line.
void print_ops(const Trace& trace) {
  std::printf("%-5s %-28s %-9s %-8s %-8s %-14s %s\n", "index", "label", "kind", "const", "dtype", "shape", "parents");
  for (const Op& op : trace.ops) {
    std::string parents;
    for (const ParentRef& parent : op.parents) parents += (parents.empty() ? "" : ",") + std::to_string(parent.op);
    std::printf("%-5zu %-28s %-9s %-8s %-8s %-14s %s\n", op.index, terminal_line(op.label).c_str(), to_string(op.kind),
                terminal_line(op.constant_kind.value_or("-")).c_str(), op.dtype.name.c_str(), shape_string(op.shape).c_str(),
                parents.c_str());
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
  check_graph_target(args);
  const TracedRow traced = trace_row_of(args, row);
  const Trace& trace = traced.trace;
  if (args.values.contains("save")) {
    trace.save(args.required("save"), !args.has("no-payloads"));
    std::cerr << "saved " << trace.size() << " ops to " << args.required("save") << std::endl;
  }
  if (args.values.contains("graph")) draw_row(args, row, traced);
  const int exit_code = !traced.status || traced.status->passed() ? kExitPassed : kExitFailed;
  if (args.has("json")) {
    std::cout << json_text(trace_to_json(trace), 2) << "\n";
    return exit_code;
  }
  print_ops(trace);
  std::printf("%d evaluation(s), %d kernel(s), device %s\n", trace.stats.evaluations, trace.stats.kernels,
              terminal_line(trace.device).c_str());
  if (traced.status) {
    std::printf("validation: %s (%zu ops replayed)%s%s\n", to_string(traced.status->state), traced.status->replayed,
                traced.status->message.empty() ? "" : ": ", terminal_text(traced.status->message).c_str());
  }
  return exit_code;
}

}  // namespace tl::cli
