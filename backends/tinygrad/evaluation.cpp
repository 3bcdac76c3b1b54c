#include "backends/tinygrad/evaluation.h"

#include <pybind11/eval.h>

#include <cstring>
#include <stdexcept>
#include <string>

namespace tl::tinygrad {

namespace py = pybind11;

namespace {

bool op_is(const py::handle& uop, const py::object& op) { return py::object(uop.attr("op")).is(op); }
// Python's cyclic GC paused for a scope, as tinygrad's own realize does: scheduling allocates
// many short-lived UOps, and collections in the middle cost time and free nothing.
class GcPause {
 public:
  GcPause() : gc_(py::module_::import("gc")), was_enabled_(gc_.attr("isenabled")().cast<bool>()) { gc_.attr("disable")(); }
  ~GcPause() {
    if (was_enabled_) gc_.attr("enable")();
  }
  GcPause(const GcPause&) = delete;
  GcPause& operator=(const GcPause&) = delete;

 private:
  py::module_ gc_;
  bool was_enabled_;
};

// tinygrad's linearizer orders a kernel's instructions by priority and then by `tuplize`, an uncached
// recursive tuple of each subtree: O(depth) per comparison, so a deep fused kernel costs seconds to
// compile. TUPLE_ORDER=0 orders by priority alone; the program computes the same values.
class PriorityOrder {
 public:
  PriorityOrder() : context_(py::module_::import("tinygrad.helpers").attr("Context")(py::arg("TUPLE_ORDER") = 0)) {
    context_.attr("__enter__")();
  }
  ~PriorityOrder() { context_.attr("__exit__")(py::none(), py::none(), py::none()); }
  PriorityOrder(const PriorityOrder&) = delete;
  PriorityOrder& operator=(const PriorityOrder&) = delete;

 private:
  py::object context_;
};

// The UOp realized for each payload. Realizing `node.contiguous()` over the original graph makes
// kernel k recompute the whole chain below node k: O(n^2) work for a chain of n ops. Instead each
// requested value op is realized once and its consumers read that buffer (kernel k holds O(1) ops).
// Where tinygrad's fused code would compute differently across the cut, the consumer keeps the
// original expression, so each payload is still the value the fused graph gives: a pure constant
// expression stays inline (fused code folds it at Python precision, a buffer holds it rounded), and
// a MUL feeding an ADD or a REDUCE stays inline (fused into one multiply-add, rounded once). Effects
// (AFTER, STORE), COPY, CALL and CONTIGUOUS keep their own graph, so the effect map still names the
// live tensors' nodes. Outputs are checked equal to a plain eager forward in every conformance cell.
constexpr const char* kRequests = R"PY(
from tinygrad.uop.ops import UOp, Ops, GroupOp
from tinygrad.dtype import dtypes

_CHAINABLE = GroupOp.ALU | {Ops.CAST, Ops.BITCAST, Ops.REDUCE}
_MOVEMENT = {Ops.RESHAPE, Ops.EXPAND, Ops.PAD, Ops.SHRINK, Ops.PERMUTE, Ops.FLIP}
_CONST_LEAVES = {Ops.CONST, Ops.DEVICE, Ops.UNIQUE}
_DATA_LEAVES = {Ops.BUFFER, Ops.PARAM, Ops.BUFFER_VIEW, Ops.BIND, Ops.DEFINE_VAR}
_NO_CUT = {(Ops.MUL, Ops.ADD), (Ops.MUL, Ops.REDUCE)}

def _tl_requests(nodes):
    wanted = set(nodes)
    cut, inline, constish, request = {}, {}, {}, {}
    for u in UOp.sink(*nodes).toposort():
        if u.op is Ops.SINK: continue
        meta = u.dtype.scalar() in (dtypes.void, dtypes.weakint)
        constish[u] = meta or u.op in _CONST_LEAVES or (
            len(u.src) > 0 and u.op not in _DATA_LEAVES and all(constish[s] for s in u.src))
        if u.op in _CHAINABLE or u.op in _MOVEMENT:
            src = tuple(inline[s] if (s.op, u.op) in _NO_CUT else cut[s] for s in u.src)
        else:
            src = u.src
        inline[u] = cut[u] = new = u if src == u.src else u.replace(src=src)
        if u in wanted:
            request[u] = new.contiguous()
            if u.op in _CHAINABLE and not constish[u]: cut[u] = request[u]
    return [request[u] for u in nodes]
)PY";

}  // namespace

py::list chained_requests(const py::list& nodes) {
  py::dict scope;  // executed per capture: microseconds, and nothing outlives the interpreter
  py::exec(kRequests, scope);
  return scope["_tl_requests"](nodes);
}

