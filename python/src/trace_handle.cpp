#include "python/src/trace_handle.h"

#include <stdexcept>
#include <string>

#include "harness/backend/backend_registry.h"
#include "harness/judge/replay_validation.h"

namespace tl::python {

namespace py = pybind11;

py::object payload_numpy(const PayloadView& view) {
  const py::module_ numpy = py::module_::import("numpy");
  const Payload& payload = *view.payload;
  py::tuple shape(payload.shape.size());
  for (std::size_t i = 0; i < payload.shape.size(); ++i) shape[i] = py::int_(payload.shape[i]);
  if (payload.dtype.numpy_lacks()) {
    // widened (exactly) to float32, as tinygrad's Tensor.numpy() does
    const std::vector<double> values = payload.to_doubles();
    return numpy.attr("array")(py::cast(values), py::arg("dtype") = "float32").attr("reshape")(shape);
  }
  // Payload bytes are little-endian whatever the host's order; "<" says so to numpy.
  const py::object dtype = numpy.attr("dtype")(payload.dtype.name).attr("newbyteorder")("<");
  return numpy.attr("frombuffer")(py::cast(PayloadBytes{view}), py::arg("dtype") = dtype).attr("reshape")(shape);
}

namespace {

// `given` as a payload of `dtype` when that is bfloat16 or a float8 given as float32 whose every value
// that dtype holds exactly; `given` otherwise.
Payload narrowed_if_exact(const Payload& given, const DType& dtype) {
  if (!dtype.numpy_lacks() || given.dtype.name != "float32") return given;
  Payload narrowed = Payload::from_doubles(dtype, given.shape, given.to_doubles());
  const Payload widened_back = Payload::from_doubles(given.dtype, given.shape, narrowed.to_doubles());
  // not that dtype's values: the dtype check names the mismatch
  return compare(given, widened_back).equal ? narrowed : given;
}

}  // namespace

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
  if (!trace.has_live_payloads()) validate(trace, {});
  if (!py::isinstance<py::list>(outputs) && !py::isinstance<py::tuple>(outputs)) {
    throw py::type_error("outputs must be a list or tuple of the forward's outputs (tensors or arrays)");
  }
  const std::unique_ptr<Engine> engine = backends::spec(trace.backend).engine();
  const py::module_ numpy = py::module_::import("numpy");
  const py::tuple numpy_types = py::make_tuple(numpy.attr("ndarray"), numpy.attr("generic"));
  std::vector<Payload> payloads;
  for (py::handle output : outputs) {
    payloads.push_back(engine->payload_of(output));
    // numpy has no bfloat16 or float8: tinygrad's .numpy() widens them to float32, exactly. Such an
    // array is the output's values when every one of them narrows back exactly.
    const std::size_t k = payloads.size() - 1;
    if (k < trace.outputs.size() && PyObject_IsInstance(output.ptr(), numpy_types.ptr()) == 1)
      payloads[k] = narrowed_if_exact(payloads[k], trace.ops[trace.outputs[k]].dtype);
  }
  return payloads;
}

}  // namespace tl::python
