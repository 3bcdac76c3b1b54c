#include "backends/tinygrad/host_views.h"

#include <map>
#include <stdexcept>
#include <string>

#include "backends/tinygrad/evaluation.h"

namespace tl::tinygrad {

namespace {

std::vector<std::int64_t> ints(const py::handle& sequence) {
  std::vector<std::int64_t> values;
  for (py::handle value : sequence) values.push_back(value.cast<std::int64_t>());
  return values;
}

// Whether every argument of a movement is a concrete integer (or a tuple of them).
bool concrete(const py::object& arg) {
  for (py::handle item : arg) {
    if (py::isinstance<py::tuple>(item)) {
      for (py::handle bound : item) {
        if (!py::isinstance<py::int_>(bound)) return false;
      }
    } else if (!py::isinstance<py::int_>(item)) {  // bools are ints too
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<Movement> host_movement(const py::handle& uop) {
  static const std::map<std::string, Movement::Kind> kinds = {
      {"RESHAPE", Movement::Kind::Reshape}, {"PERMUTE", Movement::Kind::Permute}, {"EXPAND", Movement::Kind::Expand},
      {"PAD", Movement::Kind::Pad},         {"SHRINK", Movement::Kind::Shrink},   {"FLIP", Movement::Kind::Flip}};
  const auto kind = kinds.find(op_name(uop));
  if (kind == kinds.end()) return std::nullopt;
  const py::object arg = uop.attr("marg");
  if (!concrete(arg)) return std::nullopt;
  Movement movement{kind->second, {}, {}, {}, {}};
  switch (movement.kind) {
    case Movement::Kind::Reshape:
    case Movement::Kind::Expand:
      movement.shape = ints(arg);
      break;
    case Movement::Kind::Permute:
      movement.order = ints(arg);
      break;
    case Movement::Kind::Pad:
    case Movement::Kind::Shrink:
      for (py::handle pair : arg)
        movement.ranges.emplace_back(pair[py::int_(0)].cast<std::int64_t>(), pair[py::int_(1)].cast<std::int64_t>());
      break;
    case Movement::Kind::Flip:
      for (py::handle flipped : arg) movement.flipped.push_back(flipped.cast<bool>());
      break;
  }
  return movement;
}

OpPayloads op_payloads(const GraphWalker& walker, const Trace& trace, const std::vector<py::object>& roots, CaptureStats& stats) {
  const auto& nodes = walker.nodes();
  std::vector<std::optional<Movement>> movements(nodes.size());
  std::vector<bool> requested(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto& parents = trace.ops[i].parents;
    if (walker.node_class(i) == NodeClass::View && !parents.empty() && parents.front().position == 0)
      movements[i] = host_movement(nodes[i]);
    requested[i] = !movements[i];
  }
  CaptureEvaluation evaluated = evaluate_capture(nodes, requested, roots, stats);  // the capture's one evaluation
  OpPayloads result{std::vector<Payload>(nodes.size()), evaluated.live};
  for (std::size_t i = 0, k = 0; i < nodes.size(); ++i) {
    if (requested[i]) result.payloads[i] = std::move(evaluated.payloads[k++]);
  }
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!movements[i]) continue;
    result.payloads[i] = apply_movement(result.payloads[trace.ops[i].parents.front().op], *movements[i]);
    if (result.payloads[i].shape != trace.ops[i].shape) {
      throw std::runtime_error("op " + trace.ops[i].label + ": the host view has shape " +
                               shape_string(result.payloads[i].shape) + ", tinygrad's " + shape_string(trace.ops[i].shape));
    }
  }
  // An output is eager's value, whatever the op it is (a view included).
  for (std::size_t r = 0; r < roots.size(); ++r) {
    if (evaluated.root_payloads[r]) result.payloads[walker.index_of(roots[r])] = std::move(*evaluated.root_payloads[r]);
  }
  return result;
}

}  // namespace tl::tinygrad
