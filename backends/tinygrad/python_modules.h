// The backend's own Python modules (backends/tinygrad/python/), embedded in the binary and installed
// into the running interpreter once, on first use.
#pragma once

#include <pybind11/pybind11.h>

namespace tl::tinygrad {

// The module named `name` (e.g. "tl_evaluation"), installing every embedded module first if this
// interpreter has none of them yet. Python owns them (sys.modules): nothing outlives the interpreter.
pybind11::module_ backend_module(const char* name);

}  // namespace tl::tinygrad
