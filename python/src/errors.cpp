// C++ errors become the classes of tlconform/errors.py, so Python callers catch one set of types:
// a refusal keeps its registry code, backend, op and remedy.
#include <string>

#include <pybind11/pybind11.h>

#include "harness/io/atomic_file.h"
#include "harness/model/errors.h"
#include "harness/model/refusal.h"
#include "harness/model/tlspec.h"
#include "python/src/bindings.h"

namespace tl::python {

namespace py = pybind11;

namespace {

void raise(const char* name, const std::string& message, const py::dict& attributes) {
  const py::object type = py::module_::import("tlconform.errors").attr(name);
  const py::object error = type(message, **attributes);
  PyErr_SetObject(type.ptr(), error.ptr());
}

// By value: pybind11 takes a translator as void(*)(std::exception_ptr).
void translate(std::exception_ptr thrown) {  // NOLINT(performance-unnecessary-value-param)
  try {
    if (thrown) std::rethrow_exception(thrown);
  } catch (const BackendUnsupportedError& error) {
    raise("BackendUnsupportedError", error.what(),
          py::dict(py::arg("code") = std::string(error.code_name()), py::arg("backend") = error.backend(),
                   py::arg("op") = error.op(), py::arg("remedy") = std::string(error.remedy())));
  } catch (const PythonError& error) {
    // Ctrl-C inside the forward stays an interrupt, not an error of the capture.
    if (error.type() == "KeyboardInterrupt") {
      PyErr_SetNone(PyExc_KeyboardInterrupt);
      return;
    }
    if (error.original()) {
      // The forward's own exception, as its own type (tlconform/errors.py, PythonError).
      const py::object made =
          py::module_::import("tlconform.errors")
              .attr("_forward_error")(error.original()->value(), error.type(), error.traceback(), error.what());
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(made.ptr())), made.ptr());
      return;
    }
    raise("PythonError", error.what(), py::dict(py::arg("type_name") = error.type(), py::arg("traceback") = error.traceback()));
  } catch (const CaptureMachineryError& error) {
    raise("CaptureError", error.what(),
          py::dict(py::arg("stage") = error.stage(), py::arg("framework_call") = error.framework_call(),
                   py::arg("type_name") = error.type(), py::arg("traceback") = error.traceback()));
  } catch (const EnvironmentError& error) {
    raise("BackendEnvironmentError", error.what(), py::dict());
  } catch (const TlspecError& error) {
    raise("TlspecError", error.what(), py::dict());
  } catch (const FileWriteError& error) {
    raise("FileWriteError", error.what(),
          py::dict(py::arg("errno") = error.error_number(), py::arg("filename") = error.path(),
                   py::arg("free_bytes") = error.free_bytes() ? py::cast(*error.free_bytes()) : py::none()));
  }
}

}  // namespace

void bind_errors(py::module_& /*module*/) { py::register_exception_translator(translate); }

}  // namespace tl::python
