// Backends for Python: the registered specs (requirement fields, capabilities with states computed
// from a scorecard, refusal codes), their protocols (validate returns the full status), and the one
// refusal registry.
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <string>

#include "harness/backend/backend_registry.h"
#include "harness/backend/capabilities.h"
#include "harness/judge/protocol.h"
#include "harness/model/refusal.h"
#include "harness/report/scorecard.h"
#include "python/src/bindings.h"
#include "python/src/trace_handle.h"

namespace tl::python {

namespace py = pybind11;

namespace {

// The requirement table exactly as spec_json (and so `tlconform spec --json`) has it.
std::map<std::string, std::string> requirements(const BackendSpec& spec) {
  return spec_json(spec).get<std::map<std::string, std::string>>();
}

void bind_registry(py::module_& module) {
  py::class_<RefusalInfo>(module, "RefusalInfo", "One code of the refusal registry.")
      .def_property_readonly("code", [](const RefusalInfo& r) { return std::string(r.name()); })
      .def_property_readonly("meaning", [](const RefusalInfo& r) { return std::string(r.meaning); })
      .def_property_readonly("belongs_to", [](const RefusalInfo& r) { return std::string(r.belongs_to); })
      .def_property_readonly("instead", [](const RefusalInfo& r) { return std::string(r.instead); })
      .def_property_readonly(
          "backend", [](const RefusalInfo& r) { return std::string(r.backend); }, "'' for a shared code")
      .def("__repr__", [](const RefusalInfo& r) { return "<RefusalInfo " + std::string(r.name()) + ">"; });
  module.def("refusal_registry", &refusal_registry, py::return_value_policy::reference,
             "Every refusal code: the shared ones, then those the linked backends added.");
}

void bind_capabilities(py::module_& module) {
  py::class_<CapabilityRow>(module, "CapabilityRow", "A row of the can-and-cannot table, its state computed from cells.")
      .def_property_readonly("name", [](const CapabilityRow& r) { return r.capability.name; })
      .def_property_readonly("is_flag", [](const CapabilityRow& r) { return r.capability.is_flag; })
      .def_property_readonly("declared_supported", [](const CapabilityRow& r) { return r.capability.declared_supported; })
      .def_property_readonly("refusal", [](const CapabilityRow& r) { return r.capability.refusal; })
      .def_property_readonly("notes", [](const CapabilityRow& r) { return r.capability.notes; })
      .def_property_readonly("cells", [](const CapabilityRow& r) { return r.capability.cells; })
      .def_property_readonly(
          "state", [](const CapabilityRow& r) { return std::string(to_string(r.state)); }, "supported, unsupported or untested")
      .def_readonly("why", &CapabilityRow::why)
      .def("__repr__", [](const CapabilityRow& r) {
        return "<CapabilityRow " + r.capability.name + ": " + std::string(to_string(r.state)) + ">";
      });
}

void bind_protocol(py::module_& module) {
  py::class_<BackendProtocol, std::unique_ptr<BackendProtocol>>(module, "Protocol", "The surface the conformance suite drives.")
      .def_property_readonly("name", &BackendProtocol::name)
      .def(
          "validate",
          [](BackendProtocol& protocol, const std::shared_ptr<TraceHandle>& trace, const py::object& outputs) {
            return protocol.validate(*trace->snapshot, ground_truth(*trace->snapshot, outputs));
          },
          py::arg("trace"), py::arg("outputs"), "Replay validation: the status with state, message and per-op decisions.");
}

void bind_spec(py::module_& module) {
  py::class_<BackendSpec>(module, "BackendSpec", "A registered backend: its page's requirement table and more.")
      .def_readonly("name", &BackendSpec::name)
      .def_readonly("distribution", &BackendSpec::distribution)
      .def_readonly("supported_range", &BackendSpec::supported_range)
      .def_readonly("pinned_version", &BackendSpec::pinned_version)
      .def_readonly("install_extra", &BackendSpec::install_extra)
      .def_readonly("spec_install_extra", &BackendSpec::spec_install_extra)
      .def_readonly("maturity", &BackendSpec::maturity)
      .def_readonly("materialization", &BackendSpec::materialization)
      .def_readonly("device", &BackendSpec::device)
      .def_readonly("layer_types", &BackendSpec::layer_types)
      .def("requirements", &requirements, "The requirement table as `tlconform spec --json` prints it.")
      .def("capabilities", &capability_rows_from, py::arg("scorecard"),
           "The capability table, states from the cells of the pinned-leg scorecard at `scorecard`.")
      .def("protocol", &protocol_of,
           "The surface the conformance suite drives: this backend's engine under the harness's judge.");
  module.def("spec", &backends::spec, py::arg("name"), py::return_value_policy::reference,
             "The registered backend `name`; an unknown name refuses with backend_unknown.");
  module.def("backend_names", &backends::names);
}

}  // namespace

void bind_backends(py::module_& module) {
  bind_registry(module);
  bind_capabilities(module);
  bind_protocol(module);
  bind_spec(module);
}

}  // namespace tl::python
