// The backends this harness knows, by name, and the public entry point tl::trace.
#pragma once

#include <pybind11/pybind11.h>

#include <string_view>
#include <vector>

#include "harness/backend_spec.h"
#include "harness/trace.h"
#include "harness/trace_options.h"

namespace tl {

namespace backends {
// The spec of backend `name`; an unknown name throws BackendUnsupportedError(backend_unknown).
const BackendSpec& spec(std::string_view name);
std::vector<std::string> names();
}  // namespace backends

// Traces fn(*args) with the backend options.backend names.
Trace trace(const pybind11::object& fn, const pybind11::tuple& args, const TraceOptions& options = {});

}  // namespace tl
