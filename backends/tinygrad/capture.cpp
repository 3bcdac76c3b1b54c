#include "backends/tinygrad/capture.h"

#include <Python.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>

#include "backends/tinygrad/buffer_write.h"
#include "backends/tinygrad/evaluation.h"
#include "backends/tinygrad/guards.h"
#include "backends/tinygrad/live_graph.h"
#include "backends/tinygrad/preflight.h"
#include "backends/tinygrad/tinygrad_api.h"
#include "harness/movement.h"
#include "harness/python_runtime.h"
#include "harness/refusal.h"

namespace tl::tinygrad {
namespace {

// How the walk treats a UOp.
enum class NodeClass { Meta, Input, Closure, Literal, View, Compute };

class GraphWalker {
 public:
  GraphWalker(const TinygradApi& api, py::dict input_positions, py::set preexisting)
      : api_(api), input_positions_(std::move(input_positions)), preexisting_(std::move(preexisting)) {
    const py::object ops = api.Ops;
    const_op_ = ops.attr("CONST");
    buffer_op_ = ops.attr("BUFFER");
    for (const char* name : {"RESHAPE", "EXPAND", "PAD", "SHRINK", "PERMUTE", "FLIP", "MULTI"}) {
      view_ops_.add(ops.attr(name));
    }
    void_ = api.dtypes.attr("void");
    weakint_ = api.dtypes.attr("weakint");
  }

  NodeClass classify(const py::handle& uop) const {
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

  // Post-order over the outputs' graphs, cutting at inputs and constants: parents before children.
  void walk(const std::vector<py::object>& roots) {
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
        index_of_[frame.uop] = py::int_(nodes_.size());
        nodes_.push_back(frame.uop);
        classes_.push_back(node_class);
        continue;
      }
      if (expanded.contains(frame.uop)) continue;  // already waiting lower on the stack
      refuse_buffer_writes(frame.uop);
      expanded.add(frame.uop);
      stack.push_back({frame.uop, true});
      const py::tuple sources = op_sources(frame.uop);
      for (std::size_t i = sources.size(); i-- > 0;) {
        if (classify(sources[i]) != NodeClass::Meta) stack.push_back({sources[i], false});
      }
    }
  }

  const std::vector<py::object>& nodes() const { return nodes_; }
  NodeClass node_class(std::size_t i) const { return classes_[i]; }
  std::size_t index_of(const py::handle& uop) const { return index_of_[uop].cast<std::size_t>(); }
  bool contains(const py::handle& uop) const { return index_of_.contains(uop); }

 private:
  bool has_unique_source(const py::handle& uop) const {
    for (py::handle source : uop.attr("src")) {
      if (op_name(source) == "UNIQUE") return true;
    }
    return false;
  }

  // No silent holes: what a STORE or a kernel CALL writes is computed by void nodes the walk skips
  // (@function calls are inlined before the walk, so a FUNCTION left here is one that writes too).
  // Only a write into the AFTER's own buffer is recorded, as one op over (buffer, value), and only
  // when that buffer is not an input's: the evaluation would write into the caller's tensor.
  void refuse_buffer_writes(const py::handle& uop) const {
    if (is_buffer_write(uop)) {
      const py::object written = uop.attr("src")[py::int_(0)].attr("base");
      for (auto [input, position] : input_positions_) {
        const py::object input_base = input.attr("base");
        if (input_base.is(written)) {
          throw BackendUnsupportedError(
              RefusalCode::InputMutationUnsupported, "tinygrad",
              "the forward stores into input " + py::str(position).cast<std::string>() + "'s buffer (an AFTER over a STORE)",
              "AFTER");
        }
      }
      return;
    }
    for (py::handle source : uop.attr("src")) {
      const auto name = op_name(source);
      if (name == "STORE" || name == "CALL" || name == "FUNCTION") {
        throw BackendUnsupportedError(RefusalCode::BufferWriteUnsupported, "tinygrad",
                                      "the output graph reaches a buffer written by a " + name + " inside the forward",
                                      op_name(uop));
      }
    }
  }

