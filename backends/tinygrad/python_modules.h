// The backend's own Python modules (backends/tinygrad/python/), embedded in the binary and installed
// into the running interpreter once each, when first asked for.
#pragma once

#include <pybind11/pybind11.h>

namespace tl::tinygrad {

// The module named `name` (e.g. "tl_evaluation"), installed with the modules before it in dependency
// order where this interpreter does not have them yet. Python owns them (sys.modules): nothing
// outlives the interpreter.
pybind11::module_ backend_module(const char* name);

}  // namespace tl::tinygrad
