#include "backends/tinygrad/runtime.h"

#include "backends/tinygrad/python_modules.h"

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

}  // namespace

void prepare_interpreter() {
  // tinygrad reads DEV once, at import: decide it before the interpreter exists.
  device_set_by_user() = std::getenv("DEV") != nullptr;
  if (!device_set_by_user()) ::setenv("DEV", "PYTHON", 1);
}

void prepare_attached() {
  with_python_errors([] {
    // Attached, tinygrad may be imported already: then its device was chosen by the host, not by us.
    device_set_by_user() = backend_module("tl_runtime").attr("prepare_device")().cast<bool>();
  });
}

const TinygradRuntime& tinygrad_runtime() {
  static TinygradRuntime info;
  static bool probed = false;
  if (probed) return info;
  const bool embedded = !python_runtime().attached;
  with_python_errors([&] {
    const py::dict found = backend_module("tl_runtime").attr("probe")(embedded);
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
