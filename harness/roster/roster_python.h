// Roster values as Python objects, for backends that build a row's tensors in Python: a tensor
// tensor becomes a dict with name, dtype, shape, values and source (roster.h's TensorValues).
#pragma once

#include <pybind11/pybind11.h>

#include <vector>

#include "harness/roster/roster.h"

namespace tl {

pybind11::dict tensor_values_dict(const TensorValues& tensor);
pybind11::list tensor_values_list(const std::vector<TensorValues>& tensors);

}  // namespace tl
