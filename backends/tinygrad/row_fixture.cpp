#include "backends/tinygrad/row_fixture.h"

#include <pybind11/eval.h>
#include <pybind11/stl.h>

#include "backends/tinygrad/runtime.h"
#include "harness/backend/python_runtime.h"
#include "harness/io/text_escape.h"
#include "harness/roster/roster_python.h"

namespace tl::tinygrad {
namespace {

// Kept as Python because it *is* Python: the forward is source text from the roster.
constexpr const char* kBuilder = R"PY(
import math, os, textwrap
import numpy as np
from tinygrad import Tensor, dtypes, nn

def _tl_tensor(spec):
    if spec["source"] == "python":
        values = np.array(spec["values"]).reshape(spec["shape"]).tolist()
        return values
    if spec["dtype"] == "bfloat16":
        # numpy has no bfloat16: float32 values cast in tinygrad (to nearest even). From a list it is
        # realized here, before any capture, so it is a realized buffer like any other list tensor.
        array = np.array(spec["values"], dtype=np.float32).reshape(spec["shape"])
        if spec["source"] == "ndarray":
            return Tensor(array).cast(dtypes.bfloat16)
        return Tensor(array.tolist(), dtype=dtypes.float32).cast(dtypes.bfloat16).realize()
    array = np.array(spec["values"], dtype=spec["dtype"]).reshape(spec["shape"])
    if spec["source"] == "ndarray":
        return Tensor(array)
    return Tensor(array.tolist(), dtype=getattr(dtypes, spec["dtype"]))

def _tl_build(row):
    # A path is bytes: a roster file name that is not UTF-8 still names the file in a traceback.
    row["forward_file"] = os.fsdecode(row["forward_file"])
    if row["seed"] is not None:
        Tensor.manual_seed(row["seed"])
    scope = {"Tensor": Tensor, "dtypes": dtypes, "nn": nn, "np": np, "math": math, "source_dir": row["source_dir"]}
    if row["setup"]:
        # Padded so a traceback's line numbers are the roster file's.
        padding = "\n" * max(row["setup_line"] - 1, 0)
        exec(compile(padding + row["setup"], row["forward_file"], "exec"), scope)
    for layer in row["layers"]:
        try:
            built = getattr(nn, layer["type"])(*layer["args"], **layer["kwargs"])
            for spec in layer["set"]:  # e.g. BatchNorm's running statistics, replacing the built ones
                setattr(built, spec["name"], _tl_tensor(spec))
        except Exception as error:
            # The frames here are tinygrad's and this builder's: the note names the row's layer.
            error.add_note(f"while building layer '{layer['name']}' (nn.{layer['type']}) of row '{row['id']}' at {layer['where']}")
            raise
        scope[layer["name"]] = built
    for spec in row["tensors"]:
        scope[spec["name"]] = _tl_tensor(spec)
    inputs = tuple(_tl_tensor(spec) for spec in row["inputs"])
    source = row["forward"].strip()
    try:
        compile(source, "<forward>", "eval")
        body = "return (" + source + ")"
    except SyntaxError:
        body = source
    # Pad with newlines so a traceback's line numbers are the roster file's: the body's first line
    # is the roster's forward_line, the def line just above it.
    padding = "\n" * max(row["forward_line"] - 2, 0)
    params = ", ".join(spec["name"] for spec in row["inputs"])
    code = padding + f"def forward({params}):\n" + textwrap.indent(body, "    ") + "\n"
    exec(compile(code, row["forward_file"], "exec"), scope)
    return scope["forward"], inputs
)PY";

py::object from_json(const nlohmann::json& json) { return py::module_::import("json").attr("loads")(json_text(json)); }

}  // namespace

RowFixture build_row(const RosterRow& row) {
  require_tinygrad();
  RowFixture fixture;
  with_python_errors([&] {
    py::dict scope;
    // Compiled under a name that says where it lives: a traceback through it is not a bare <string>.
    const py::object builtins = py::module_::import("builtins");
    builtins.attr("exec")(
        builtins.attr("compile")(kBuilder, "<tlconform row builder: backends/tinygrad/row_fixture.cpp>", "exec"), scope);
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
    spec["setup_line"] = row.setup_where.line;
    spec["id"] = row.id;
    const py::tuple built = scope["_tl_build"](spec);
    fixture.forward = built[0];
    fixture.inputs = built[1];
  });
  return fixture;
}

}  // namespace tl::tinygrad
