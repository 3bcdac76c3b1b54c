#include "harness/model/refusal.h"

namespace tl {

namespace {

std::vector<RefusalInfo>& registry() {
  using C = RefusalCode;
  static std::vector<RefusalInfo> entries{
      {C::BackendUnknown, "the named backend is not one this harness knows", "backend registry",
       "use a name tl::backends::names() lists (`tlconform spec --backend NAME` shows one)"},
      {C::BackendVersionUnsupported, "the installed framework is outside the backend's supported range", "supported range",
       "install a version inside the supported range (the pinned CI version is known to work)"},
      {C::ModuleIdentityModeUnsupported, "module_identity_mode is not a mode this backend has", "capture options",
       "use module_identity_mode \"auto\", \"metadata\" or \"none\""},
      {C::BackwardCaptureUnsupported, "capturing the backward pass", "backward_capture",
       "capture the forward and ask for derived gradients with GradOptions{intermediate_grads=true}"},
      {C::FastlogUnsupported, "fastlog (logging without payloads)", "fastlog", "run a full trace; every op carries its payload"},
      {C::InterventionsUnsupported, "editing activations during the forward", "can_intervene",
       "change the inputs or weights before capture and trace again"},
      {C::RngReplayUnsupported, "replaying random draws", "rng_replay",
       "draw random tensors before capture and pass them in as inputs"},
      {C::StreamingUnsupported, "streaming payloads out while the forward runs", "has_streaming",
       "trace whole, then read payloads from the trace or a saved .tlspec"},
      {C::StructureOnlyCaptureUnsupported, "capturing the graph without payloads", "structure_only_capture",
       "run a full trace; save it without payloads for an audit-only bundle"},
      {C::ConstantUnrealizable, "a constant of the graph cannot be realized by the framework", "no silent holes",
       "compute the constant outside the forward and pass it in as an input"},
      {C::RngStateInGraph, "random numbers drawn inside the traced callable (rand, dropout, ...)", "rng_replay / realize-once",
       "draw them before capture and pass them in"},
      {C::ExplicitSeedUnsupported, "random_seed= on a trace", "rng_replay",
       "seed the framework yourself (e.g. Tensor.manual_seed) before building the model"},
      {C::TraceOptionUnsupported, "a trace option this backend does not take", "trace options",
       "drop the option; the backend's page lists the trace options it takes"},
      {C::MidCaptureExecutionUnsupported,
       "the forward executed the framework (a realize, numpy, tolist, item, a JIT call) while being traced", "realize-once",
       "keep the forward lazy; read values from the trace's payloads afterwards"},
      {C::InputMutationUnsupported, "the forward writes into an input (assign, replace, setitem, +=)",
       "refuse before side effects", "compute a new tensor instead of writing into the input"},
      {C::TensorOutputRequired, "the callable returned no framework tensor, or nested tensors inside a returned container",
       "capture", "return a tensor, or a tuple or list of tensors"},
      {C::LivePayloadsRequired, "replay or derived gradients on an audit-only trace", "live payloads (the backend's device)",
       "capture in a process on the device the backend's page names (e.g. DEV=PYTHON) and use that trace, not a loaded "
       "one"},
      {C::BufferWriteUnsupported,
       "the forward writes where the capture cannot follow: a kernel CALL (a custom kernel), a STORE that is not into "
       "the AFTER's own buffer through a reshape, shrink, permute or flip (a KV cache write is recorded as one op), or "
       "a read of a buffer as one write left it after a later write into it (eager reads the later value)",
       "no silent holes",
       "write through a view of the buffer you read back, realize a read before a later write into its buffer, or do "
       "the write outside the captured forward"},
      {C::PayloadTooLarge, "the recorded ops' payloads need more memory than the machine has available",
       "refuse before side effects", "capture with smaller inputs, or split the forward"},
  };
  return entries;
}

}  // namespace

const std::vector<RefusalInfo>& refusal_registry() { return registry(); }

void register_refusal(const RefusalInfo& info) {
  if (refusal_code_from_name(info.name())) {
    throw std::logic_error("refusal code '" + std::string(info.name()) + "' is registered twice");
  }
  registry().push_back(info);
}

const RefusalInfo& refusal_info(RefusalCode code) {
  for (const RefusalInfo& info : registry()) {
    if (info.code == code) return info;
  }
  throw std::logic_error("refusal code '" + std::string(code.name()) + "' is not in the registry");
}

std::optional<RefusalCode> refusal_code_from_name(std::string_view name) {
  for (const RefusalInfo& info : registry()) {
    if (info.name() == name) return info.code;
  }
  return std::nullopt;
}

BackendUnsupportedError::BackendUnsupportedError(RefusalCode code, std::string backend, const std::string& detail, std::string op)
    : std::runtime_error(std::string(code.name()) + ": " + detail + (op.empty() ? "" : " (op " + op + ")") +
                         ". Instead: " + std::string(refusal_info(code).instead) + "."),
      code_(code),
      backend_(std::move(backend)),
      op_(std::move(op)) {}

}  // namespace tl
