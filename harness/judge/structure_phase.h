// The structure phase of replay validation: the trace's ops are the nodes of the graph the capture
// walked (LiveGraph::captured_graph), the same op with the same parents at the same argument
// positions, parents before children.
#pragma once

#include <vector>

#include "harness/model/live_graph.h"
#include "harness/model/trace.h"
#include "harness/model/validation.h"

namespace tl {

// Records a structure decision for every op that differs from its captured node. Returns false when
// the op counts differ (one failure names the first op out of place, and nothing else can be held
// against the capture).
bool structure_phase(const Trace& trace, const std::vector<CapturedNode>& graph, ValidationStatus& status);

}  // namespace tl
