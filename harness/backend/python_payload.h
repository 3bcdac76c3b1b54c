// Payloads from host arrays: anything numpy reads (an ndarray, a nested list, an object with
// __array__) becomes a payload, the common ground between a Python caller and the harness. Needs the
// GIL and numpy.
#pragma once

#include <pybind11/pybind11.h>

#include "harness/model/payload.h"

namespace tl {

// `value` as a C-contiguous little-endian payload, copied. Throws std::invalid_argument when numpy's
// dtype has no payload dtype (complex, object, strings, ...).
Payload payload_from_array(const pybind11::handle& value);

}  // namespace tl
