// A forward's write into a buffer, AFTER(buffer, STORE(view of buffer, value)) (tinygrad.llm's KV
// cache), recorded as one op over two parents: the buffer before the write and the written value.
// The rules live in python/tl_buffer_write.py; the graph walk asks them through these.
#pragma once

#include <pybind11/pybind11.h>

namespace tl::tinygrad {

// Whether `uop` is an AFTER of that form, its target an invertible view (reshape, shrink, permute,
// flip). Any other AFTER is not: what it writes would be a hole in the trace.
bool is_buffer_write(const pybind11::handle& uop);

// The sources an op is defined over: (buffer, value) for a buffer write, its `src` otherwise.
pybind11::tuple op_sources(const pybind11::handle& uop);

// The first node of the outputs' graph that reads a buffer as an earlier write left it, after a later
// write into that buffer (outside that write's own target and value), or None. Tinygrad 0.13 runs
// the later write first, so eager's read sees the later value: no trace can hold both.
pybind11::object stale_read(const pybind11::list& roots);

}  // namespace tl::tinygrad
