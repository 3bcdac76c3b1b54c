// The process's one CPython, in either of two hosts. In tlconform (CLI, cells, bench, tests) the
// runtime embeds it: created on first use from the project's venv, never restarted; before it starts,
// every registered backend prepares the environment its framework reads at import. Inside a Python
// process (the tlconform package) it attaches to the running interpreter and never starts,
// configures or finalizes another; each backend prepares what it still can (prepare_attached).
// Nothing here holds a py::object beyond a call.
#pragma once

#include <functional>
#include <string>

namespace tl {

struct RuntimeInfo {
  std::string venv;            // the venv whose interpreter is embedded; attached: the host's sys.prefix
  std::string python_version;  // e.g. "3.11.7"
  std::string sys_prefix;
  bool attached = false;  // true inside a Python process that loaded the tlconform package
};

// Whether this process runs inside a Python it did not start (the tlconform package's host).
bool python_host_attached();

// The venv the runtime will embed: $TL_VENV, else the one the build was configured with; when
// attached, the running Python's sys.prefix.
std::string configured_venv();

// Embedded: starts the interpreter once (after each backend's prepare_interpreter) and records what
// it is; throws EnvironmentError when the venv cannot be embedded. Attached: records the running
// interpreter once (after each backend's prepare_attached). Attached calls need the GIL.
const RuntimeInfo& python_runtime();

// Runs `body` and turns a Python exception escaping it into tl::PythonError with the traceback.
void with_python_errors(const std::function<void()>& body);

}  // namespace tl
