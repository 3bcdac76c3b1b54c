// Parent perturbation in replay validation: how a parent's payload is shifted, and the documented
// reasons an op may legitimately ignore such a shift (an exemption, reported, never a silent pass).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "harness/payload.h"
#include "harness/trace.h"

namespace tl::tinygrad {

// A parent's payload shifted so that any op that depends on it sees different values: booleans
// flip, floats move by 1 + |v| / 2, integers by one.
Payload perturbed(const Payload& payload);

// Why `op` may leave its output unchanged when its parent at argument `position` is perturbed;
// nullopt when it may not (then the replay graph does not really depend on that parent: a failure).
std::optional<std::string> exemption(const Trace& trace, const Op& op, std::size_t position);

}  // namespace tl::tinygrad
