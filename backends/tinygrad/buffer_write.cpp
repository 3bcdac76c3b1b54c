#include "backends/tinygrad/buffer_write.h"

#include "backends/tinygrad/python_modules.h"
#include "backends/tinygrad/tinygrad_api.h"

namespace tl::tinygrad {

namespace py = pybind11;

bool is_buffer_write(const py::handle& uop) {
  if (op_name(uop) != "AFTER") return false;  // most nodes: no call into Python
  return backend_module("tl_buffer_write").attr("is_buffer_write")(uop).cast<bool>();
}

py::tuple op_sources(const py::handle& uop) {
  if (!is_buffer_write(uop)) return uop.attr("src");
  return backend_module("tl_buffer_write").attr("op_sources")(uop);
}

py::object stale_read(const py::list& roots) { return backend_module("tl_buffer_write").attr("stale_read")(roots); }

}  // namespace tl::tinygrad
