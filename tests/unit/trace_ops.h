// Test helper: finding an op of a trace by the framework op it records.
#pragma once

#include <stdexcept>
#include <string>

#include "harness/model/trace.h"

namespace tl::testing {

// The index of the first op recording `framework_op` (e.g. "REDUCE"); throws when there is none.
inline std::size_t first_op_named(const Trace& trace, const std::string& framework_op) {
  for (const Op& op : trace.ops) {
    if (op.framework_op == framework_op) return op.index;
  }
  throw std::runtime_error("no " + framework_op);
}

}  // namespace tl::testing
