// Replay validation of a live trace: the phases run in order, and a failing phase stops the later
// ones:
//   structure     the trace's ops are the captured graph's nodes (structure_phase.h);
//   ground truth  the caller's outputs equal the trace's output payloads (compare: exact);
//   replay        each compute and view op rebuilt as the capture computed it, over fresh copies of
//                 the saved payloads it read, equals its saved payload (an op whose payload is
//                 eager's: over its parents' payloads, or else as eager computed it);
//   perturbation  each parent of a compute op replaced by tried values (perturbation.h): verified
//                 when the op's first elements change, unverified with a reason when no try does;
// then the settle rule (decisions.h). The framework only evaluates the jobs (replay_rounds.h); what
// is compared with what, and every decision, is here, the same for every backend.
#pragma once

#include <vector>

#include "harness/model/payload.h"
#include "harness/model/trace.h"
#include "harness/model/validation.h"

namespace tl {

// The status against the given ground-truth outputs. An audit-only trace refuses with
// live_payloads_required before anything runs.
ValidationStatus validate(const Trace& trace, const std::vector<Payload>& outputs);

// True only when validate(trace, outputs).state is passed.
bool validate_forward_pass(const Trace& trace, const std::vector<Payload>& outputs);

}  // namespace tl
