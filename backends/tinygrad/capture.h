// backend="tinygrad": capture a lazy tinygrad forward from its UOp graph, with every payload from
// one evaluation after the forward returns.
#pragma once

#include <pybind11/pybind11.h>

#include "harness/model/trace.h"
#include "harness/model/trace_options.h"

namespace tl::tinygrad {

namespace py = pybind11;

// Calls fn(*args) once, lazily, then records every value-carrying node of the outputs' UOp graph
// and realizes all of them (constants, pre-existing lazy weights and outputs included) in a single
// tinygrad evaluation that leaves the user's tensors' graphs as they were.
Trace capture(const py::object& fn, const py::tuple& args, const TraceOptions& options);

}  // namespace tl::tinygrad
