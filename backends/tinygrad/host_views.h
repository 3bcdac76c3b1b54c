// Every op's payload from the capture's one evaluation, with views derived on the host: tinygrad
// materializes each requested node as a scheduled kernel, so a movement op with concrete arguments
// is computed here from its parent's payload instead (replay validation checks it against
// tinygrad's own view).
#pragma once

#include <pybind11/pybind11.h>

#include <optional>
#include <vector>

#include "backends/tinygrad/graph_walk.h"
#include "backends/tinygrad/tinygrad_api.h"
#include "harness/movement.h"
#include "harness/payload.h"
#include "harness/trace.h"

namespace tl::tinygrad {

// The movement a view node applies to its parent, when its arguments are concrete integers (a
// symbolic shape leaves the view to tinygrad); nullopt for any other node.
std::optional<Movement> host_movement(const py::handle& uop);

// payloads[i] is op i's value: the walked nodes that are not host views in one evaluation
// (evaluate_once, counted in `stats`), then each host view from its parent's payload, in post-order.
std::vector<Payload> op_payloads(const TinygradApi& api, const GraphWalker& walker, const Trace& trace, CaptureStats& stats);

}  // namespace tl::tinygrad
