// What a validation said about each op of a trace, folded from its per-phase decisions: the form a
// picture (or any per-op view) needs.
#pragma once

#include <string>
#include <vector>

#include "harness/model/trace.h"
#include "harness/model/validation.h"

namespace tl {

struct OpVerdict {
  bool decided = false;                             // some decision names this op
  DecisionVerdict verdict = DecisionVerdict::Pass;  // the worst: fail, then unverified, then pass
  bool first_failure = false;                       // the op of the first failing decision (the status message's)
  std::string first_failure_phase{};
  std::vector<std::string> notes{};  // "phase verdict: reason" for each decision that is not a pass
};

// How bad a verdict is, for folding: pass 0, unverified 1, fail 2.
int verdict_severity(DecisionVerdict verdict);

// One entry per op of `trace`. A decision is about an op when its index and label both match: a
// structure failure about an op the trace lacks names no op here (the status message still says it).
std::vector<OpVerdict> op_verdicts(const Trace& trace, const ValidationStatus& status);

}  // namespace tl
