#include "backends/tinygrad/python_modules.h"

#include <cstring>
#include <stdexcept>

#include "backends/tinygrad/python_sources.h"

namespace tl::tinygrad {

namespace py = pybind11;

namespace {

bool installed(const py::dict& modules, const char* name) {
  return modules.contains(name) && py::hasattr(modules[name], "__tl_embedded__");
}

void install(const py::dict& modules, const PythonSource& source) {
  const py::module_ builtins = py::module_::import("builtins");
  py::module_ module = py::module_::import("types").attr("ModuleType")(source.module);
  module.attr("__file__") = source.path;
  module.attr("__tl_embedded__") = true;
  modules[source.module] = module;  // before it runs: a module after it imports it by name
  try {
    builtins.attr("exec")(builtins.attr("compile")(source.text, source.path, "exec"), module.attr("__dict__"));
  } catch (...) {
    modules.attr("pop")(source.module);
    throw;
  }
}

}  // namespace

pybind11::module_ backend_module(const char* name) {
  const py::dict modules = py::module_::import("sys").attr("modules");
  // The sources are in dependency order: each is installed with the ones before it, once (a module
  // of the same name from elsewhere, a checkout on sys.path, is replaced). tl_runtime comes first
  // and imports no tinygrad, so asking for it imports none.
  for (const PythonSource& source : kPythonSources) {
    if (!installed(modules, source.module)) install(modules, source);
    if (std::strcmp(source.module, name) == 0) return py::reinterpret_borrow<py::module_>(modules[name]);
  }
  throw std::logic_error(std::string("no embedded Python module ") + name);
}

}  // namespace tl::tinygrad
