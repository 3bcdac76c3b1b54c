#include "backends/tinygrad/graph_walk.h"

#include <cctype>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "backends/tinygrad/buffer_write.h"
#include "backends/tinygrad/capture_refusals.h"

namespace tl::tinygrad {

namespace {

bool has_unique_source(const py::handle& uop) {
  for (py::handle source : uop.attr("src")) {
    if (op_name(source) == "UNIQUE") return true;
  }
  return false;
}

std::vector<std::int64_t> shape_of(const py::handle& uop) {
  std::vector<std::int64_t> shape;
  for (py::handle dim : uop.attr("shape")) shape.push_back(dim.cast<std::int64_t>());
  return shape;
}

// The tinygrad method that made a node, without dunders ("__add__" -> "add"), and its call site.
std::pair<std::string, std::string> provenance(const py::handle& uop) {
  const py::object metadata = uop.attr("metadata");
  if (metadata.is_none() || py::len(metadata) == 0) return {"", ""};
  const py::object first = metadata[py::int_(0)];
  std::string name = first.attr("name").cast<std::string>();
  while (name.size() > 2 && name.starts_with("_")) name.erase(0, 1);
  while (name.size() > 2 && name.ends_with("_")) name.pop_back();
  return {name, first.attr("caller").cast<std::string>()};
}

// What a walked node is as an op: its kind, its constant kind, and the base of its label.
struct OpRole {
  OpKind kind = OpKind::Compute;
  std::optional<std::string> constant_kind{};
  std::string label_base{};
};

// `input_position` is read only for an input node; `module` names a computed op's label.
OpRole role_of(NodeClass node_class, const std::string& framework_op, const std::string& module, std::size_t input_position) {
  switch (node_class) {
    case NodeClass::Input:
      return {.kind = OpKind::Input, .label_base = "input" + std::to_string(input_position)};
    case NodeClass::Closure:
      return {.kind = OpKind::Constant, .constant_kind = "closure", .label_base = "closure"};
    case NodeClass::Literal:
      return {.kind = OpKind::Constant, .constant_kind = "literal", .label_base = "literal"};
    default: {
      std::string lowered = framework_op;
      for (char& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return {.kind = node_class == NodeClass::View ? OpKind::View : OpKind::Compute,
              .label_base = module.empty() ? lowered : module + "." + lowered};
    }
  }
}

// A computed op's parents: each source that is a walked node, with the argument position it fills.
std::vector<ParentRef> parents_of(const GraphWalker& walker, const py::handle& uop) {
  std::vector<ParentRef> parents;
  const py::tuple sources = op_sources(uop);
  for (std::size_t position = 0; position < sources.size(); ++position) {
    if (walker.contains(sources[position])) parents.push_back({.op = walker.index_of(sources[position]), .position = position});
  }
  return parents;
}

}  // namespace

GraphWalker::GraphWalker(const TinygradApi& api, py::dict input_positions, py::set preexisting)
    : input_positions_(std::move(input_positions)), preexisting_(std::move(preexisting)) {
  const py::object ops = api.Ops;
  const_op_ = ops.attr("CONST");
  buffer_op_ = ops.attr("BUFFER");
  for (const char* name : {"RESHAPE", "EXPAND", "PAD", "SHRINK", "PERMUTE", "FLIP", "MULTI"}) {
    view_ops_.add(ops.attr(name));
  }
  void_ = api.dtypes.attr("void");
  weakint_ = api.dtypes.attr("weakint");
}

NodeClass GraphWalker::classify(const py::handle& uop) const {
  const py::object scalar = uop.attr("dtype").attr("scalar")();
  if (scalar.equal(void_) || scalar.equal(weakint_)) return NodeClass::Meta;  // devices, shape args
  if (input_positions_.contains(uop)) return NodeClass::Input;
  const py::object op = uop.attr("op");
  // A plain CONST is hash-consed with any equal constant, so it is a literal wherever it came from.
  if (op.is(const_op_)) return has_unique_source(uop) && preexisting_.contains(uop) ? NodeClass::Closure : NodeClass::Literal;
  if (preexisting_.contains(uop)) return NodeClass::Closure;
  if (op.is(buffer_op_)) return NodeClass::Literal;  // a buffer made inside the forward from Python data
  return view_ops_.contains(op) ? NodeClass::View : NodeClass::Compute;
}

void GraphWalker::walk(const std::vector<py::object>& roots) {
  struct Frame {
    py::object uop;
    bool expanded;
  };
  std::vector<Frame> stack;
  for (auto it = roots.rbegin(); it != roots.rend(); ++it) stack.push_back({*it, false});
  py::set expanded;
  while (!stack.empty()) {
    Frame frame = std::move(stack.back());
    stack.pop_back();
    if (index_of_.contains(frame.uop)) continue;
    const NodeClass node_class = classify(frame.uop);
    if (frame.expanded || node_class == NodeClass::Input || node_class == NodeClass::Closure ||
        node_class == NodeClass::Literal) {
      record(frame.uop, node_class);
      continue;
    }
    if (expanded.contains(frame.uop)) continue;  // already waiting lower on the stack
    refuse_buffer_writes(frame.uop, input_positions_);
    expanded.add(frame.uop);
    stack.push_back({frame.uop, true});
    const py::tuple sources = op_sources(frame.uop);
    for (std::size_t i = sources.size(); i-- > 0;) {
      if (classify(sources[i]) != NodeClass::Meta) stack.push_back({sources[i], false});
    }
  }
}

void GraphWalker::record(const py::object& uop, NodeClass node_class) {
  index_of_[uop] = py::int_(nodes_.size());
  nodes_.push_back(uop);
  classes_.push_back(node_class);
}

void record_ops(const GraphWalker& walker, const TraceOptions& options, Trace& trace) {
  const auto& nodes = walker.nodes();
  std::map<std::string, int> label_counts;
  trace.ops.reserve(nodes.size());
  std::map<std::size_t, std::size_t> input_ops;  // argument position -> op
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const py::object& uop = nodes[i];
    const NodeClass node_class = walker.node_class(i);
    const std::string framework_op = op_name(uop);
    DType dtype = payload_dtype(uop.attr("dtype"));  // throws for a dtype payloads cannot carry
    std::vector<std::int64_t> shape = shape_of(uop);
    const auto [module, call_site] =
        options.capture.module_identity_mode != "none" ? provenance(uop) : std::pair<std::string, std::string>{};
    const std::size_t input_position = node_class == NodeClass::Input ? walker.input_positions()[uop].cast<std::size_t>() : 0;
    if (node_class == NodeClass::Input) input_ops[input_position] = i;
    OpRole role = role_of(node_class, framework_op, module, input_position);
    const bool computed = role.kind == OpKind::Compute || role.kind == OpKind::View;
    trace.ops.push_back({.index = i,
                         .label = role.label_base + ":" + std::to_string(label_counts[role.label_base]++),
                         .framework_op = framework_op,
                         .kind = role.kind,
                         .constant_kind = std::move(role.constant_kind),
                         .dtype = std::move(dtype),
                         .shape = std::move(shape),
                         .parents = computed ? parents_of(walker, uop) : std::vector<ParentRef>{},
                         .module = module,
                         .call_site = call_site});
  }
  // Inputs by argument position (the capture walks every input, read or not).
  for (const auto& [position, op] : input_ops) trace.inputs.push_back(op);
}

}  // namespace tl::tinygrad
