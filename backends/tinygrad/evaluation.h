// The bridge between C++ payloads and the backend's Python evaluation (python/tl_evaluation.py):
// the capture's one evaluation, and payloads handed to Python and read back.
#pragma once

#include <pybind11/pybind11.h>

#include <optional>
#include <vector>

#include "backends/tinygrad/tinygrad_api.h"
#include "harness/model/payload.h"
#include "harness/model/trace.h"

namespace tl::tinygrad {

// What the capture's evaluation gives: a payload per requested node, one per root (the forward's
// outputs, from eager's own schedule), and what the live trace keeps for replays (tl_evaluation.Live).
struct CaptureEvaluation {
  std::vector<Payload> payloads;  // per requested node, in node order
  // per root: eager's value, or none for a view of what eager realized (the caller derives it)
  std::vector<std::optional<Payload>> root_payloads;
  pybind11::object live;
};

// Evaluates every requested node (`requested[i]`) of `nodes` and the roots in one tinygrad
// evaluation, each value as tinygrad gives that node realized on its own; re-points the live
// tensors as eager realize would (so the model afterwards is as one eager forward leaves it).
CaptureEvaluation evaluate_capture(const std::vector<pybind11::object>& nodes, const std::vector<bool>& requested,
                                   const std::vector<pybind11::object>& roots, CaptureStats& stats);

// A payload as Python reads it: (a read-only memoryview of its bytes, dtype name, shape). The view
// borrows `payload`, which must outlive it.
pybind11::tuple payload_view(const Payload& payload);

// Copies a value Python handed back (a tinygrad Buffer, bytes, or None for an empty tensor) into a
// payload of `dtype` and `shape`; `what` names it in errors. `free` deallocates the Buffer after.
Payload payload_from_value(const pybind11::handle& value, const DType& dtype, const std::vector<std::int64_t>& shape,
                           const std::string& what, bool free = false);

// A node's dtype and shape as a payload's (throws for a dtype payloads cannot carry).
Payload empty_payload_of(const pybind11::handle& node);

}  // namespace tl::tinygrad
