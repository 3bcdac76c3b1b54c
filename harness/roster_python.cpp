#include "harness/roster_python.h"

#include <pybind11/stl.h>

namespace tl {

pybind11::dict tensor_spec_dict(const TensorSpec& spec) {
  pybind11::dict dict;
  dict["name"] = spec.name;
  dict["dtype"] = spec.dtype;
  dict["shape"] = spec.shape;
  dict["values"] = spec.values;
  dict["source"] = spec.source;
  return dict;
}

pybind11::list tensor_spec_list(const std::vector<TensorSpec>& specs) {
  pybind11::list list;
  for (const TensorSpec& spec : specs) list.append(tensor_spec_dict(spec));
  return list;
}

}  // namespace tl
