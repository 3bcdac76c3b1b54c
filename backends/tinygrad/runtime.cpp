#include "backends/tinygrad/runtime.h"

#include <pybind11/embed.h>

#include <cstdlib>

#include "harness/backend/python_runtime.h"
#include "harness/model/errors.h"
#include "harness/model/version_range.h"

namespace tl::tinygrad {
namespace {

namespace py = pybind11;

bool& device_set_by_user() {
  static bool set = false;
  return set;
}

// Attached, tinygrad may be imported already: then its device was chosen by the host, not by us.
constexpr const char* kAttachedDevice = R"PY(
import os, sys
def _tl_prepare():
    chosen = "DEV" in os.environ or "tinygrad" in sys.modules
    if not chosen:
        os.environ["DEV"] = "PYTHON"
    return chosen
)PY";

constexpr const char* kImportProbe = R"PY(
import importlib.metadata, os, sys
def _tl_probe(embedded):
    info = {"version": "", "path": "", "device": "", "problem": ""}
    try:
        info["version"] = importlib.metadata.version("tinygrad")
    except importlib.metadata.PackageNotFoundError:
        info["problem"] = "tinygrad is not installed in the venv"
        return info
    try:
        import tinygrad
        from tinygrad import Device
        info["path"] = os.path.dirname(os.path.realpath(tinygrad.__file__))
        info["device"] = Device.DEFAULT
    except Exception as error:
        info["problem"] = f"import tinygrad failed: {type(error).__name__}: {error}"
        return info
    # Embedded, the venv is the one the build chose; attached, the host's sys.path decides.
    prefix = os.path.realpath(sys.prefix)
    if embedded and os.path.commonpath([prefix, info["path"]]) != prefix:
        info["problem"] = f"tinygrad was imported from {info['path']}, outside the venv {prefix}"
    return info
)PY";

}  // namespace

void prepare_interpreter() {
  // tinygrad reads DEV once, at import: decide it before the interpreter exists.
  device_set_by_user() = std::getenv("DEV") != nullptr;
  if (!device_set_by_user()) ::setenv("DEV", "PYTHON", 1);
}

void prepare_attached() {
  with_python_errors([] {
    py::dict scope;
    py::exec(kAttachedDevice, scope);
    device_set_by_user() = scope["_tl_prepare"]().cast<bool>();
  });
}

const TinygradRuntime& tinygrad_runtime() {
  static TinygradRuntime info;
  static bool probed = false;
  if (probed) return info;
  const bool embedded = !python_runtime().attached;
  with_python_errors([&] {
    py::dict scope;
    py::exec(kImportProbe, scope);
    const py::dict found = scope["_tl_probe"](embedded);
    info.version = found["version"].cast<std::string>();
    info.path = found["path"].cast<std::string>();
    info.device = found["device"].cast<std::string>();
    info.problem = found["problem"].cast<std::string>();
  });
  info.device_set_by_user = device_set_by_user();
  probed = true;
  return info;
}

const TinygradRuntime& require_tinygrad() {
  const TinygradRuntime& info = tinygrad_runtime();
  if (!info.problem.empty()) {
    if (python_runtime().attached) {
      throw EnvironmentError(info.problem + " (Python " + configured_venv() + "): pip install 'tlconform[tinygrad]'");
    }
    throw EnvironmentError(info.problem + " (venv " + configured_venv() +
                           "): run ci/bootstrap.sh, or install tinygrad into that venv");
  }
  return info;
}

FrameworkProbe probe(const BackendSpec& spec) {
  FrameworkProbe found;
  const TinygradRuntime* info = nullptr;
  try {
    info = &tinygrad_runtime();
  } catch (const std::exception& error) {
    found.rows.push_back({"tinygrad", DoctorStatus::Failed, error.what(), "run ci/bootstrap.sh"});
    return found;
  }
  found.version = info->version;
  const std::string& installed = info->version;
  if (installed.empty()) {
    found.rows.push_back({"tinygrad", DoctorStatus::Missing, info->problem,
                          "install tinygrad==" + spec.pinned_version + " into " + configured_venv() + " (pip install '" +
                              spec.install_extra + "' installs a tinygrad in range)"});
  } else if (!info->problem.empty()) {
    found.rows.push_back(
        {"tinygrad", DoctorStatus::Failed, installed + ": " + info->problem, "reinstall tinygrad into the venv"});
  } else if (!version_in_range(installed, spec.supported_range)) {
    found.rows.push_back(
        {"tinygrad", DoctorStatus::Failed,
         installed + " is out of range " + spec.supported_range + " (pinned " + spec.pinned_version + ")",
         "install a tinygrad inside " + spec.supported_range + "; captures refuse with backend_version_unsupported"});
  } else {
    const bool pinned = installed == spec.pinned_version;
    found.rows.push_back({"tinygrad", pinned ? DoctorStatus::Ok : DoctorStatus::Warning,
                          installed + " in range " + spec.supported_range +
                              (pinned ? ", the pinned version" : ", not the pinned " + spec.pinned_version) + " (" + info->path +
                              ")",
                          pinned ? "" : "the scorecard is proven on " + spec.pinned_version});
  }
  if (info->problem.empty()) {
    const bool python_device = info->device == "PYTHON";
    found.rows.push_back(
        {"device", python_device ? DoctorStatus::Ok : DoctorStatus::Warning,
         "DEV=" + info->device + (info->device_set_by_user ? " (set by the user)" : " (set by the harness)"),
         python_device ? "" : "live payloads, replay and derived grads need DEV=PYTHON; traces here are audit-only"});
  }
  return found;
}

}  // namespace tl::tinygrad
