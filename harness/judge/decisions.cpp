#include "harness/judge/decisions.h"

#include <algorithm>

namespace tl {

void decide(ValidationStatus& status, const Op& op, ValidationPhase phase, DecisionVerdict verdict, const std::string& reason) {
  status.decisions.push_back({.op = op.index, .label = op.label, .phase = phase, .verdict = verdict, .reason = reason});
  if (verdict == DecisionVerdict::Fail && status.message.empty()) {
    status.message = "op " + op.label + " (index " + std::to_string(op.index) + ") failed " + to_string(phase) + ": " + reason;
  }
}

bool has_failed(const ValidationStatus& status) {
  return std::any_of(status.decisions.begin(), status.decisions.end(),
                     [](const Decision& decision) { return decision.verdict == DecisionVerdict::Fail; });
}

void settle_state(const Trace& trace, ValidationStatus& status) {
  const bool computes = std::any_of(trace.ops.begin(), trace.ops.end(),
                                    [](const Op& op) { return op.kind == OpKind::Compute || op.kind == OpKind::View; });
  if (has_failed(status)) {
    status.state = ValidationState::Failed;
  } else if (status.replayed == 0 && computes) {
    status.state = ValidationState::Unverified;
    status.message = "no op was replayed";
  } else {
    status.state = ValidationState::Passed;
  }
}

}  // namespace tl
