#include "harness/judge/structure_phase.h"

#include "harness/judge/decisions.h"

namespace tl {
namespace {

using Phase = ValidationPhase;
using Verdict = DecisionVerdict;

std::string parents_string(const std::vector<ParentRef>& parents) {
  std::string text;
  for (const ParentRef& parent : parents)
    text += (text.empty() ? "" : ", ") + std::to_string(parent.op) + "@" + std::to_string(parent.position);
  return "[" + text + "]";
}

// One op per captured node: when the counts differ, names the first op out of place.
bool same_op_count(const Trace& trace, const std::vector<CapturedNode>& graph, ValidationStatus& status) {
  if (trace.ops.size() == graph.size()) return true;
  std::size_t first = 0;
  while (first < trace.ops.size() && first < graph.size() && trace.ops[first].index == first &&
         trace.ops[first].framework_op == graph[first].framework_op) {
    ++first;
  }
  const Op missing{.index = first,
                   .label = first < graph.size() ? "(a " + graph[first].framework_op + " in the capture)" : "(past the capture)"};
  decide(status, missing, Phase::Structure, Verdict::Fail,
         "is missing from the trace or out of place: the trace has " + std::to_string(trace.ops.size()) +
             " ops, the capture recorded " + std::to_string(graph.size()));
  return false;
}

}  // namespace

bool structure_phase(const Trace& trace, const std::vector<CapturedNode>& graph, ValidationStatus& status) {
  if (!same_op_count(trace, graph, status)) return false;
  for (std::size_t i = 0; i < trace.ops.size(); ++i) {
    const Op& op = trace.ops[i];
    const CapturedNode& node = graph[i];
    if (op.index != i)
      decide(status, op, Phase::Structure, Verdict::Fail,
             "has index " + std::to_string(op.index) + " at position " + std::to_string(i));
    if (op.framework_op != node.framework_op)
      decide(status, op, Phase::Structure, Verdict::Fail,
             "is " + op.framework_op + " but the capture recorded " + node.framework_op);
    // A computed op has exactly the captured graph's parent edges; inputs and constants have none.
    const std::vector<ParentRef> expected =
        op.kind == OpKind::Compute || op.kind == OpKind::View ? node.parents : std::vector<ParentRef>{};
    if (op.parents != expected) {
      decide(status, op, Phase::Structure, Verdict::Fail,
             "has parents " + parents_string(op.parents) + " but the captured graph has " + parents_string(expected));
    }
    for (const ParentRef& parent : op.parents) {
      if (parent.op >= op.index)
        decide(status, op, Phase::Structure, Verdict::Fail, "parent " + std::to_string(parent.op) + " does not precede it");
    }
  }
  return true;
}

}  // namespace tl
