#include "harness/backend/python_runtime.h"

#include <pybind11/embed.h>

#include <cstdlib>
#include <filesystem>
#include <memory>

#include "harness/backend/backend_registry.h"
#include "harness/model/errors.h"

namespace py = pybind11;

namespace tl {
namespace {

// Gathers facts inside the interpreter; returned as plain strings so nothing Python is kept.
constexpr const char* kProbe = R"PY(
import sys
def _tl_probe():
    return {"python_version": sys.version.split()[0], "sys_prefix": sys.prefix}
)PY";

std::unique_ptr<py::scoped_interpreter>& interpreter() {
  static std::unique_ptr<py::scoped_interpreter> instance;
  return instance;
}

void start_interpreter(const std::string& venv) {
  const std::filesystem::path executable = std::filesystem::path(venv) / "bin" / "python";
  if (!std::filesystem::exists(executable)) {
    throw EnvironmentError("no venv at " + venv + " (missing " + executable.string() +
                           "): run ci/bootstrap.sh, or point TL_VENV at a venv with the backends' frameworks");
  }
  // Frameworks read their environment once, at import: each backend decides it before Python exists.
  for (const BackendSpec* spec : backends::all()) {
    if (spec->prepare_interpreter) spec->prepare_interpreter();
  }

  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  config.parse_argv = 0;
  // Setting the executable makes CPython read the venv's pyvenv.cfg, so sys.prefix is the venv.
  PyStatus status = PyConfig_SetBytesString(&config, &config.executable, executable.c_str());
  if (PyStatus_Exception(status)) {
    PyConfig_Clear(&config);
    throw EnvironmentError("cannot configure the embedded Python for " + executable.string());
  }
  interpreter() = std::make_unique<py::scoped_interpreter>(&config, 0, nullptr, false);
  PyConfig_Clear(&config);
}

}  // namespace

bool python_host_attached() { return !interpreter() && Py_IsInitialized() != 0; }

std::string configured_venv() {
  if (python_host_attached()) return python_runtime().venv;
  if (const char* override_venv = std::getenv("TL_VENV"); override_venv != nullptr && *override_venv != 0) {
    return override_venv;
  }
  return TL_DEFAULT_VENV;
}

const RuntimeInfo& python_runtime() {
  static RuntimeInfo info;
  if (interpreter() || info.attached) return info;
  const bool attach = python_host_attached();
  if (attach) {
    // The host configured its interpreter and owns it: only the backends' import-time choices remain.
    for (const BackendSpec* spec : backends::all()) {
      if (spec->prepare_attached) spec->prepare_attached();
    }
  } else {
    info.venv = configured_venv();
    start_interpreter(info.venv);
  }
  with_python_errors([&] {
    py::dict scope;
    py::exec(kProbe, scope);
    py::dict found = scope["_tl_probe"]();
    info.python_version = found["python_version"].cast<std::string>();
    info.sys_prefix = found["sys_prefix"].cast<std::string>();
  });
  if (attach) {
    info.venv = info.sys_prefix;
    info.attached = true;
    return info;
  }
  const auto prefix = std::filesystem::weakly_canonical(info.sys_prefix);
  if (prefix != std::filesystem::weakly_canonical(info.venv)) {
    throw EnvironmentError("the embedded Python runs from " + prefix.string() + ", not the venv " + info.venv + ": is " +
                           info.venv + " a venv made by ci/bootstrap.sh?");
  }
  return info;
}

namespace {

// str(value) as UTF-8 whatever it holds: a lone surrogate (which UTF-8 cannot carry) is written as
// its \udcxx escape instead of failing the conversion and losing the message.
std::string text_of(const py::handle& value) {
  const py::str text(value);
  PyObject* bytes = PyUnicode_AsEncodedString(text.ptr(), "utf-8", "backslashreplace");
  if (bytes == nullptr) throw py::error_already_set();
  std::string out(PyBytes_AS_STRING(bytes), static_cast<std::size_t>(PyBytes_GET_SIZE(bytes)));
  Py_DECREF(bytes);
  return out;
}

}  // namespace

void with_python_errors(const std::function<void()>& body) {
  try {
    body();
  } catch (py::error_already_set& error) {
    std::string type = error.type() ? text_of(error.type().attr("__name__")) : "Error";
    std::string message = text_of(error.value());
    // Notes (PEP 678) say where an error arose (a row builder names the layer and its roster line).
    if (py::hasattr(error.value(), "__notes__")) {
      for (py::handle note : error.value().attr("__notes__")) message += "\n" + text_of(note);
    }
    std::string traceback;
    try {
      py::object format = py::module_::import("traceback").attr("format_exception");
      // An error raised by C code before any Python frame ran (calling a non-callable) has no traceback.
      const py::object trace = error.trace() ? error.trace() : py::object(py::none());
      for (py::handle line : format(error.type(), error.value(), trace)) traceback += text_of(line);
    } catch (const std::exception&) {
      traceback = "(traceback unavailable)";
    }
    throw PythonError(std::move(type), message, std::move(traceback), std::make_shared<const py::error_already_set>(error));
  }
}

}  // namespace tl
