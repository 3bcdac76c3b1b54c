#include "harness/judge/replay_validation.h"

#include <algorithm>

#include "harness/judge/decisions.h"
#include "harness/judge/perturbation.h"
#include "harness/judge/replay_rounds.h"
#include "harness/judge/structure_phase.h"
#include "harness/model/live_graph.h"

namespace tl {
namespace {

using Phase = ValidationPhase;
using Verdict = DecisionVerdict;

// Ground truth: the caller's outputs equal the trace's output payloads, bit for bit.
void ground_truth_phase(const Trace& trace, const std::vector<Payload>& outputs, ValidationStatus& status) {
  if (outputs.size() != trace.outputs.size()) {
    const Op whole{.label = "(the outputs)"};
    decide(status, trace.outputs.empty() ? whole : trace.ops[trace.outputs[0]], Phase::GroundTruth, Verdict::Fail,
           std::to_string(outputs.size()) + " outputs given, the trace has " + std::to_string(trace.outputs.size()));
    return;
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const Op& op = trace.ops[trace.outputs[i]];
    const Comparison comparison = compare(outputs[i], *op.out);
    decide(status, op, Phase::GroundTruth, comparison.equal ? Verdict::Pass : Verdict::Fail,
           comparison.equal ? "equals the given output" : comparison.message);
  }
}

// Replay: each op's rebuilt value against its saved payload.
void replay_phase(const Trace& trace, const std::vector<OpReplay>& replays, ValidationStatus& status) {
  for (const OpReplay& replay : replays) {
    const Op& op = trace.ops[replay.op];
    if (!replay.result.value) {
      decide(status, op, Phase::Replay, Verdict::Fail, "cannot rebuild the op from its parents: " + replay.result.error);
      continue;
    }
    const Comparison comparison = compare(*op.out, *replay.result.value);
    const std::string how = replay.as_eager ? "replayed as eager computed it (its whole graph over the saved payloads it reads; "
                                              "over its parents' it differs)"
                            : !replay.result.how.empty() ? replay.result.how
                                                         : "replayed from the saved payloads it reads";
    decide(status, op, Phase::Replay, comparison.equal ? Verdict::Pass : Verdict::Fail,
           comparison.equal ? how : "replay differs from the saved payload: " + comparison.message);
    ++status.replayed;
  }
}

// The first `n` elements of a payload, flattened: a limited replay holds only its first elements, and
// a reduction's local replay as many rows as reach its limit, so two of them agree on a prefix.
Payload first_elements(const Payload& payload, std::int64_t n) {
  Payload first = payload;
  first.shape = {n};
  first.bytes.resize(static_cast<std::size_t>(n) * payload.dtype.itemsize);
  return first;
}

Comparison on_common_prefix(const Payload& expected, const Payload& actual) {
  const std::int64_t n = std::min(expected.numel(), actual.numel());
  return compare(first_elements(expected, n), first_elements(actual, n));
}

// Perturbation: an edge fails when the first try's rebuild is not the framework's own evaluation of
// the op over the same payloads (so a rebuild that ignores, misplaces or mis-cuts the replacement
// fails, not only one that cannot be built); otherwise it is verified when a try changed the op's
// output, unverified (with why the op cannot depend on the parent there) when none did.
void perturbation_phase(const Trace& trace, const LiveGraph& live, const std::vector<EdgeReplay>& edges,
                        ValidationStatus& status) {
  for (const EdgeReplay& edge : edges) {
    const Op& op = trace.ops[edge.op];
    const Op& parent = trace.ops[edge.parent];
    if (!edge.plain.value) {
      decide(status, op, Phase::Perturbation, Verdict::Fail, "cannot rebuild the op over its parents: " + edge.plain.error);
    } else if (!edge.error.empty() || !edge.tried.value) {
      decide(status, op, Phase::Perturbation, Verdict::Fail,
             "cannot rebuild the op with " + parent.label + " replaced: " + edge.error);
    } else if (!edge.evaluated.value) {
      decide(status, op, Phase::Perturbation, Verdict::Fail,
             "cannot evaluate the op with " + parent.label + " replaced, as its own node: " + edge.evaluated.error);
    } else if (const Comparison truth = on_common_prefix(*edge.evaluated.value, *edge.tried.value); !truth.equal) {
      decide(status, op, Phase::Perturbation, Verdict::Fail,
             "with " + parent.label +
                 " replaced, the rebuilt op is not the framework's own evaluation of the op over "
                 "those payloads: " +
                 truth.message);
    } else if (edge.changed) {
      decide(status, op, Phase::Perturbation, Verdict::Pass, "replacing " + parent.label + " changes the output");
    } else {
      const std::string why = unverified_reason(op, parent, *edge.plain.value, live.unchanged_reason(trace, op, parent));
      decide(status, op, Phase::Perturbation, Verdict::Unverified,
             "replacing " + parent.label + " never changed the output: " + why);
    }
  }
}

}  // namespace

ValidationStatus validate(const Trace& trace, const std::vector<Payload>& outputs) {
  trace.require_live_payloads("replay needs live payloads");
  ValidationStatus status;
  const std::vector<CapturedNode> graph = trace.live->captured_graph(trace);
  if (!structure_phase(trace, graph, status)) {
    status.state = ValidationState::Failed;
    return status;
  }
  ground_truth_phase(trace, outputs, status);
  if (!has_failed(status)) {
    const ReplayRounds rounds = run_replay_rounds(trace, *trace.live, graph);
    if (!rounds.failure.empty()) {
      decide(status, Op{.label = "(replay evaluation)"}, Phase::Replay, Verdict::Fail, rounds.failure);
    } else {
      replay_phase(trace, rounds.replays, status);
      perturbation_phase(trace, *trace.live, rounds.edges, status);
    }
  }
  settle_state(trace, status);
  return status;
}

bool validate_forward_pass(const Trace& trace, const std::vector<Payload>& outputs) { return validate(trace, outputs).passed(); }

}  // namespace tl
