// Derived gradients and what the gradient and payload checks re-evaluate: the captured graph rebuilt
// over the saved payloads and differentiated by tinygrad's own autograd (python/tl_gradients.py),
// the loss re-evaluated under replaced payloads, and ops evaluated alone. Only fresh UOps are
// touched: no user Tensor gains or changes a .grad.
#include <pybind11/pybind11.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include "backends/tinygrad/evaluation.h"
#include "backends/tinygrad/host_views.h"
#include "backends/tinygrad/live_graph.h"
#include "backends/tinygrad/python_modules.h"
#include "harness/backend/python_runtime.h"

namespace tl::tinygrad {

namespace py = pybind11;

namespace {

py::list output_indices(const Trace& trace) {
  py::list outputs;
  for (std::size_t index : trace.outputs) outputs.append(index);
  return outputs;
}

py::list indices_of(const std::vector<std::size_t>& ops) {
  py::list indices;
  for (std::size_t index : ops) indices.append(index);
  return indices;
}

// Python's (buffer, owned) per op, or None, as each op's gradient payload.
std::vector<std::optional<Payload>> gradient_payloads(const Trace& trace, const std::vector<std::size_t>& ops,
                                                      const py::list& values, const std::string& how) {
  std::vector<std::optional<Payload>> result;
  for (std::size_t k = 0; k < ops.size(); ++k) {
    const Op& op = trace.ops[ops[k]];
    if (values[k].is_none()) {
      result.emplace_back();
      continue;
    }
    result.emplace_back(payload_from_value(values[k][py::int_(0)], op.dtype, op.shape, "the gradient of " + op.label + how,
                                           values[k][py::int_(1)].cast<bool>()));
  }
  return result;
}

}  // namespace

void TinygradLiveGraph::derive_grads(Trace& trace, const GradOptions& options) const {
  const bool float_output = std::any_of(trace.outputs.begin(), trace.outputs.end(),
                                        [&](std::size_t index) { return trace.ops[index].dtype.is_float(); });
  if (options.loss.empty() && !float_output) {
    throw std::invalid_argument(
        "no output is a float, so the default loss (the sum of the float outputs) has no term: give "
        "GradOptions(loss=...) an expression over `outputs`, or trace without grad_options");
  }
  with_python_errors([&] {
    py::list targets, inputs;
    for (const Op& op : trace.ops) {
      if (!op.dtype.is_float()) continue;
      targets.append(op.index);
      if (op.kind == OpKind::Input) inputs.append(op.index);
    }
    if (py::len(targets) == 0) return;
    const py::tuple derived =
        backend_module("tl_gradients")
            .attr("derive")(live_, payload_views(trace), output_indices(trace), options.loss, targets, inputs);
    const py::list gradients = derived[0];
    const py::dict on_host = derived[1];
    const auto op_at = [&](std::size_t k) -> Op& { return trace.ops[targets[k].cast<std::size_t>()]; };
    for (std::size_t k = 0; k < py::len(targets); ++k) {
      if (on_host.contains(py::int_(k))) continue;
      Op& op = op_at(k);
      op.grad = payload_from_value(gradients[k][py::int_(0)], op.dtype, op.shape, "the gradient of " + op.label,
                                   gradients[k][py::int_(1)].cast<bool>());
    }
    // A gradient that is views of another target's: those views applied to its payload, bases first.
    std::function<const Payload&(std::size_t)> derive_on_host = [&](std::size_t k) -> const Payload& {
      Op& op = op_at(k);
      if (op.grad) return *op.grad;
      const py::tuple view = on_host[py::int_(k)];
      Payload payload = derive_on_host(view[0].cast<std::size_t>());
      for (py::handle uop : view[1]) {
        const std::optional<Movement> movement = host_movement(uop);
        if (!movement) throw std::logic_error("the gradient of " + op.label + " is a view the host cannot apply");
        payload = apply_movement(payload, *movement);
      }
      if (payload.shape != op.shape)
        throw std::logic_error("the gradient of " + op.label + " derived on the host has shape " + shape_string(payload.shape));
      op.grad = std::move(payload);
      return *op.grad;
    };
    for (const auto& entry : on_host) derive_on_host(entry.first.cast<std::size_t>());
  });
}

std::vector<double> TinygradLiveGraph::losses(const Trace& trace, const GradOptions& options,
                                              const std::vector<std::map<std::size_t, Payload>>& replacements) const {
  std::vector<double> result;
  with_python_errors([&] {
    py::list sets;
    for (const auto& replaced : replacements) {
      py::dict set;
      for (const auto& [index, payload] : replaced) set[py::int_(index)] = payload_view(payload);
      sets.append(set);
    }
    const py::list values =
        backend_module("tl_gradients").attr("losses")(live_, payload_views(trace), output_indices(trace), options.loss, sets);
    static const DType wide = *dtype_from_name("float64");
    for (py::handle value : values)
      result.push_back(payload_from_value(value[py::int_(0)], wide, {}, "a loss", value[py::int_(1)].cast<bool>()).element(0));
  });
  return result;
}

std::vector<std::optional<Payload>> TinygradLiveGraph::leaf_gradients(const Trace& trace, const GradOptions& options,
                                                                      const std::vector<std::size_t>& ops) const {
  std::vector<std::optional<Payload>> result;
  with_python_errors([&] {
    const py::list values =
        backend_module("tl_gradients")
            .attr("leaf_gradients")(live_, payload_views(trace), output_indices(trace), options.loss, indices_of(ops));
    result = gradient_payloads(trace, ops, values, " as a leaf");
  });
  return result;
}

std::vector<std::optional<Payload>> TinygradLiveGraph::edge_gradients(const Trace& trace, const GradOptions& options,
                                                                      const std::vector<std::size_t>& ops) const {
  std::vector<std::optional<Payload>> result;
  with_python_errors([&] {
    py::dict grads;
    for (const Op& op : trace.ops)
      if (op.grad && op.dtype.is_float()) grads[py::int_(op.index)] = payload_view(*op.grad);
    const py::list values =
        backend_module("tl_gradients")
            .attr("edge_gradients")(live_, payload_views(trace), output_indices(trace), options.loss, grads, indices_of(ops));
    result = gradient_payloads(trace, ops, values, " one edge at a time");
  });
  return result;
}

std::vector<Payload> TinygradLiveGraph::alone_values(const Trace& trace, const std::vector<std::size_t>& ops) const {
  std::vector<Payload> result;
  with_python_errors([&] {
    py::list indices;
    for (std::size_t index : ops) indices.append(index);
    const py::list values = backend_module("tl_evaluation").attr("alone")(live_, payload_views(trace), indices);
    for (std::size_t k = 0; k < ops.size(); ++k) {
      const Op& op = trace.ops[ops[k]];
      result.push_back(payload_from_value(values[k][py::int_(0)], op.dtype, op.shape, op.label + " evaluated alone",
                                          values[k][py::int_(1)].cast<bool>()));
    }
  });
  return result;
}

std::vector<JudgedOp> TinygradLiveGraph::judged_ops(const Trace& /*trace*/) const {
  std::vector<JudgedOp> ops;
  with_python_errors([&] {
    const py::module_ evaluation = backend_module("tl_evaluation");
    const py::list judged = evaluation.attr("judged_ops")(live_);
    const py::list costs = evaluation.attr("alone_costs")(live_, judged);
    for (std::size_t k = 0; k < judged.size(); ++k)
      ops.push_back({.op = judged[k].cast<std::size_t>(), .cost = costs[k].cast<std::size_t>()});
  });
  return ops;
}

}  // namespace tl::tinygrad
