// The one embedded CPython of the process: created on first use from the project's venv, never
// restarted. Nothing here holds a py::object beyond a call.
#pragma once

#include <functional>
#include <string>

namespace tl {

struct RuntimeInfo {
  std::string venv;            // the venv whose interpreter is embedded
  std::string python_version;  // e.g. "3.11.7"
  std::string sys_prefix;
  std::string tinygrad_version;     // from importlib.metadata; empty when not installed
  std::string tinygrad_path;        // where `import tinygrad` came from
  std::string device;               // tinygrad's Device.DEFAULT
  bool device_set_by_user = false;  // DEV was in the environment before start (honoured as is)
  std::string tinygrad_problem;     // why tinygrad cannot be used from this venv; empty when it can
};

// The venv the runtime will embed: $TL_VENV, else the one the build was configured with.
std::string configured_venv();

// Starts the interpreter once (setting DEV=PYTHON unless DEV is set), imports tinygrad and records
// what it found, including a problem with tinygrad, without throwing for it (the doctor reports it).
// Throws EnvironmentError when the venv itself cannot be embedded.
const RuntimeInfo& python_runtime();

// python_runtime(), plus EnvironmentError (with what to do) when tinygrad cannot be used.
const RuntimeInfo& require_tinygrad();

// Runs `body` and turns a Python exception escaping it into tl::PythonError with the traceback.
void with_python_errors(const std::function<void()>& body);

}  // namespace tl
