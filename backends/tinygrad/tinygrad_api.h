// Handles to the tinygrad pieces the backend uses, looked up per use (never kept in statics, so
// nothing Python outlives the interpreter).
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "harness/model/dtype.h"

namespace tl::tinygrad {

namespace py = pybind11;

struct TinygradApi {
  TinygradApi();

  py::module_ tensor_module;   // tinygrad.tensor (all_tensors, _apply_map_to_tensors)
  py::module_ realize_module;  // tinygrad.engine.realize (run_linear)
  py::object Tensor;
  py::object UOp;
  py::object Ops;
  py::object dtypes;
  py::object GlobalCounters;
  py::object transform_to_call;        // tinygrad.callify
  py::object create_linear_with_vars;  // tinygrad.schedule

  bool is_tensor(py::handle object) const { return py::isinstance(object, Tensor); }
  long long kernel_count() const { return GlobalCounters.attr("kernel_count").cast<long long>(); }
};

// A UOp's op name ("ADD", "AFTER", ...).
std::string op_name(const py::handle& uop);

// The payload dtype of a tinygrad dtype; throws std::runtime_error for dtypes payloads cannot carry.
DType payload_dtype(py::handle tinygrad_dtype);

}  // namespace tl::tinygrad
