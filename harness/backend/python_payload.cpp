#include "harness/backend/python_payload.h"

#include <stdexcept>
#include <string>

namespace tl {

namespace py = pybind11;

Payload payload_from_array(const py::handle& value) {
  const py::module_ numpy = py::module_::import("numpy");
  // asarray, not ascontiguousarray: that one makes a 0-d array 1-d.
  py::object array = numpy.attr("asarray")(value, py::arg("order") = "C");
  py::object dtype = array.attr("dtype");
  // Payload bytes are little-endian; numpy may hold big-endian data.
  if (dtype.attr("byteorder").cast<std::string>() == ">") {
    dtype = dtype.attr("newbyteorder")("<");
    array = array.attr("astype")(dtype);
  }
  const auto name = dtype.attr("name").cast<std::string>();
  const std::optional<DType> payload_dtype = dtype_from_name(name);
  if (!payload_dtype) throw std::invalid_argument("numpy dtype " + name + " has no payload dtype");
  Payload payload{*payload_dtype, {}, {}};
  for (py::handle dim : array.attr("shape")) payload.shape.push_back(dim.cast<std::int64_t>());
  const std::string bytes = array.attr("tobytes")().cast<py::bytes>();
  payload.bytes.assign(bytes.begin(), bytes.end());
  return payload;
}

}  // namespace tl
