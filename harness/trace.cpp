#include "harness/trace.h"

#include <array>
#include <utility>

#include "harness/refusal.h"

namespace tl {

namespace {

constexpr std::array<std::pair<OpKind, const char*>, 4> kOpKindNames{{
    {OpKind::Input, "input"},
    {OpKind::Compute, "compute"},
    {OpKind::View, "view"},
    {OpKind::Constant, "constant"},
}};

}  // namespace

const char* to_string(OpKind kind) {
  for (const auto& [value, name] : kOpKindNames)
    if (value == kind) return name;
  return "?";
}

std::optional<OpKind> op_kind_from_string(std::string_view name) {
  for (const auto& [value, text] : kOpKindNames)
    if (name == text) return value;
  return std::nullopt;
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
