// The tinygrad backend's "can and cannot" table (its page's table), each row tied to the cells that
// prove it. A row with no cell yet stays untested until one lands.
#include "backends/tinygrad/capabilities.h"

namespace tl::tinygrad {

std::vector<Capability> declared_capabilities() {
  return {
      {"has_validation_replay", true, true, "", "UOp replay plus parent perturbation on `DEV=PYTHON` payloads",
       {"capability_validation_replay"}},
      {"payload_materialization", true, true, "", "`array_payloads` via `.tlspec`; one realization per capture (realize-once)",
       {"capability_payload_materialization"}},
      {"intermediate_derived_grads", true, true, "", "opt-in through `GradOptions(intermediate_grads=True)`", {"capability_derived_grads"}},
      {"backward_capture", true, false, "backward_capture_unsupported", "", {"refuse_backward_capture"}},
      {"fastlog", true, false, "fastlog_unsupported", "", {"refuse_fastlog"}},
      {"can_intervene", true, false, "interventions_unsupported", "", {"refuse_interventions"}},
      {"rng_replay", true, false, "rng_replay_unsupported", "", {"refuse_rng_replay"}},
      {"has_streaming", true, false, "streaming_unsupported", "", {"refuse_streaming"}},
      {"structure_only_capture", true, false, "structure_only_capture_unsupported", "", {"refuse_structure_only"}},
      {"Closure constant with a readable buffer", false, true, "",
       "recorded as a parentless `buffer` op with payload (`tinygrad_constant_kind=\"closure\"`)", {"tutorial_mlp", "mlp_softmax"}},
      {"Literal producer (`Tensor.ones`, `Tensor.full`, scalar `const`)", false, true, "",
       "parentless op with payload (`tinygrad_constant_kind=\"literal\"`)", {"movement_broadcast", "tutorial_mlp"}},
      {"Closure constant built from a NumPy array (`Tensor(ndarray)`, not yet realized)", false, true, "",
       "realized in the capture's single evaluation; a value tinygrad cannot realize refuses `constant_unrealizable` naming the op",
       {"closure_ndarray"}},
      {"Random-init layers (`tinygrad.nn` default init)", false, true, "",
       "weights realized in the capture's single evaluation; values and RNG state equal one eager forward",
       {"linear_default_init", "conv2d_default_init", "layernorm_default_init"}},
      {"In-forward random numbers (`Tensor.rand`, dropout inside the traced callable)", false, false, "rng_state_in_graph", "",
       {"refuse_rand", "refuse_randn", "refuse_randint", "refuse_dropout_training", "refuse_manual_seed_in_forward"}},
      {"`random_seed=`", false, false, "explicit_seed_unsupported", "", {"refuse_random_seed"}},
      {"Trace options outside `module_identity_mode`, `grad_options`", false, false, "trace_option_unsupported", "",
       {"refuse_trace_option_layers_to_save"}},
      {"Invalid `module_identity_mode` (e.g. `\"nope\"`)", false, false, "module_identity_mode_unsupported", "",
       {"refuse_module_identity_mode_nope"}},
      {"Mid-capture `Tensor.realize()` or TinyJit execution", false, false, "mid_capture_execution_unsupported", "",
       {"refuse_realize", "refuse_numpy", "refuse_tolist", "refuse_item", "refuse_tinyjit"}},
      {"Input mutation (`Tensor.assign()`, `Tensor.replace()`, setitem on an input)", false, false, "input_mutation_unsupported", "",
       {"refuse_assign_input", "refuse_replace_input", "refuse_setitem_input", "refuse_inplace_add_input", "refuse_assign_through_view"}},
      {"A callable that returns no tinygrad Tensor", false, false, "tensor_output_required", "", {"refuse_float_output", "refuse_shape_output"}},
      {"No positional tinygrad Tensor input", false, false, "tinygrad_input_required", "", {"refuse_no_tensor_input"}},
      {"Replay validation or derived gradients on an audit-only trace", false, false, "live_payloads_required", "",
       {"refuse_validate_loaded_trace", "refuse_derive_grads_loaded_trace"}},
  };
}

}  // namespace tl::tinygrad
