#include "harness/model/trace.h"

#include "harness/io/name_table.h"
#include "harness/model/live_graph.h"
#include "harness/model/refusal.h"

namespace tl {

namespace {

constexpr NameTable<OpKind, 4> kOpKindNames{{
    {OpKind::Input, "input"},
    {OpKind::Compute, "compute"},
    {OpKind::View, "view"},
    {OpKind::Constant, "constant"},
}};

}  // namespace

const char* to_string(OpKind kind) { return name_in(kOpKindNames, kind); }

std::optional<OpKind> op_kind_from_string(std::string_view name) { return value_in(kOpKindNames, name); }

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

namespace {

// Why a trace has no live payloads, in its own terms: loaded from a bundle (which keeps payloads,
// not the framework's graph) or captured on a device whose payloads are not live.
std::string audit_only_reason(const Trace& trace) {
  if (!trace.loaded_from.empty()) {
    return "this trace was loaded from the .tlspec bundle " + trace.loaded_from +
           ", which keeps its payloads but not the live graph (it was captured on " + trace.device + ")";
  }
  return "this trace was captured on device " + trace.device + ", where the backend's payloads are not live";
}

}  // namespace

void Trace::require_live_payloads(const std::string& needs) const {
  if (!live) throw BackendUnsupportedError(RefusalCode::LivePayloadsRequired, backend, needs + "; " + audit_only_reason(*this));
}

void Trace::derive_grads(const GradOptions& grad_options) {
  require_live_payloads("derived gradients need live payloads");
  if (!grad_options.intermediate_grads) throw std::invalid_argument("derive_grads needs GradOptions{.intermediate_grads = true}");
  live->derive_grads(*this, grad_options);
}

}  // namespace tl
