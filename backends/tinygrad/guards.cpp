#include "backends/tinygrad/guards.h"

#include "backends/tinygrad/python_modules.h"
#include "harness/backend/python_runtime.h"
#include "harness/model/refusal.h"

namespace py = pybind11;

namespace tl::tinygrad {
namespace {

// The guard functions (python/tl_guards.py): one module per interpreter, which Python owns.
py::dict guard_scope() { return backend_module("tl_guards").attr("__dict__"); }

}  // namespace

ForwardGuards::ForwardGuards(const py::tuple& inputs) {
  with_python_errors([&] {
    scope_ = guard_scope();
    mark_ = py::len(scope_["_patches"]);
    try {
      scope_["install"](inputs);
    } catch (...) {
      scope_["uninstall"](mark_);
      throw;
    }
  });
}

ForwardGuards::~ForwardGuards() {
  try {
    with_python_errors([&] { scope_["uninstall"](mark_); });
  } catch (...) {
    // A failed restore would leave tinygrad patched for the rest of the process: stop loudly.
    std::terminate();
  }
}

py::object ForwardGuards::call(const py::object& fn, const py::tuple& args) {
  py::object result;
  try {
    result = fn(*args);
  } catch (py::error_already_set& error) {
    if (!error.matches(scope_["TlRefusal"])) throw;
    const auto name = py::str(error.value().attr("code")).cast<std::string>();
    const auto message = py::str(error.value()).cast<std::string>();
    throw BackendUnsupportedError(*refusal_code_from_name(name), "tinygrad", message);
  }
  return result;
}

}  // namespace tl::tinygrad
