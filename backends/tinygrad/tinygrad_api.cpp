#include "backends/tinygrad/tinygrad_api.h"

#include <stdexcept>

namespace tl::tinygrad {

TinygradApi::TinygradApi()
    : tensor_module(py::module_::import("tinygrad.tensor")),
      realize_module(py::module_::import("tinygrad.engine.realize")),
      Tensor(tensor_module.attr("Tensor")),
      UOp(py::module_::import("tinygrad.uop.ops").attr("UOp")),
      Ops(py::module_::import("tinygrad.uop.ops").attr("Ops")),
      dtypes(py::module_::import("tinygrad.dtype").attr("dtypes")),
      GlobalCounters(py::module_::import("tinygrad.helpers").attr("GlobalCounters")),
      transform_to_call(py::module_::import("tinygrad.callify").attr("transform_to_call")),
      create_linear_with_vars(py::module_::import("tinygrad.schedule").attr("create_linear_with_vars")) {}

DType payload_dtype(py::handle tinygrad_dtype) {
  const py::object scalar = tinygrad_dtype.attr("scalar")();
  const auto name = scalar.attr("name").cast<std::string>();
  if (tinygrad_dtype.attr("count").cast<int>() != 1) throw std::runtime_error("vector dtype " + name + " has no payload form");
  static constexpr struct {
    const char* tinygrad;
    const char* payload;
  } kNames[] = {{"bool", "bool"},
                {"signed char", "int8"},
                {"short", "int16"},
                {"int", "int32"},
                {"long", "int64"},
                {"unsigned char", "uint8"},
                {"unsigned short", "uint16"},
                {"unsigned int", "uint32"},
                {"unsigned long", "uint64"},
                {"float8_e4m3", "float8_e4m3fn"},
                {"float8_e5m2", "float8_e5m2"},
                {"float8_e4m3fnuz", "float8_e4m3fnuz"},
                {"float8_e5m2fnuz", "float8_e5m2fnuz"},
                {"half", "float16"},
                {"__bf16", "bfloat16"},
                {"float", "float32"},
                {"double", "float64"}};
  for (const auto& entry : kNames) {
    if (name == entry.tinygrad) return *dtype_from_name(entry.payload);
  }
  throw std::runtime_error("tinygrad dtype '" + name + "' has no payload form");
}

std::string op_name(const py::handle& uop) { return uop.attr("op").attr("name").cast<std::string>(); }

}  // namespace tl::tinygrad
