// tlconform trace: capture one row and show its ops (--format: a table, JSON with payload values); save
// it as a .tlspec bundle, or draw it (--graph), coloured by its validation with --validate.
#include <cstdio>
#include <iostream>
#include <optional>

#include "cli/commands.h"
#include "cli/run_options.h"
#include "harness/io/text_escape.h"
#include "harness/judge/protocol.h"
#include "harness/model/tlspec.h"
#include "harness/model/trace_json.h"
#include "harness/model/trace_options.h"
#include "harness/report/graphviz.h"
#include "harness/report/trace_graph.h"

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
  const auto protocol = protocol_of(backend_of(args));
  if (!args.has("validate")) return {protocol->trace_row(row), std::nullopt};
  RowCapture capture = protocol->capture_row(row);
  const EagerRun eager = protocol->eager_row(row);
  ValidationStatus status = protocol->validate(capture.trace, eager.outputs);
  return {std::move(capture.trace), std::move(status)};
}

void draw_row(const Args& args, const RosterRow& row, const TracedRow& traced) {
  const GraphOptions options{.title = row.id, .validation = traced.status ? &*traced.status : nullptr};
  draw_trace(traced.trace, args.required("graph"), options);
  std::cerr << "drew " << traced.trace.size() << " ops to " << terminal_line(args.required("graph")) << std::endl;
}

}  // namespace

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
  const std::unique_ptr<Reporter> reporter = document_reporter_of(args);
  const TracedRow traced = trace_row_of(args, row);
  const Trace& trace = traced.trace;
  if (args.values.contains("save")) {
    trace.save(args.required("save"), !args.has("no-payloads"));
    std::cerr << "saved " << trace.size() << " ops to " << terminal_line(args.required("save")) << std::endl;
  }
  if (args.values.contains("graph")) draw_row(args, row, traced);
  reporter->trace(trace, traced.status ? &*traced.status : nullptr);
  return !traced.status || traced.status->passed() ? kExitPassed : kExitFailed;
}

}  // namespace tl::cli