// Five phases in order over shared state: request every node, read realized inputs before the run,
// run the one schedule, re-point the live tensors at the effects, copy out (freeing each buffer after
// its last reader). Kept whole: the phases share the request list, the buffer map and the payloads.
std::vector<Payload> evaluate_once(const TinygradApi& api, const std::vector<py::object>& nodes, CaptureStats& stats,
                                   const std::vector<py::object>& cut_points) {
  const GcPause gc_pause;
  std::vector<Payload> payloads;
  payloads.reserve(nodes.size());
  py::list nonempty;  // the nodes with elements, in node order
  for (const py::object& node : nodes) {
    Payload payload{payload_dtype(node.attr("dtype")), {}, {}};
    for (py::handle dim : node.attr("shape")) payload.shape.push_back(dim.cast<std::int64_t>());
    // tinygrad allocates nothing for an empty tensor (a slice past the end), and needs not to.
    if (payload.numel() != 0) nonempty.append(node);
    payloads.push_back(std::move(payload));
  }
  const std::size_t wanted = py::len(nonempty);
  for (const py::object& node : cut_points) {
    bool empty = false;  // an empty tensor is never materialized (above)
    for (py::handle dim : node.attr("shape")) empty |= dim.cast<std::int64_t>() == 0;
    if (!empty) nonempty.append(node);
  }
  // Only the requests of `nodes` are evaluated; a cut point's request runs where one of them reads it.
  const py::list all_requests = chained_requests(nonempty);
  py::list requested;
  for (std::size_t k = 0; k < wanted; ++k) requested.append(all_requests[k]);
  py::list contiguous;  // per node: what to read after the run, or None for an empty tensor
  for (std::size_t i = 0, k = 0; i < nodes.size(); ++i)
    contiguous.append(payloads[i].numel() == 0 ? py::none() : py::object(requested[k++]));
  const PriorityOrder priority_order;
  const py::object sink = api.UOp.attr("sink")(*requested);
  const py::tuple called = api.transform_to_call(sink);
  const py::dict buffer_map = called[1];
  const py::tuple linear = api.create_linear_with_vars(called[0]);

  // The bytes of `buffer` into node i's payload, checked against the node's size.
  auto copy_out = [&](const py::object& buffer, Payload& payload, std::size_t i) {
    if (buffer.attr("size").cast<std::int64_t>() != payload.numel()) {
      throw std::runtime_error("op " + std::to_string(i) + " (" + op_name(nodes[i]) + ") maps to a buffer of " +
                               py::str(buffer.attr("size")).cast<std::string>() + " elements, not " +
                               std::to_string(payload.numel()));
    }
    // the memoryview is released before its buffer may be freed
    const py::buffer view = buffer.attr("as_memoryview")();
    const py::buffer_info info = view.request();
    const auto size = static_cast<std::size_t>(info.size * info.itemsize);
    if (size != static_cast<std::size_t>(payload.numel()) * payload.dtype.itemsize) {
      throw std::runtime_error("op " + std::to_string(i) + " payload has " + std::to_string(size) + " bytes");
    }
    payload.bytes.resize(size);
    std::memcpy(payload.bytes.data(), info.ptr, size);
  };

  // A node already backed by a realized buffer the run does not own (an input, a closure) is read
  // before the run: a buffer write in the forward may change it, and its op is the value the forward
  // started from.
  const py::object buffer_op = api.Ops.attr("BUFFER");
  std::vector<bool> read_before(nodes.size(), false);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const py::object request = contiguous[i];
    if (request.is_none() || buffer_map.contains(request)) continue;
    const py::object base = request.attr("base");
    if (!op_is(base, buffer_op) || !base.attr("buffer").attr("is_allocated")().cast<bool>()) continue;
    copy_out(base.attr("buffer"), payloads[i], i);
    read_before[i] = true;
  }
  const long long kernels_before = api.kernel_count();
  api.realize_module.attr("run_linear")(linear[0], linear[1]);
  stats.evaluations = 1;
  stats.kernels = static_cast<int>(api.kernel_count() - kernels_before);

  py::dict effects;
  const py::object after_op = api.Ops.attr("AFTER");
  for (auto [key, value] : buffer_map) {
    if (op_is(key, after_op)) effects[key] = value;
  }
  if (py::len(effects) != 0) api.tensor_module.attr("_apply_map_to_tensors")(effects, "tl capture");

  // Buffers this evaluation allocated are freed as soon as their last payload is copied out, so the
  // peak holds about one copy of the payloads, not two. Live tensors keep theirs: inputs and
  // closures are read in place, and the AFTER effects now belong to live tensors.
  py::set kept;
  for (auto [key, value] : effects) kept.add(value.attr("base").attr("buffer"));
  std::vector<py::object> buffers(nodes.size());
  py::dict readers_left;  // owned buffer -> payloads still to copy from it
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const py::object request = contiguous[i];
    if (request.is_none() || read_before[i]) continue;
    // The rest is read after the run: from the buffer the run made for it, or in place (an `empty`
    // the forward wrote into, allocated by the run).
    const bool owned = buffer_map.contains(request);
    const py::object base = (owned ? buffer_map[request] : request).attr("base");
    if (!op_is(base, buffer_op)) {
      throw std::runtime_error("op " + std::to_string(i) + " (" + op_name(nodes[i]) + ") was not materialized (it resolves to " +
                               op_name(base) + ")");
    }
    buffers[i] = base.attr("buffer");
    if (owned && !kept.contains(buffers[i])) {
      readers_left[buffers[i]] = py::int_(readers_left.contains(buffers[i]) ? readers_left[buffers[i]].cast<int>() + 1 : 1);
    }
  }
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!buffers[i]) continue;
    const py::object& buffer = buffers[i];
    copy_out(buffer, payloads[i], i);
    if (readers_left.contains(buffer)) {
      const int left = readers_left[buffer].cast<int>() - 1;
      readers_left[buffer] = py::int_(left);
      if (left == 0) buffer.attr("deallocate")();
    }
  }
  return payloads;
}

py::object buffer_from_payload(const TinygradApi& api, const Payload& payload) {
  const py::bytes data(reinterpret_cast<const char*>(payload.bytes.data()), payload.bytes.size());
  const py::object tensor = api.Tensor(data, py::arg("dtype") = api.dtypes.attr(payload.dtype.name.c_str()));
  py::tuple shape(payload.shape.size());
  for (std::size_t i = 0; i < payload.shape.size(); ++i) shape[i] = py::int_(payload.shape[i]);
  return tensor.attr("reshape")(shape).attr("uop");
}

}  // namespace tl::tinygrad
