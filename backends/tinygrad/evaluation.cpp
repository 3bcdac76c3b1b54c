#include "backends/tinygrad/evaluation.h"

#include <cstring>
#include <stdexcept>
#include <string>

#include "backends/tinygrad/python_modules.h"

namespace tl::tinygrad {

namespace py = pybind11;

Payload empty_payload_of(const py::handle& node) {
  Payload payload{payload_dtype(node.attr("dtype")), {}, {}};
  for (py::handle dim : node.attr("shape")) payload.shape.push_back(dim.cast<std::int64_t>());
  return payload;
}

Payload payload_from_value(const py::handle& value, const DType& dtype, const std::vector<std::int64_t>& shape,
                           const std::string& what, bool free) {
  Payload payload{dtype, shape, {}};
  const auto expected = static_cast<std::size_t>(payload.numel()) * dtype.itemsize;
  if (value.is_none()) {
    if (expected != 0) throw std::runtime_error(what + " was not evaluated");
    return payload;
  }
  {
    // the memoryview is released before its buffer may be freed
    const py::buffer view = py::isinstance<py::bytes>(value) ? py::buffer(py::reinterpret_borrow<py::object>(value))
                                                             : py::buffer(value.attr("as_memoryview")());
    const py::buffer_info info = view.request();
    const auto size = static_cast<std::size_t>(info.size * info.itemsize);
    if (size != expected) {
      throw std::runtime_error(what + " holds " + std::to_string(size) + " bytes, not the " + std::to_string(expected) + " of " +
                               dtype.name + shape_string(shape));
    }
    payload.bytes.resize(size);
    if (size != 0) std::memcpy(payload.bytes.data(), info.ptr, size);
  }
  if (free) value.attr("deallocate")();
  return payload;
}

py::tuple payload_view(const Payload& payload) {
  py::tuple shape(payload.shape.size());
  for (std::size_t i = 0; i < payload.shape.size(); ++i) shape[i] = py::int_(payload.shape[i]);
  const py::memoryview view = py::memoryview::from_memory(payload.bytes.data(), static_cast<py::ssize_t>(payload.bytes.size()));
  return py::make_tuple(view, payload.dtype.name, shape);
}

CaptureEvaluation evaluate_capture(const std::vector<py::object>& nodes, const std::vector<bool>& requested,
                                   const std::vector<py::object>& roots, CaptureStats& stats) {
  const TinygradApi api;
  py::list node_list, mask, root_list;
  for (const py::object& node : nodes) node_list.append(node);
  for (bool wanted : requested) mask.append(py::bool_(wanted));
  for (const py::object& root : roots) root_list.append(root);
  // Eager realize re-points every live tensor that reaches a realized node; so does the capture.
  const py::object apply_map =
      py::cpp_function([&api](const py::dict& map) { api.tensor_module.attr("_apply_map_to_tensors")(map, "tl capture"); });
  const py::object captured = backend_module("tl_evaluation").attr("capture")(node_list, mask, root_list, apply_map);
  stats.evaluations = 1;
  stats.kernels = captured.attr("kernels").cast<int>();

  CaptureEvaluation result;
  const py::list values = captured.attr("values"), owned = captured.attr("owned");
  for (std::size_t i = 0, k = 0; i < nodes.size(); ++i) {
    if (!requested[i]) continue;
    const Payload shape = empty_payload_of(nodes[i]);
    result.payloads.push_back(payload_from_value(values[k], shape.dtype, shape.shape,
                                                 "node " + std::to_string(i) + " (" + op_name(nodes[i]) + ")",
                                                 owned[k].cast<bool>()));
    ++k;
  }
  const py::list root_values = captured.attr("root_values");
  for (std::size_t r = 0; r < roots.size(); ++r) {
    const Payload shape = empty_payload_of(roots[r]);
    if (root_values[r].is_none() && shape.numel() != 0) {
      result.root_payloads.emplace_back();  // a view of what eager realized: derived from its parent
      continue;
    }
    result.root_payloads.emplace_back(
        payload_from_value(root_values[r], shape.dtype, shape.shape, "output " + std::to_string(r)));
  }
  result.live = captured.attr("live");
  return result;
}

}  // namespace tl::tinygrad
