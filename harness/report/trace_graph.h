// A trace as a Graphviz picture (DOT text): ops as nodes filled by kind, parent edges labelled by
// argument position, outputs marked, and, given a validation, ops outlined by their decisions with
// the first failure marked. Backend-neutral: it reads only the trace model.
#pragma once

#include <cstddef>
#include <string>

#include "harness/model/trace.h"
#include "harness/model/validation.h"
#include "harness/report/graph_runs.h"

namespace tl {

struct GraphOptions {
  std::string title{};                               // shown at the top, e.g. the row id
  const ValidationStatus* validation = nullptr;      // when given, ops are outlined by their decisions
  std::size_t collapse_above = kGraphCollapseAbove;  // op count past which long runs become one node
};

// DOT text for `trace`. Each op is one node (op<index>) unless it is in a collapsed run, which is
// one node (run<first>_<last>) with tl_ops=<ops it stands for> and tl_edges=<parent references
// inside it>. Each parent reference is one edge, with a head label giving its argument position
// when the op has more than one parent; edges into or out of a run are merged per pair of nodes,
// with tl_refs=<references it stands for>. So, collapsed or not, the tl_ops of the nodes (1 where
// absent) add up to the op count and the tl_refs of the edges (1 where absent) plus the tl_edges of
// the runs to the parent references.
std::string trace_to_dot(const Trace& trace, const GraphOptions& options = {});

// The picture of `trace` at `path`, in the format its extension names (graphviz.h: write_graph).
void draw_trace(const Trace& trace, const std::string& path, const GraphOptions& options = {});

}  // namespace tl
