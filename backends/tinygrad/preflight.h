// Refusals decided from the request alone, before tinygrad is touched: options, capability
// requests, the installed version, and the arguments.
#pragma once

#include <pybind11/pybind11.h>

#include "harness/model/trace_options.h"

namespace tl::tinygrad {

// Throws BackendUnsupportedError for the first option or capability request the backend refuses.
void refuse_unsupported_options(const TraceOptions& options);

// Throws BackendUnsupportedError(backend_version_unsupported) when `installed` is out of range.
void refuse_unsupported_version(const std::string& installed);

// Throws BackendUnsupportedError(tinygrad_input_required) when no argument is a tinygrad Tensor.
void refuse_without_tensor_input(const pybind11::tuple& args, const pybind11::object& tensor_type);

}  // namespace tl::tinygrad