  const TinygradApi& api_;
  py::dict input_positions_;
  py::set preexisting_;
  py::object const_op_, buffer_op_, void_, weakint_;
  py::set view_ops_;
  py::dict index_of_;
  std::vector<py::object> nodes_;
  std::vector<NodeClass> classes_;
};

bool reaches_op(const py::handle& uop, const char* name) {
  for (py::handle node : uop.attr("toposort")()) {
    if (op_name(node) == name) return true;
  }
  return false;
}

// A tinygrad @function call is GETTUPLE(FUNCTION(TUPLE(body over PARAMs), args...)): the walk would
// see one opaque node. Inlining the body (PARAM i -> args[i]) computes the same values with every op
// in view. Innermost calls go first, so a nested body's PARAMs are never confused with its caller's.
std::vector<py::object> inline_function_calls(const TinygradApi& api, std::vector<py::object> roots) {
  py::tuple all(roots.size());
  for (std::size_t i = 0; i < roots.size(); ++i) all[i] = roots[i];
  py::object sink = api.UOp.attr("sink")(*all);
  for (;;) {
    py::dict inlined;
    for (py::handle node : sink.attr("toposort")()) {
      if (op_name(node) != "GETTUPLE" || op_name(node.attr("src")[py::int_(0)]) != "FUNCTION") continue;
      const py::tuple function = node.attr("src")[py::int_(0)].attr("src");
      const py::object body = function[0];
      if (reaches_op(body, "FUNCTION")) continue;  // a nested call: inline it first
      py::dict params;
      for (py::handle param : body.attr("toposort")()) {
        if (op_name(param) == "PARAM") params[param] = function[1 + param.attr("arg").cast<std::size_t>()];
      }
      inlined[node] = body.attr("substitute")(params).attr("src")[node.attr("arg")];
    }
    if (py::len(inlined) == 0) break;
    sink = sink.attr("substitute")(inlined);
  }
  std::vector<py::object> inlined_roots;
  for (py::handle root : sink.attr("src")) inlined_roots.push_back(py::reinterpret_borrow<py::object>(root));
  return inlined_roots;
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

// Whether a returned container holds a Tensor anywhere inside (bounded: a cyclic or absurdly deep
// structure counts as holding one, so it is refused rather than walked forever).
bool holds_tensor(const TinygradApi& api, const py::handle& value, int depth = 0) {
  if (api.is_tensor(value)) return true;
  if (depth > 32) return true;
  if (py::isinstance<py::dict>(value)) return holds_tensor(api, py::list(value.attr("values")()), depth + 1);
  if (py::isinstance<py::tuple>(value) || py::isinstance<py::list>(value)) {
    for (py::handle item : value) {
      if (holds_tensor(api, item, depth + 1)) return true;
    }
  }
  return false;
}

// The forward's outputs: a Tensor, or a flat tuple/list whose Tensors are the outputs (other items,
// such as Python numbers, are not ops). A Tensor nested deeper would be a silent hole: refused.
std::vector<py::object> output_tensors(const TinygradApi& api, const py::object& result) {
  auto type_name = [](const py::handle& value) { return py::str(py::type::of(value).attr("__name__")).cast<std::string>(); };
  std::vector<py::object> outputs;
  if (api.is_tensor(result)) {
    outputs.push_back(result);
  } else if (py::isinstance<py::tuple>(result) || py::isinstance<py::list>(result)) {
    std::size_t position = 0;
    for (py::handle item : result) {
      if (api.is_tensor(item)) {
        outputs.push_back(py::reinterpret_borrow<py::object>(item));
      } else if (holds_tensor(api, item)) {
        throw BackendUnsupportedError(RefusalCode::TensorOutputRequired, "tinygrad",
                                      "output " + std::to_string(position) + " is a " + type_name(item) +
                                          " holding Tensors; return a flat tuple or list of Tensors");
      }
      ++position;
    }
  }
  if (outputs.empty()) {
    throw BackendUnsupportedError(RefusalCode::TensorOutputRequired, "tinygrad",
                                  "the forward returned " + type_name(result) + ", not a Tensor or a tuple/list holding one");
  }
  return outputs;
}

// Turns the walked nodes into ops (without payloads yet): kinds, constant kinds, labels, parents.
void record_ops(const GraphWalker& walker, const py::dict& input_positions, const TraceOptions& options, Trace& trace) {
  const auto& nodes = walker.nodes();
  std::map<std::string, int> label_counts;
  trace.ops.reserve(nodes.size());
  std::map<std::size_t, std::size_t> input_ops;  // argument position -> op
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const py::object& uop = nodes[i];
    Op op;
    op.index = i;
    op.framework_op = op_name(uop);
    op.dtype = payload_dtype(uop.attr("dtype"));
    op.shape = shape_of(uop);
    if (options.capture.module_identity_mode != "none") std::tie(op.module, op.call_site) = provenance(uop);
    std::string base;
    switch (walker.node_class(i)) {
      case NodeClass::Input: {
        const auto position = input_positions[uop].cast<std::size_t>();
        op.kind = OpKind::Input;
        input_ops[position] = i;
        base = "input" + std::to_string(position);
        break;
      }
      case NodeClass::Closure:
        op.kind = OpKind::Constant;
        op.constant_kind = "closure";
        base = "closure";
        break;
      case NodeClass::Literal:
        op.kind = OpKind::Constant;
        op.constant_kind = "literal";
        base = "literal";
        break;
      default: {
        op.kind = walker.node_class(i) == NodeClass::View ? OpKind::View : OpKind::Compute;
        std::string lowered = op.framework_op;
        for (char& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        base = op.module.empty() ? lowered : op.module + "." + lowered;
        const py::tuple sources = op_sources(uop);
        for (std::size_t position = 0; position < sources.size(); ++position) {
          if (walker.contains(sources[position])) op.parents.push_back({walker.index_of(sources[position]), position});
        }
      }
    }
    op.label = base + ":" + std::to_string(label_counts[base]++);
    trace.ops.push_back(std::move(op));
  }
  // Inputs by argument position; an input the forward never read is not in the graph.
  for (const auto& [position, op] : input_ops) trace.inputs.push_back(op);
}

// No silent holes: a constant whose data lives on a device the evaluation cannot read from (a DISK
// file that is gone, ...) is refused naming the op, before the evaluation runs anything.
void refuse_unrealizable_constants(const GraphWalker& walker, const Trace& trace, const std::string& device) {
  for (const Op& op : trace.ops) {
    if (op.kind != OpKind::Constant) continue;
    for (py::handle uop : walker.nodes()[op.index].attr("toposort")()) {
      if (op_name(uop) != "BUFFER") continue;
      const std::string buffer_device = py::str(uop.attr("device")).cast<std::string>();
      if (buffer_device == device || buffer_device == "NPY") continue;
      try {
        uop.attr("buffer").attr("ensure_allocated")();
      } catch (py::error_already_set& error) {
        throw BackendUnsupportedError(
            RefusalCode::ConstantUnrealizable, "tinygrad",
            "its data on " + buffer_device + " cannot be read (" + py::str(error.value()).cast<std::string>() + ")", op.label);
      }
    }
  }
}

std::vector<std::int64_t> ints(const py::handle& sequence) {
  std::vector<std::int64_t> values;
  for (py::handle value : sequence) values.push_back(value.cast<std::int64_t>());
  return values;
}

// The movement a view node applies to its parent, when its arguments are concrete integers (a
// symbolic shape leaves the view to tinygrad).
std::optional<Movement> host_movement(const py::handle& uop) {
  static const std::map<std::string, Movement::Kind> kinds = {
      {"RESHAPE", Movement::Kind::Reshape}, {"PERMUTE", Movement::Kind::Permute}, {"EXPAND", Movement::Kind::Expand},
      {"PAD", Movement::Kind::Pad},         {"SHRINK", Movement::Kind::Shrink},   {"FLIP", Movement::Kind::Flip}};
  const auto kind = kinds.find(op_name(uop));
  if (kind == kinds.end()) return std::nullopt;
  const py::object arg = uop.attr("marg");
  for (py::handle item : arg) {
    if (py::isinstance<py::tuple>(item)) {
      for (py::handle bound : item) {
        if (!py::isinstance<py::int_>(bound)) return std::nullopt;
      }
    } else if (!py::isinstance<py::int_>(item)) {  // bools are ints too
      return std::nullopt;
    }
  }
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

// Every op's payload from one evaluation. Views with concrete arguments are not materialized by
// tinygrad (each materialized buffer is a scheduled kernel); their payloads are derived from their
// parents' here, in post-order, and replay validation checks them against tinygrad's own views.
std::vector<Payload> op_payloads(const TinygradApi& api, const GraphWalker& walker, const Trace& trace, CaptureStats& stats) {
  const auto& nodes = walker.nodes();
  std::vector<std::optional<Movement>> movements(nodes.size());
  std::vector<py::object> requested;
  std::vector<std::size_t> requested_ops;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto& parents = trace.ops[i].parents;
    if (walker.node_class(i) == NodeClass::View && !parents.empty() && parents.front().position == 0)
      movements[i] = host_movement(nodes[i]);
    if (!movements[i]) {
      requested.push_back(nodes[i]);
      requested_ops.push_back(i);
    }
  }
  std::vector<Payload> evaluated = evaluate_once(api, requested, stats);
  std::vector<Payload> payloads(nodes.size());
  for (std::size_t k = 0; k < requested_ops.size(); ++k) payloads[requested_ops[k]] = std::move(evaluated[k]);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!movements[i]) continue;
    payloads[i] = apply_movement(payloads[trace.ops[i].parents.front().op], *movements[i]);
    if (payloads[i].shape != trace.ops[i].shape) {
      throw std::runtime_error("op " + trace.ops[i].label + ": the host view has shape " + shape_string(payloads[i].shape) +
                               ", tinygrad's " + shape_string(trace.ops[i].shape));
    }
  }
  return payloads;
}

