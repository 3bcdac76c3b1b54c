#include "backends/tinygrad/preflight.h"

#include "backends/tinygrad/protocol.h"
#include "harness/model/refusal.h"
#include "harness/model/version_range.h"

namespace tl::tinygrad {

namespace {
[[noreturn]] void refuse(RefusalCode code, const std::string& detail) { throw BackendUnsupportedError(code, "tinygrad", detail); }
}  // namespace

void refuse_unsupported_options(const TraceOptions& options) {
  if (!options.other.empty()) {
    const auto& [name, value] = *options.other.begin();
    refuse(RefusalCode::TraceOptionUnsupported,
           "trace option '" + name + "' (= " + value + ") is not taken by the tinygrad backend");
  }
  const std::string& mode = options.capture.module_identity_mode;
  if (mode != "auto" && mode != "metadata" && mode != "none") {
    refuse(RefusalCode::ModuleIdentityModeUnsupported,
           "module_identity_mode \"" + mode + "\" is not a mode of the tinygrad backend");
  }
  if (options.random_seed) refuse(RefusalCode::ExplicitSeedUnsupported, "random_seed=" + *options.random_seed + " was given");
  const CapabilityRequests& asked = options.requests;
  if (asked.backward_capture) refuse(RefusalCode::BackwardCaptureUnsupported, "backward capture was requested");
  if (asked.fastlog) refuse(RefusalCode::FastlogUnsupported, "fastlog was requested");
  if (asked.interventions) refuse(RefusalCode::InterventionsUnsupported, "an intervention was requested");
  if (asked.rng_replay) refuse(RefusalCode::RngReplayUnsupported, "RNG replay was requested");
  if (asked.streaming) refuse(RefusalCode::StreamingUnsupported, "streaming was requested");
  if (asked.structure_only) refuse(RefusalCode::StructureOnlyCaptureUnsupported, "a structure-only capture was requested");
}

void refuse_unsupported_version(const std::string& installed) {
  const BackendSpec& spec = backend_spec();
  if (!version_in_range(installed, spec.supported_range)) {
    refuse(RefusalCode::BackendVersionUnsupported, "tinygrad " + installed + " is installed; the backend supports " +
                                                       spec.supported_range + " (pinned " + spec.pinned_version + ")");
  }
}

void refuse_without_tensor_input(const pybind11::tuple& args, const pybind11::object& tensor_type) {
  for (pybind11::handle arg : args) {
    if (pybind11::isinstance(arg, tensor_type)) return;
  }
  refuse(kTinygradInputRequired, "none of the " + std::to_string(args.size()) + " positional argument(s) is a tinygrad Tensor");
}

}  // namespace tl::tinygrad
