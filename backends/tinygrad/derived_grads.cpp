// Derived intermediate gradients: the captured graph rebuilt from its saved leaf payloads, the loss
// differentiated with respect to every float op, and all gradients realized in one evaluation.
// Only fresh UOps are touched: no user Tensor gains or changes a .grad.
#include <pybind11/eval.h>
#include <pybind11/pybind11.h>

#include <algorithm>

#include "backends/tinygrad/buffer_write.h"
#include "backends/tinygrad/evaluation.h"
#include "backends/tinygrad/live_graph.h"
#include "harness/python_runtime.h"

namespace tl::tinygrad {

namespace py = pybind11;

namespace {

// `sink` with every buffer write swapped for its pure form: gradients flow to the written region
// only, and the many graphs of one finite-difference evaluation do not write into shared buffers.
// Outer writes may hold inner ones, so swap until none is left.
py::object without_buffer_writes(const TinygradApi& api, py::object sink) {
  for (;;) {
    py::dict pure;
    for (py::handle node : sink.attr("toposort")()) {
      if (is_buffer_write(node)) pure[node] = functional_buffer_write(api, node);
    }
    if (py::len(pure) == 0) return sink;
    sink = sink.attr("substitute")(pure);
  }
}

// The captured graph with every leaf (input, constant other than a plain literal CONST) and every
// replaced op swapped for a fresh buffer, and its buffer writes made pure: new UOps, in op order.
py::tuple rebuilt_graph(const TinygradApi& api, const Trace& trace, const std::vector<py::object>& uops,
                        const std::map<std::size_t, Payload>& replacements) {
  py::dict substitutions;
  for (const Op& op : trace.ops) {
    const auto replaced = replacements.find(op.index);
    if (replaced != replacements.end()) {
      substitutions[uops[op.index]] = buffer_from_payload(api, replaced->second);
    } else if ((op.kind == OpKind::Input || op.kind == OpKind::Constant) && op.framework_op != "CONST") {
      substitutions[uops[op.index]] = buffer_from_payload(api, *op.out);
    }
  }
  py::tuple all(uops.size());
  for (std::size_t i = 0; i < uops.size(); ++i) all[i] = uops[i];
  const py::object rebuilt = api.UOp.attr("sink")(*all).attr("substitute")(substitutions);
  // Every buffer write the walk let through is a recorded AFTER op; most traces have none.
  const bool writes = std::any_of(trace.ops.begin(), trace.ops.end(), [](const Op& op) { return op.framework_op == "AFTER"; });
  return (writes ? without_buffer_writes(api, rebuilt) : rebuilt).attr("src");
}

// The scalar loss Tensor over the rebuilt outputs: the given expression, or the sum of float outputs
// (`in_float64`: each output widened first, so the sum adds no rounding of its own; finite
// differences of a bfloat16 output's sum would otherwise see the sum's 8 bits, not the graph's).
py::object loss_of(const TinygradApi& api, const Trace& trace, const py::tuple& nodes, const GradOptions& options,
                   bool in_float64 = false) {
  py::list outputs;
  for (std::size_t index : trace.outputs) outputs.append(api.Tensor(nodes[index]));
  if (!options.loss.empty()) {
    py::dict scope;
    scope["outputs"] = outputs;
    scope["Tensor"] = api.Tensor;
    return py::eval(options.loss, scope);
  }
  py::object loss = py::none();
  for (py::handle output : outputs) {
    if (!output.attr("is_floating_point")().cast<bool>()) continue;
    const py::object term = (in_float64 ? output.attr("cast")(api.dtypes.attr("float64")) : output).attr("sum")();
    loss = loss.is_none() ? term : loss + term;
  }
  if (loss.is_none()) throw std::runtime_error("no float output to sum into a loss; give GradOptions.loss");
  return loss;
}

}  // namespace

void TinygradLiveGraph::derive_grads(Trace& trace, const GradOptions& options) const {
  with_python_errors([&] {
    const TinygradApi api;
    const py::tuple nodes = rebuilt_graph(api, trace, uops_, {});
    const py::object loss = loss_of(api, trace, nodes, options);
    std::vector<std::size_t> targets;
    py::list target_tensors;
    for (const Op& op : trace.ops) {
      if (!op.dtype.is_float()) continue;
      targets.push_back(op.index);
      target_tensors.append(api.Tensor(nodes[op.index]));
    }
    if (targets.empty()) return;
    const py::list gradients = loss.attr("gradient")(*target_tensors);
    std::vector<py::object> gradient_uops;
    for (py::handle gradient : gradients) gradient_uops.push_back(gradient.attr("uop"));
    // A gradient reads forward values (a relu's mask, a product's other factor): realized as cut
    // points, each is computed once instead of once per gradient that reads it.
    std::vector<py::object> forward_values;
    for (py::handle node : nodes) forward_values.push_back(py::reinterpret_borrow<py::object>(node));
    CaptureStats stats;
    std::vector<Payload> values = evaluate_once(api, gradient_uops, stats, forward_values);
    for (std::size_t i = 0; i < targets.size(); ++i) trace.ops[targets[i]].grad = std::move(values[i]);
  });
}

std::vector<double> TinygradLiveGraph::losses(const Trace& trace, const GradOptions& options,
                                              const std::vector<std::map<std::size_t, Payload>>& replacements) const {
  std::vector<double> result;
  with_python_errors([&] {
    const TinygradApi api;
    std::vector<py::object> loss_uops;
    for (const auto& replaced : replacements) {
      const py::tuple nodes = rebuilt_graph(api, trace, uops_, replaced);
      loss_uops.push_back(loss_of(api, trace, nodes, options, true).attr("cast")(api.dtypes.attr("float64")).attr("uop"));
    }
    CaptureStats stats;
    for (const Payload& value : evaluate_once(api, loss_uops, stats)) result.push_back(value.element(0));
  });
  return result;
}

}  // namespace tl::tinygrad
