// A forward's write into a buffer, AFTER(buffer, STORE(view of buffer, value)) (tinygrad.llm's KV
// cache), recorded as one op over two parents: the buffer before the write and the written value.
// The STORE is void and its target is a view of the buffer, so both are part of the op's
// definition, as a movement op's shape arguments are.
#pragma once

#include <pybind11/pybind11.h>

#include "backends/tinygrad/tinygrad_api.h"

namespace tl::tinygrad {

// Whether `uop` is an AFTER of that form, its target an invertible view (reshape, shrink, permute,
// flip). Any other AFTER (over a kernel CALL, a STORE into some other buffer or through an expand)
// is not: what it writes would be a hole in the trace.
bool is_buffer_write(const py::handle& uop);

// The sources an op is defined over: (buffer, value) for a buffer write, its `src` otherwise.
py::tuple op_sources(const py::handle& uop);

// A buffer write like `original` over new sources: AFTER(buffer, STORE(same view of buffer, value)).
py::object rebuild_buffer_write(const TinygradApi& api, const py::handle& original, const py::object& buffer,
                                const py::object& value);

// The same values as a pure function of (buffer, value), with no STORE: the value moved back into
// the buffer's shape through the inverse of the target view, selected where it was written. Its
// gradient is the written region's for the value and the rest for the buffer; tinygrad's own rule
// for a STORE passes the whole buffer's gradient to the value, which is wrong for a partial write.
py::object functional_buffer_write(const TinygradApi& api, const py::handle& write);

}  // namespace tl::tinygrad
