// The parts of the _core extension module, each binding one area of the core (module.cpp calls them
// in order: errors first, since the others' functions raise them).
#pragma once

#include <pybind11/pybind11.h>

namespace tl::python {

void bind_errors(pybind11::module_& module);    // C++ errors -> tlconform.errors classes
void bind_trace(pybind11::module_& module);     // Trace, Op, Payload, ValidationStatus, trace(), load()
void bind_backends(pybind11::module_& module);  // backend specs, protocols, capabilities, the refusal registry
void bind_report(pybind11::module_& module);    // doctor rows

}  // namespace tl::python
