#include "harness/python_runtime.h"

#include <pybind11/embed.h>

#include <cstdlib>
#include <filesystem>
#include <memory>

#include "harness/errors.h"

namespace py = pybind11;

namespace tl {
namespace {

// Gathers facts inside the interpreter; returned as plain strings so nothing Python is kept.
constexpr const char* kProbe = R"PY(
import importlib.metadata, os, sys
def _tl_probe():
    info = {"python_version": sys.version.split()[0], "sys_prefix": sys.prefix,
            "tinygrad_version": "", "tinygrad_path": "", "device": "", "problem": ""}
    try:
        info["tinygrad_version"] = importlib.metadata.version("tinygrad")
    except importlib.metadata.PackageNotFoundError:
        info["problem"] = "tinygrad is not installed in the venv"
        return info
    try:
        import tinygrad
        from tinygrad import Device
        info["tinygrad_path"] = os.path.dirname(os.path.realpath(tinygrad.__file__))
        info["device"] = Device.DEFAULT
    except Exception as error:
        info["problem"] = f"import tinygrad failed: {type(error).__name__}: {error}"
        return info
    prefix = os.path.realpath(sys.prefix)
    if os.path.commonpath([prefix, info["tinygrad_path"]]) != prefix:
        info["problem"] = f"tinygrad was imported from {info['tinygrad_path']}, outside the venv {prefix}"
    return info
)PY";

std::unique_ptr<py::scoped_interpreter>& interpreter() {
  static std::unique_ptr<py::scoped_interpreter> instance;
  return instance;
}

void start_interpreter(const std::string& venv, RuntimeInfo& info) {
  const std::filesystem::path executable = std::filesystem::path(venv) / "bin" / "python";
  if (!std::filesystem::exists(executable)) {
    throw EnvironmentError("no venv at " + venv + " (missing " + executable.string() +
                           "): run ci/bootstrap.sh, or point TL_VENV at a venv with tinygrad");
  }
  // tinygrad reads DEV once, at import: decide it before the interpreter exists.
  info.device_set_by_user = std::getenv("DEV") != nullptr;
  if (!info.device_set_by_user) setenv("DEV", "PYTHON", 1);

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

std::string configured_venv() {
  if (const char* override_venv = std::getenv("TL_VENV"); override_venv != nullptr && *override_venv != 0) {
    return override_venv;
  }
  return TL_DEFAULT_VENV;
}

const RuntimeInfo& python_runtime() {
  static RuntimeInfo info;
  if (interpreter()) return info;
  info.venv = configured_venv();
  start_interpreter(info.venv, info);
  with_python_errors([&] {
    py::dict scope;
    py::exec(kProbe, scope);
    py::dict found = scope["_tl_probe"]();
    info.python_version = found["python_version"].cast<std::string>();
    info.sys_prefix = found["sys_prefix"].cast<std::string>();
    info.tinygrad_version = found["tinygrad_version"].cast<std::string>();
    info.tinygrad_path = found["tinygrad_path"].cast<std::string>();
    info.device = found["device"].cast<std::string>();
    info.tinygrad_problem = found["problem"].cast<std::string>();
  });
  const auto prefix = std::filesystem::weakly_canonical(info.sys_prefix);
  if (prefix != std::filesystem::weakly_canonical(info.venv)) {
    throw EnvironmentError("the embedded Python runs from " + prefix.string() + ", not the venv " + info.venv + ": is " +
                           info.venv + " a venv made by ci/bootstrap.sh?");
  }
  return info;
}

const RuntimeInfo& require_tinygrad() {
  const RuntimeInfo& info = python_runtime();
  if (!info.tinygrad_problem.empty()) {
    throw EnvironmentError(info.tinygrad_problem + " (venv " + info.venv +
                           "): run ci/bootstrap.sh, or install tinygrad into that venv");
  }
  return info;
}

void with_python_errors(const std::function<void()>& body) {
  try {
    body();
  } catch (py::error_already_set& error) {
    std::string type = error.type() ? py::str(error.type().attr("__name__")).cast<std::string>() : "Error";
    std::string message = py::str(error.value()).cast<std::string>();
    std::string traceback;
    try {
      py::object format = py::module_::import("traceback").attr("format_exception");
      for (py::handle line : format(error.type(), error.value(), error.trace())) traceback += py::str(line).cast<std::string>();
    } catch (py::error_already_set&) {
      traceback = "(traceback unavailable)";
    }
    throw PythonError(std::move(type), std::move(message), std::move(traceback));
  }
}

}  // namespace tl
