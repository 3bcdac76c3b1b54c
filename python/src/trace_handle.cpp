#include "python/src/trace_handle.h"

#include <stdexcept>
#include <string>

#include "harness/backend/backend_registry.h"

namespace tl::python {

namespace py = pybind11;

py::object payload_numpy(const PayloadView& view) {
  const py::module_ numpy = py::module_::import("numpy");
  const Payload& payload = *view.payload;
  py::tuple shape(payload.shape.size());
  for (std::size_t i = 0; i < payload.shape.size(); ++i) shape[i] = py::int_(payload.shape[i]);
  if (payload.dtype.name == "bfloat16" || payload.dtype.name.starts_with("float8")) {
    // numpy has neither: widen (exactly) to float32, as tinygrad's Tensor.numpy() does.
    const std::vector<double> values = payload.to_doubles();
    return numpy.attr("array")(py::cast(values), py::arg("dtype") = "float32").attr("reshape")(shape);
  }
  // Payload bytes are little-endian whatever the host's order; "<" says so to numpy.
  const py::object dtype = numpy.attr("dtype")(payload.dtype.name).attr("newbyteorder")("<");
  return numpy.attr("frombuffer")(py::cast(PayloadBytes{view}), py::arg("dtype") = dtype).attr("reshape")(shape);
}

OpView op_at(const std::shared_ptr<TraceHandle>& trace, const py::handle& key) {
  const Trace& snapshot = *trace->snapshot;
  if (py::isinstance<py::str>(key)) {
    const auto label = key.cast<std::string>();
    for (const Op& op : snapshot.ops) {
      if (op.label == label) return {trace, op.index};
    }
    throw py::key_error("no op labelled '" + label + "'");
  }
  if (!py::isinstance<py::int_>(key) || py::isinstance<py::bool_>(key)) {
    throw py::type_error("ops are looked up by int index or str label");
  }
  // Any int: one past what an index can hold (2**63) is clamped, so it is out of range like any other.
  auto index = static_cast<long long>(PyNumber_AsSsize_t(key.ptr(), nullptr));
  const auto size = static_cast<long long>(snapshot.size());
  if (index < 0) index += size;
  if (index < 0 || index >= size) throw py::index_error("op index out of range (the trace has " + std::to_string(size) + " ops)");
  return {trace, static_cast<std::size_t>(index)};
}

std::vector<Payload> ground_truth(const Trace& trace, const py::handle& outputs) {
  // Refuse first: reading a lazy tensor would evaluate it, a side effect the refusal must precede.
  if (!trace.has_live_payloads()) trace.validate({});
  if (!py::isinstance<py::list>(outputs) && !py::isinstance<py::tuple>(outputs)) {
    throw py::type_error("outputs must be a list or tuple of the forward's outputs (tensors or arrays)");
  }
  const std::unique_ptr<BackendProtocol> protocol = backends::spec(trace.backend).protocol();
  std::vector<Payload> payloads;
  for (py::handle output : outputs) payloads.push_back(protocol->payload_of(output));
  return payloads;
}

}  // namespace tl::python
