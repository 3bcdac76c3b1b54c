// Builds a roster row's Python objects: seeded layers, closure tensors, inputs, and its forward.
#pragma once

#include <pybind11/pybind11.h>

#include "harness/roster/roster.h"

namespace tl::tinygrad {

namespace py = pybind11;

struct RowFixture {
  py::object forward;  // a Python function over the inputs; tracebacks cite the roster file:line
  py::tuple inputs;
  py::object again;  // the row's `again:` as such a function, or None
};

// Seeds tinygrad's RNG (when the row has a seed) and builds everything afresh.
RowFixture build_row(const RosterRow& row);

}  // namespace tl::tinygrad
