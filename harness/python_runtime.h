// The one embedded CPython of the process: created on first use from the project's venv, never
// restarted. Before it starts, every registered backend prepares the environment its framework
// reads at import. Nothing here holds a py::object beyond a call.
#pragma once

#include <functional>
#include <string>

namespace tl {

struct RuntimeInfo {
  std::string venv;            // the venv whose interpreter is embedded
  std::string python_version;  // e.g. "3.11.7"
  std::string sys_prefix;
};

// The venv the runtime will embed: $TL_VENV, else the one the build was configured with.
std::string configured_venv();

// Starts the interpreter once (after each backend's prepare_interpreter) and records what it is.
// Throws EnvironmentError when the venv cannot be embedded.
const RuntimeInfo& python_runtime();

// Runs `body` and turns a Python exception escaping it into tl::PythonError with the traceback.
void with_python_errors(const std::function<void()>& body);

}  // namespace tl
