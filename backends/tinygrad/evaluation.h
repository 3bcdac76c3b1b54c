// One tinygrad evaluation of many UOps, without rewriting any user Tensor's graph, and the bridge
// from C++ payloads back to tinygrad buffers. Capture, replay and derived grads all use it.
#pragma once

#include <pybind11/pybind11.h>

#include <vector>

#include "backends/tinygrad/tinygrad_api.h"
#include "harness/payload.h"
#include "harness/trace.h"

namespace tl::tinygrad {

// Realizes every node in one schedule and one run, and copies each value into C++. Only the STOREs
// the evaluation ran (RNG counters) are applied to live tensors, so they do not run twice.
std::vector<Payload> evaluate_once(const TinygradApi& api, const std::vector<pybind11::object>& nodes, CaptureStats& stats);

// A realized tinygrad buffer UOp holding `payload`, shaped as it is.
pybind11::object buffer_from_payload(const TinygradApi& api, const Payload& payload);

}  // namespace tl::tinygrad