// MemAvailable from /proc/meminfo, in bytes (0 when it cannot be read: no budget is applied).
std::uint64_t available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);) {
    if (line.starts_with("MemAvailable:")) return std::stoull(line.substr(13)) * 1024;
  }
  return 0;
}

// A forward can build a lazy tensor far larger than memory; refuse before the evaluation allocates.
void refuse_oversized_payloads(const Trace& trace) {
  std::uint64_t bytes = 0;
  for (const Op& op : trace.ops) {
    std::uint64_t numel = 1;
    for (std::int64_t dim : op.shape)
      numel = dim > 0 && numel > UINT64_MAX / static_cast<std::uint64_t>(dim)
                  ? UINT64_MAX
                  : numel * static_cast<std::uint64_t>(std::max<std::int64_t>(dim, 0));
    const std::uint64_t op_bytes = numel > UINT64_MAX / 8 ? UINT64_MAX : numel * static_cast<std::uint64_t>(op.dtype.itemsize);
    bytes = bytes > UINT64_MAX - op_bytes ? UINT64_MAX : bytes + op_bytes;
  }
  const std::uint64_t available = available_memory_bytes();
  if (available != 0 && bytes > available) {
    throw BackendUnsupportedError(RefusalCode::PayloadTooLarge, "tinygrad",
                                  "the " + std::to_string(trace.ops.size()) + " recorded ops need " + std::to_string(bytes) +
                                      " payload bytes; " + std::to_string(available) + " bytes are available");
  }
}

}  // namespace

