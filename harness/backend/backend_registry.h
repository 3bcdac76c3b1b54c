// The backends this process knows, by name. A backend registers its spec from its own source file
// (a static `const bool registered = tl::backends::register_backend(...)`), so adding a backend is
// adding files, and the harness never names one. Its refusal codes join the shared registry then.
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <string_view>
#include <vector>

#include "harness/backend/backend_spec.h"
#include "harness/model/trace.h"
#include "harness/model/trace_options.h"

namespace tl {

namespace backends {

// Adds `spec`; a second backend of the same name throws std::logic_error. Returns true.
bool register_backend(BackendSpec spec);
// The spec of backend `name`; an unknown name throws BackendUnsupportedError(backend_unknown).
const BackendSpec& spec(std::string_view name);
std::vector<std::string> names();
// Every registered spec, in name order.
std::vector<const BackendSpec*> all();

}  // namespace backends

// Trace::load for a bundle of a backend this build has; a bundle of another backend is a
// TlspecError naming it. How a user's bundle is read (`tlconform inspect`, `tl.load`).
Trace load_trace(const std::string& directory);

// Traces fn(*args) with the backend options.backend names.
Trace trace(const pybind11::object& fn, const pybind11::tuple& args, const TraceOptions& options = {});
// The same, as `backend` unless the options name another one (a roster row may ask for a backend
// that must be refused): how the judge traces a row (harness/judge/row_runs.h).
Trace trace_as(std::string_view backend, const pybind11::object& fn, const pybind11::tuple& args, TraceOptions options);

}  // namespace tl
