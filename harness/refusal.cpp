#include "harness/refusal.h"

namespace tl {

const std::vector<RefusalInfo>& refusal_registry() {
  using C = RefusalCode;
  static const std::vector<RefusalInfo> registry{
      {C::BackendUnknown, "backend_unknown", "the named backend is not one this harness knows", "backend registry",
       "use one of the names tl::backends::names() lists (\"tinygrad\")"},
      {C::BackendVersionUnsupported, "backend_version_unsupported",
       "the installed framework is outside the backend's supported range", "supported range",
       "install a version inside the supported range (the pinned CI version is known to work)"},
      {C::ModuleIdentityModeUnsupported, "module_identity_mode_unsupported",
       "module_identity_mode is not a mode this backend has", "capture options",
       "use module_identity_mode \"auto\", \"metadata\" or \"none\""},
      {C::BackwardCaptureUnsupported, "backward_capture_unsupported", "capturing the backward pass", "backward_capture",
       "capture the forward and ask for derived gradients with GradOptions{intermediate_grads=true}"},
      {C::FastlogUnsupported, "fastlog_unsupported", "fastlog (logging without payloads)", "fastlog",
       "run a full trace; every op carries its payload"},
      {C::InterventionsUnsupported, "interventions_unsupported", "editing activations during the forward", "can_intervene",
       "change the inputs or weights before capture and trace again"},
      {C::RngReplayUnsupported, "rng_replay_unsupported", "replaying random draws", "rng_replay",
       "draw random tensors before capture and pass them in as inputs"},
      {C::StreamingUnsupported, "streaming_unsupported", "streaming payloads out while the forward runs", "has_streaming",
       "trace whole, then read payloads from the trace or a saved .tlspec"},
      {C::StructureOnlyCaptureUnsupported, "structure_only_capture_unsupported", "capturing the graph without payloads",
       "structure_only_capture", "run a full trace; save it without payloads for an audit-only bundle"},
      {C::ConstantUnrealizable, "constant_unrealizable", "a constant of the graph cannot be realized by the framework",
       "no silent holes", "compute the constant outside the forward and pass it in as an input"},
      {C::RngStateInGraph, "rng_state_in_graph", "random numbers drawn inside the traced callable (rand, dropout, ...)",
       "rng_replay / realize-once", "draw them before capture and pass them in"},
      {C::ExplicitSeedUnsupported, "explicit_seed_unsupported", "random_seed= on a trace", "rng_replay",
       "seed the framework yourself (Tensor.manual_seed) before building the model"},
      {C::TraceOptionUnsupported, "trace_option_unsupported", "a trace option this backend does not take", "trace options",
       "drop the option; the tinygrad backend takes module_identity_mode and grad_options"},
      {C::MidCaptureExecutionUnsupported, "mid_capture_execution_unsupported",
       "the forward executed tinygrad (realize, numpy, tolist, item, TinyJit) while being traced", "realize-once",
       "keep the forward lazy; read values from the trace's payloads afterwards"},
      {C::InputMutationUnsupported, "input_mutation_unsupported",
       "the forward writes into an input (assign, replace, setitem, +=)", "refuse before side effects",
       "compute a new tensor instead of writing into the input"},
      {C::TensorOutputRequired, "tensor_output_required",
       "the callable returned no tinygrad Tensor, or nested Tensors inside a returned container", "capture",
       "return a Tensor, or a tuple or list of Tensors"},
      {C::TinygradInputRequired, "tinygrad_input_required", "no positional argument is a tinygrad Tensor", "capture",
       "pass at least one tinygrad Tensor positionally"},
      {C::LivePayloadsRequired, "live_payloads_required", "replay or derived gradients on an audit-only trace", "DEV=PYTHON",
       "capture in a process with DEV=PYTHON and use that trace, not a loaded or non-PYTHON one"},
      {C::BufferWriteUnsupported, "buffer_write_unsupported",
       "the forward writes where the capture cannot follow: a kernel CALL (a custom kernel), or a STORE that is not into "
       "the AFTER's own buffer through a reshape, shrink, permute or flip (a KV cache write is recorded as one op)",
       "no silent holes", "write through a view of the buffer you read back, or do the write outside the captured forward"},
      {C::PayloadTooLarge, "payload_too_large", "the recorded ops' payloads need more memory than the machine has available",
       "refuse before side effects", "capture with smaller inputs, or split the forward"},
  };
  return registry;
}

const RefusalInfo& refusal_info(RefusalCode code) { return refusal_registry().at(static_cast<std::size_t>(code)); }

std::optional<RefusalCode> refusal_code_from_name(std::string_view name) {
  for (const RefusalInfo& info : refusal_registry()) {
    if (info.name == name) return info.code;
  }
  return std::nullopt;
}

BackendUnsupportedError::BackendUnsupportedError(RefusalCode code, std::string backend, const std::string& detail, std::string op)
    : std::runtime_error(std::string(refusal_info(code).name) + ": " + detail + (op.empty() ? "" : " (op " + op + ")") +
                         ". Instead: " + std::string(refusal_info(code).instead) + "."),
      code_(code),
      backend_(std::move(backend)),
      op_(std::move(op)) {}

}  // namespace tl
