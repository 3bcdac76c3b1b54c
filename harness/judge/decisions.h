// A validation status's decisions and the settle rule: how per-op decisions become one state.
#pragma once

#include <string>

#include "harness/model/trace.h"
#include "harness/model/validation.h"

namespace tl {

// Records one decision on `op`; the first failure becomes the status message, naming the op.
void decide(ValidationStatus& status, const Op& op, ValidationPhase phase, DecisionVerdict verdict, const std::string& reason);

// Whether a decision failed so far.
bool has_failed(const ValidationStatus& status);

// The settle rule: failed on any failed decision; unverified ("no op was replayed") when the trace
// has ops that compute (compute or view ops) and none was replayed; passed otherwise, including a
// trace that computes nothing (its outputs are inputs or constants, as for `x.flip(())`): the ground
// truth then checked all there is.
void settle_state(const Trace& trace, ValidationStatus& status);

}  // namespace tl
