#include "harness/model/trace_compare.h"

namespace tl {
namespace {

bool same(const std::optional<Payload>& a, const std::optional<Payload>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || (a->dtype == b->dtype && a->shape == b->shape && a->bytes == b->bytes);
}

}  // namespace

std::optional<std::string> first_difference(const Trace& expected, const Trace& actual) {
  if (expected.ops.size() != actual.ops.size()) {
    return std::to_string(actual.ops.size()) + " ops, expected " + std::to_string(expected.ops.size());
  }
  if (expected.outputs != actual.outputs) return std::string("output ops differ");
  if (expected.inputs != actual.inputs) return std::string("input ops differ");
  if (expected.backend != actual.backend || expected.framework_version != actual.framework_version ||
      expected.device != actual.device) {
    return std::string("backend, framework version or device differ");
  }
  // The options a .tlspec keeps (the refused ones never reach a trace).
  const TraceOptions& want = expected.options;
  const TraceOptions& got = actual.options;
  if (want.backend != got.backend || want.capture.module_identity_mode != got.capture.module_identity_mode ||
      want.grad_options.intermediate_grads != got.grad_options.intermediate_grads ||
      want.grad_options.loss != got.grad_options.loss) {
    return std::string("capture options (backend, module_identity_mode, grad_options) differ");
  }
  if (expected.stats.evaluations != actual.stats.evaluations || expected.stats.kernels != actual.stats.kernels)
    return std::string("capture stats (evaluations, kernels) differ");
  for (std::size_t i = 0; i < expected.ops.size(); ++i) {
    const Op& a = expected.ops[i];
    const Op& b = actual.ops[i];
    const std::string where = "op " + a.label + " (index " + std::to_string(i) + "): ";
    if (a.label != b.label) return where + "label " + b.label;
    if (a.framework_op != b.framework_op || a.kind != b.kind || a.constant_kind != b.constant_kind)
      return where + "op, kind or constant kind differ";
    if (a.dtype != b.dtype || a.shape != b.shape) return where + "dtype or shape differ";
    if (a.parents != b.parents) return where + "parents differ";
    if (a.module != b.module || a.call_site != b.call_site) return where + "provenance differs";
    if (!same(a.out, b.out)) return where + "payload differs";
    if (!same(a.grad, b.grad)) return where + "gradient differs";
  }
  return std::nullopt;
}

}  // namespace tl
