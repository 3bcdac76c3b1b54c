#include "harness/trace.h"

namespace tl {

const char* to_string(OpKind kind) {
  switch (kind) {
    case OpKind::Input: return "input";
    case OpKind::Compute: return "compute";
    case OpKind::View: return "view";
    case OpKind::Constant: return "constant";
  }
  return "?";
}

std::vector<const Op*> Trace::output_ops() const {
  std::vector<const Op*> result;
  for (std::size_t index : outputs) result.push_back(&ops.at(index));
  return result;
}

std::vector<const Op*> Trace::input_ops() const {
  std::vector<const Op*> result;
  for (std::size_t index : inputs) result.push_back(&ops.at(index));
  return result;
}

}  // namespace tl
