// Derived gradients checked against central finite differences of the loss, re-evaluated by the
// backend from the trace's saved payloads.
#pragma once

#include <string>
#include <vector>

#include "harness/model/trace.h"

namespace tl {

struct GradientCheck {
  bool passed = false;
  std::size_t compared = 0;   // elements compared
  std::size_t skipped = 0;    // samples whose loss was inf or nan
  bool incomparable = false;  // nothing could be compared: no float op, or no finite loss (`detail` says which)
  std::string detail;         // the worst element, or why nothing could be compared
};

// Compares op.grad with (L(x+) - L(x-)) / (x+ - x-), x+ and x- being x + h and x - h as stored, at
// a few elements of every float input and of the last few float ops before the outputs. The step
// h and the tolerance follow the narrowest float dtype downstream of the op (see the .cpp). The
// trace must carry derived grads.
// `intermediates_only`: skip the inputs (their gradients were checked against autograd already).
// Per start op, the float dtype with the fewest fraction bits among it and every op that reads it,
// directly or not: every value a change of that op reaches, and every gradient flowing back to it, is
// rounded to that dtype.
std::vector<DType> narrowest_float_downstream(const Trace& trace, const std::vector<std::size_t>& starts);

GradientCheck check_grads_against_finite_differences(const Trace& trace, const GradOptions& options,
                                                     bool intermediates_only = false);
// The same comparison on exactly `ops` (a few elements of each): what the cells ask for the ops the
// framework's autograd could not answer for. Nothing comparable: not passed, `incomparable` set.
GradientCheck check_grads_against_finite_differences(const Trace& trace, const GradOptions& options,
                                                     const std::vector<std::size_t>& ops);

}  // namespace tl
