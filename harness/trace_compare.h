// Op-by-op comparison of two traces (a .tlspec round-trip must be exact).
#pragma once

#include <optional>
#include <string>

#include "harness/trace.h"

namespace tl {

// The first difference between two traces (graph, labels, kinds, dtypes, shapes, parents, payload
// and gradient bytes), or nullopt when they are the same.
std::optional<std::string> first_difference(const Trace& expected, const Trace& actual);

}  // namespace tl
