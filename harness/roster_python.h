// Roster values as Python objects, for backends that build a row's tensors in Python: a tensor
// spec becomes a dict with name, dtype, shape, values and source (roster.h's TensorSpec).
#pragma once

#include <pybind11/pybind11.h>

#include <vector>

#include "harness/roster.h"

namespace tl {

pybind11::dict tensor_spec_dict(const TensorSpec& spec);
pybind11::list tensor_spec_list(const std::vector<TensorSpec>& specs);

}  // namespace tl
