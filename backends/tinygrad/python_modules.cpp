#include "backends/tinygrad/python_modules.h"

#include "backends/tinygrad/python_sources.h"

namespace tl::tinygrad {

namespace py = pybind11;

pybind11::module_ backend_module(const char* name) {
  const py::dict modules = py::module_::import("sys").attr("modules");
  // Installed once; a module of the same name from elsewhere (a checkout on sys.path) is replaced.
  const bool installed = modules.contains(name) && py::hasattr(modules[name], "__tl_embedded__");
  if (!installed) {
    const py::object module_type = py::module_::import("types").attr("ModuleType");
    const py::module_ builtins = py::module_::import("builtins");
    for (const PythonSource& source : kPythonSources) {
      py::module_ module = module_type(source.module);
      module.attr("__file__") = source.path;
      module.attr("__tl_embedded__") = true;
      modules[source.module] = module;  // before it runs: the modules after it import it by name
      try {
        builtins.attr("exec")(builtins.attr("compile")(source.text, source.path, "exec"), module.attr("__dict__"));
      } catch (...) {
        modules.attr("pop")(source.module);
        throw;
      }
    }
  }
  return py::reinterpret_borrow<py::module_>(modules[name]);
}

}  // namespace tl::tinygrad
