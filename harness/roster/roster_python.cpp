#include "harness/roster/roster_python.h"

#include <pybind11/stl.h>

namespace tl {

pybind11::dict tensor_values_dict(const TensorValues& tensor) {
  pybind11::dict dict;
  dict["name"] = tensor.name;
  dict["dtype"] = tensor.dtype;
  dict["shape"] = tensor.shape;
  dict["values"] = tensor.values;
  dict["source"] = tensor.source;
  return dict;
}

pybind11::list tensor_values_list(const std::vector<TensorValues>& tensors) {
  pybind11::list list;
  for (const TensorValues& tensor : tensors) list.append(tensor_values_dict(tensor));
  return list;
}

}  // namespace tl
