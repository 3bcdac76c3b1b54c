// Parent perturbation in replay validation: the values tried in place of a parent's payload, and why
// an op may not depend on a parent at the values it saw (an edge left unverified, never a failure:
// the structure and replay phases decide failures).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/model/payload.h"
#include "harness/model/trace.h"

namespace tl {

// The payloads tried in place of a parent's, each of its dtype and shape, so that an op that depends
// on the parent sees other values whatever the range: every value shifted (floats by 1 + |v|/2,
// integers by one, bools flipped), every value negated and moved off zero (floats -v-1, integers
// -v-3 or v+3 unsigned, bools all true), and replaced by a spread of values over a wide range
// (floats in [-7, 3] and tiny ones, integers in [-7, 11], alternating bools), which leaves the flat
// part of a saturated function (tanh at -300). Integers are computed as integers of their width, so
// every tried value differs from the parent's and stays in range up to the dtype's limits (an int64
// near 2^63 included).
std::vector<Payload> perturbation_tries(const Payload& parent);

// How many of an op's output elements a perturbation replay computes (the first ones): enough for a
// change to show, few enough that a perturbed reduction costs little.
constexpr std::int64_t kPerturbedElements = 1024;

// Why no tried value of `parent` changed the first elements of `op` (`plain`: those elements, from
// the op's replay over its saved parents): the output cannot depend on that parent at these values.
// `framework_reason` is what the framework's op says (LiveGraph::unchanged_reason), if anything.
std::string unverified_reason(const Op& op, const Op& parent, const Payload& plain,
                              const std::optional<std::string>& framework_reason);

}  // namespace tl
