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
#include "harness/model/movement.h"
#include "harness/model/payload.h"
#include "harness/model/trace.h"

namespace tl::tinygrad {

// The movement a view node applies to its parent, when its arguments are concrete integers (a
// symbolic shape leaves the view to tinygrad); nullopt for any other node.
std::optional<Movement> host_movement(const py::handle& uop);

// Every op's value: the walked nodes that are not host views and the roots (the forward's outputs)
// in one evaluation (evaluate_capture, counted in `stats`), then each host view from its parent's
// payload, in post-order; a root's payload is always eager's own (evaluation.h).
struct OpPayloads {
  std::vector<Payload> payloads;  // payloads[i] is op i's value
  pybind11::object live;          // what the live trace keeps for replays
};
OpPayloads op_payloads(const GraphWalker& walker, const Trace& trace, const std::vector<py::object>& roots, CaptureStats& stats);

}  // namespace tl::tinygrad
