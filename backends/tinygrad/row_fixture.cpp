#include "backends/tinygrad/row_fixture.h"

#include <pybind11/eval.h>
#include <pybind11/stl.h>

#include "backends/tinygrad/python_modules.h"
#include "backends/tinygrad/runtime.h"
#include "harness/backend/python_runtime.h"
#include "harness/io/text_escape.h"
#include "harness/roster/roster_python.h"

namespace tl::tinygrad {
namespace {

py::object from_json(const nlohmann::json& json) { return py::module_::import("json").attr("loads")(json_text(json)); }

}  // namespace

RowFixture build_row(const RosterRow& row) {
  require_tinygrad();
  RowFixture fixture;
  with_python_errors([&] {
    py::dict spec;
    spec["seed"] = row.seed ? py::object(py::int_(*row.seed)) : py::object(py::none());
    py::list layers;
    for (const LayerConfig& layer : row.layers) {
      py::dict entry;
      entry["name"] = layer.name;
      entry["type"] = layer.type;
      entry["where"] = utf8_repaired(layer.where.str());
      entry["args"] = from_json(layer.args);
      entry["kwargs"] = from_json(layer.kwargs);
      py::list set;
      for (const TensorValues& tensor : layer.set) set.append(tensor_values_dict(tensor));
      entry["set"] = set;
      layers.append(entry);
    }
    spec["layers"] = layers;
    py::list tensors;
    for (const TensorValues& tensor : row.tensors) tensors.append(tensor_values_dict(tensor));
    spec["tensors"] = tensors;
    py::list inputs;
    for (const TensorValues& input : row.inputs) inputs.append(tensor_values_dict(input));
    spec["inputs"] = inputs;
    spec["forward"] = row.forward;
    spec["setup"] = row.setup;
    spec["source_dir"] = TL_SOURCE_DIR;
    spec["forward_file"] = py::bytes(row.forward_where.file);
    spec["forward_line"] = row.forward_where.line;
    spec["again"] = row.again;
    spec["again_line"] = row.again_where.line;
    spec["setup_line"] = row.setup_where.line;
    spec["id"] = row.id;
    const py::tuple built = backend_module("tl_row_builder").attr("build")(spec);
    fixture.forward = built[0];
    fixture.inputs = built[1];
    fixture.again = built[2];
  });
  return fixture;
}

}  // namespace tl::tinygrad
