// Test helper: run Python setup code in the embedded (venv) interpreter and return its names.
#pragma once

#include <pybind11/embed.h>

#include <string>

#include "backends/tinygrad/runtime.h"
#include "harness/backend/python_runtime.h"

namespace tl::testing {

inline pybind11::dict python_scope(const std::string& code) {
  tinygrad::require_tinygrad();
  pybind11::dict scope;
  with_python_errors([&] { pybind11::exec(code, scope); });
  return scope;
}

}  // namespace tl::testing
