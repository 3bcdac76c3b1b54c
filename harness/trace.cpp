#include "harness/trace.h"

#include "harness/refusal.h"

namespace tl {

const char* to_string(OpKind kind) {
  switch (kind) {
    case OpKind::Input:
      return "input";
    case OpKind::Compute:
      return "compute";
    case OpKind::View:
      return "view";
    case OpKind::Constant:
      return "constant";
  }
  return "?";
}

std::vector<const Op*> Trace::output_ops() const {
  std::vector<const Op*> result;
  for (std::size_t index : outputs) result.push_back(&ops.at(index));
  return result;
}

std::vector<const Op*> Trace::input_ops() const {
  std::vector<const Op*> result;
  for (std::size_t index : inputs) result.push_back(&ops.at(index));
  return result;
}

ValidationStatus Trace::validate(const std::vector<Payload>& outputs) const {
  if (!live) {
    throw BackendUnsupportedError(RefusalCode::LivePayloadsRequired, backend,
                                  "this trace is audit-only (loaded from .tlspec, or captured on " + device + ")");
  }
  return live->validate(*this, outputs);
}

void Trace::derive_grads(const GradOptions& grad_options) {
  if (!live) {
    throw BackendUnsupportedError(RefusalCode::LivePayloadsRequired, backend,
                                  "derived gradients need live payloads; this trace is audit-only");
  }
  if (!grad_options.intermediate_grads) throw std::invalid_argument("derive_grads needs GradOptions{.intermediate_grads = true}");
  live->derive_grads(*this, grad_options);
}

}  // namespace tl
