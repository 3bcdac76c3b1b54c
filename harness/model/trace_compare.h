// Op-by-op comparison of two traces (a .tlspec round-trip must be exact).
#pragma once

#include <optional>
#include <string>

#include "harness/model/trace.h"

namespace tl {

// The first difference between two traces (backend facts, capture options and stats, graph, labels,
// kinds, dtypes, shapes, parents, provenance, payload and gradient bytes), or nullopt when they are
// the same.
std::optional<std::string> first_difference(const Trace& expected, const Trace& actual);

}  // namespace tl
