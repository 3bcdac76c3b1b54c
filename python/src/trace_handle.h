// What Python holds of a trace. A Trace handle points at an immutable snapshot; derive_grads makes a
// new snapshot rather than writing into the old one, so an array already handed out by
// Payload.numpy() (a zero-copy view that keeps its snapshot alive) never sees its bytes move.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "harness/model/trace.h"

namespace tl::python {

struct TraceHandle {
  std::shared_ptr<const Trace> snapshot;
};

// One op of a trace: reads the handle's current snapshot, so grads derived later show up.
struct OpView {
  std::shared_ptr<TraceHandle> trace;
  std::size_t index = 0;
  const Op& op() const { return trace->snapshot->ops.at(index); }
};

struct ParentView {
  OpView op;
  std::size_t position = 0;
};

// A payload inside one snapshot (an op's out or grad), kept alive by it.
struct PayloadView {
  std::shared_ptr<const Trace> snapshot;
  const Payload* payload = nullptr;
};

// A payload's raw bytes through the buffer protocol (1-D, read-only), keeping its snapshot alive:
// what numpy.frombuffer wraps without copying.
struct PayloadBytes {
  PayloadView view;
};

// The payload's values as a numpy array: a read-only zero-copy view for every dtype numpy has;
// bfloat16 (numpy has none) widened to a float32 copy, exactly as tinygrad's Tensor.numpy() does.
pybind11::object payload_numpy(const PayloadView& view);

// The op at `key`: an index (negative counts from the end) or a label. IndexError / KeyError.
OpView op_at(const std::shared_ptr<TraceHandle>& trace, const pybind11::handle& key);

// Ground-truth outputs (a list or tuple of framework tensors or arrays) as payloads, read by the
// trace's backend. An audit-only trace refuses (live_payloads_required) before any is read.
std::vector<Payload> ground_truth(const Trace& trace, const pybind11::handle& outputs);

}  // namespace tl::python
