// The doctor rows for Python: the same rows `tlconform doctor` prints, from the running interpreter.
#include <pybind11/stl.h>

#include <string>

#include "harness/backend/backend_registry.h"
#include "harness/report/doctor.h"
#include "python/src/bindings.h"

namespace tl::python {

namespace py = pybind11;

void bind_report(py::module_& module) {
  py::class_<DoctorRow>(module, "DoctorRow", "A fact about the environment or a backend's health.")
      .def_readonly("name", &DoctorRow::name)
      .def_property_readonly(
          "status", [](const DoctorRow& r) { return std::string(to_string(r.status)); }, "ok, warning, missing or failed")
      .def_readonly("value", &DoctorRow::value)
      .def_readonly("hint", &DoctorRow::hint)
      .def("__repr__", [](const DoctorRow& r) { return "<DoctorRow " + r.name + ": " + std::string(to_string(r.status)) + ">"; });
  module.def(
      "doctor_rows",
      [](const std::string& backend, const std::string& scorecard) { return doctor_rows(backends::spec(backend), scorecard); },
      py::arg("backend"), py::arg("scorecard"), "Doctor rows for `backend`, its scorecard row read from `scorecard`.");
  module.def("doctor_text", &doctor_text, py::arg("rows"));
}

}  // namespace tl::python
