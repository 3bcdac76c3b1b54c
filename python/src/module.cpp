// tlconform._core: the C++ core inside a Python process. Importing it attaches the runtime to this
// interpreter (harness/python_runtime.h): no interpreter is started and no framework imported, but
// each backend makes its import-time choice now, before the user's first framework import (the
// tinygrad backend: DEV=PYTHON unless DEV is set or tinygrad is imported already).
#include "harness/backend/python_runtime.h"
#include "python/src/bindings.h"

PYBIND11_MODULE(_core, module) {
  module.attr("__version__") = TL_HARNESS_VERSION;
  module.doc() = "The tlconform C++ core (capture, refusals, replay validation, derived grads, .tlspec, doctor).";
  tl::python::bind_errors(module);
  tl::python::bind_trace(module);
  tl::python::bind_backends(module);
  tl::python::bind_report(module);
  tl::python_runtime();
}
