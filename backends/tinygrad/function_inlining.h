// tinygrad @function calls inlined before the capture's walk, so every op of a body is in view.
#pragma once

#include <pybind11/pybind11.h>

#include <vector>

#include "backends/tinygrad/tinygrad_api.h"

namespace tl::tinygrad {

// A tinygrad @function call is GETTUPLE(FUNCTION(TUPLE(body over PARAMs), args...)): the walk would
// see one opaque node. Inlining the body (PARAM i -> args[i]) computes the same values with every op
// in view. Returns the roots over the inlined graph, in the same order.
std::vector<py::object> inline_function_calls(const TinygradApi& api, std::vector<py::object> roots);

}  // namespace tl::tinygrad
