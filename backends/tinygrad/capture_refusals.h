// The refusals a capture decides from the forward's result and its UOp graph, after the forward
// returns and before the one evaluation runs anything: no silent holes, nothing the machine cannot
// hold. (Refusals decided from the request alone are in preflight.h, those at an in-forward call in
// guards.h.)
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "backends/tinygrad/tinygrad_api.h"
#include "harness/model/trace.h"

namespace tl::tinygrad {

// The forward's outputs: a Tensor, or a flat tuple/list whose Tensors are the outputs (other items,
// such as Python numbers, are not ops). A Tensor nested deeper would be a silent hole: refused
// (tensor_output_required), as is a result holding no Tensor.
std::vector<py::object> output_tensors(const TinygradApi& api, const py::object& result);

// Called by the walk on each node it expands. What a STORE or a kernel CALL writes is computed by
// void nodes the walk skips (@function calls are inlined before the walk, so a FUNCTION left here
// is one that writes too): buffer_write_unsupported. Only a write into the AFTER's own buffer is
// recorded, as one op over (buffer, value), and only when that buffer is not an input's
// (`input_positions`: input UOp -> argument position): the evaluation would write into the caller's
// tensor (input_mutation_unsupported).
void refuse_buffer_writes(const py::handle& uop, const py::dict& input_positions);

// A read of a buffer as an earlier write left it, after a later write into it (a write-after-read
// hazard tinygrad 0.13 resolves for the later value): buffer_write_unsupported, naming the reader.
void refuse_stale_reads(const std::vector<py::object>& roots);

// A forward can build a lazy tensor far larger than memory; refuse (payload_too_large) before the
// evaluation allocates.
void refuse_oversized_payloads(const Trace& trace);

// A constant whose data lives on a device the evaluation cannot read from (a DISK file that is
// gone, ...) is refused (constant_unrealizable) naming the op. `nodes[i]` is op i's UOp.
void refuse_unrealizable_constants(const std::vector<py::object>& nodes, const Trace& trace, const std::string& device);

}  // namespace tl::tinygrad
