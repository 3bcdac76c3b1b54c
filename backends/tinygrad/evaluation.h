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
// `cut_points` are more nodes the requested ones may read from a buffer instead of recomputing
// (e.g. the forward values a gradient graph reads): realized only where read, never copied out.
std::vector<Payload> evaluate_once(const TinygradApi& api, const std::vector<pybind11::object>& nodes, CaptureStats& stats,
                                   const std::vector<pybind11::object>& cut_points = {});

// What evaluate_once hands tinygrad's scheduler for `nodes`: a `contiguous` request per node, each
// reading its chained parents' buffers instead of recomputing them (evaluation.cpp says where it
// does not). Also the bench's floor: the same evaluation without the capture around it.
pybind11::list chained_requests(const pybind11::list& nodes);

// A realized tinygrad buffer UOp holding `payload`, shaped as it is.
pybind11::object buffer_from_payload(const TinygradApi& api, const Payload& payload);

}  // namespace tl::tinygrad