Trace capture(const py::object& fn, const py::tuple& args, const TraceOptions& options) {
  refuse_unsupported_options(options);  // before tinygrad is touched
  const RuntimeInfo& runtime = require_tinygrad();
  refuse_unsupported_version(runtime.tinygrad_version);
  Trace trace;
  trace.backend = "tinygrad";
  trace.framework_version = runtime.tinygrad_version;
  trace.device = runtime.device;
  trace.options = options;  // what the capture was asked for: a saved .tlspec records it
  with_python_errors([&] {
    const TinygradApi api;
    refuse_without_tensor_input(args, api.Tensor);
    py::dict input_positions;
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (api.is_tensor(args[i])) {
        const py::object uop = args[i].attr("uop");
        if (!input_positions.contains(uop)) input_positions[uop] = py::int_(i);
      }
    }

    // Everything a live Tensor holds before the forward is an input or a closure constant.
    py::set preexisting;
    for (py::handle ref : api.tensor_module.attr("all_tensors")) {
      const py::object tensor = ref();
      if (!tensor.is_none()) preexisting.add(tensor.attr("uop"));
    }

    // The guards refuse in-forward hazards at the call and are undone when this scope ends.
    const py::object result = ForwardGuards(args).call(fn, args);
    std::vector<py::object> roots;
    for (const py::object& output : output_tensors(api, result)) roots.push_back(output.attr("uop"));

    roots = inline_function_calls(api, std::move(roots));
    GraphWalker walker(api, input_positions, preexisting);
    walker.walk(roots);
    record_ops(walker, input_positions, options, trace);
    refuse_oversized_payloads(trace);
    refuse_unrealizable_constants(walker, trace, runtime.device);
    std::vector<Payload> payloads = op_payloads(api, walker, trace, trace.stats);
    for (Op& op : trace.ops) op.out = std::move(payloads[op.index]);
    // An input the forward never read is not in the graph; keep only inputs that are ops.
    std::erase(trace.inputs, SIZE_MAX);
    for (const py::object& root : roots) trace.outputs.push_back(walker.index_of(root));
    if (runtime.device == "PYTHON") trace.live = std::make_shared<TinygradLiveGraph>(walker.nodes());
  });
  return trace;
}

}  // namespace tl::tinygrad
