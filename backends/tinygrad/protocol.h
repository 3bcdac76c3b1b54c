// backend="tinygrad": the tinygrad backend's spec (the requirement table of its page, what it adds
// to the shared vocabularies, its runtime policy and its engine), registered under its name.
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

// The registered spec; .engine() makes its engine (engine.h).
const BackendSpec& backend_spec();

// tl::trace with backend="tinygrad".
Trace trace(const pybind11::object& fn, const pybind11::tuple& args, TraceOptions options = {});

}  // namespace tl::tinygrad
