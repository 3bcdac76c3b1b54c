// backend="tinygrad": the tinygrad implementation of BackendProtocol, registered under its name
// with its spec (the requirement table of its page).
#pragma once

#include <pybind11/pybind11.h>

#include "harness/backend/backend_spec.h"
#include "harness/model/refusal.h"
#include "harness/model/trace.h"
#include "harness/model/trace_options.h"

namespace tl::tinygrad {

inline constexpr const char* kName = "tinygrad";

// The refusal code this backend adds to the shared registry.
inline constexpr RefusalCode kTinygradInputRequired{"tinygrad_input_required"};

// The registered spec; .protocol() makes a TinygradProtocol.
const BackendSpec& backend_spec();

// tl::trace with backend="tinygrad".
Trace trace(const pybind11::object& fn, const pybind11::tuple& args, TraceOptions options = {});

}  // namespace tl::tinygrad
