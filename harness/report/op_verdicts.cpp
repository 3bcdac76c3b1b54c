#include "harness/report/op_verdicts.h"

namespace tl {
int verdict_severity(DecisionVerdict verdict) {
  switch (verdict) {
    case DecisionVerdict::Pass:
      return 0;
    case DecisionVerdict::Unverified:
      return 1;
    case DecisionVerdict::Fail:
      return 3;
  }
  return 3;
}

std::vector<OpVerdict> op_verdicts(const Trace& trace, const ValidationStatus& status) {
  std::vector<OpVerdict> verdicts(trace.ops.size());
  bool failure_seen = false;
  for (const Decision& decision : status.decisions) {
    const bool names_an_op = decision.op < trace.ops.size() && trace.ops[decision.op].label == decision.label;
    const bool first_failure = decision.verdict == DecisionVerdict::Fail && !failure_seen;
    failure_seen |= decision.verdict == DecisionVerdict::Fail;
    if (!names_an_op) continue;
    OpVerdict& verdict = verdicts[decision.op];
    if (!verdict.decided || verdict_severity(decision.verdict) > verdict_severity(verdict.verdict))
      verdict.verdict = decision.verdict;
    verdict.decided = true;
    if (first_failure) {
      verdict.first_failure = true;
      verdict.first_failure_phase = to_string(decision.phase);
    }
    if (decision.verdict != DecisionVerdict::Pass) {
      verdict.notes.push_back(std::string(to_string(decision.phase)) + " " + to_string(decision.verdict) + ": " +
                              decision.reason);
    }
  }
  return verdicts;
}

}  // namespace tl
