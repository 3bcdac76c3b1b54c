"""A roster row's objects, built in Python because a row *is* Python: its layers (default-init
tinygrad.nn layers after seeding the RNG), closure tensors and inputs from their values, its
`setup`, and its forward compiled from the roster's source text, each padded so that a traceback
names the roster file's own lines."""
from __future__ import annotations

import math
import os
import textwrap

import numpy as np
from tinygrad import Tensor, dtypes, nn

from tl_runtime import tinygrad_dtype_name

def tensor_of(spec):
  if spec["source"] == "python":
    values = np.array(spec["values"]).reshape(spec["shape"]).tolist()
    return values
  dtype = getattr(dtypes, tinygrad_dtype_name(spec["dtype"]))
  if dtype == dtypes.bfloat16 or dtype in dtypes.fp8s:
    # numpy has neither: float32 values cast in tinygrad (as tinygrad rounds). From a list it is
    # realized here, before any capture, so it is a realized buffer like any other list tensor.
    array = np.array(spec["values"], dtype=np.float32).reshape(spec["shape"])
    if spec["source"] == "ndarray":
      return Tensor(array).cast(dtype)
    return Tensor(array.tolist(), dtype=dtypes.float32).reshape(array.shape).cast(dtype).realize()
  array = np.array(spec["values"], dtype=spec["dtype"]).reshape(spec["shape"])
  if spec["source"] == "ndarray":
    return Tensor(array)
  # A nested list cannot say (2, 0, 3): it reads [[], []], (2, 0). The reshape gives the declared
  # shape back (a view of the same buffer; a no-op where nothing is empty).
  return Tensor(array.tolist(), dtype=dtype).reshape(array.shape)

def build(row):
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
        setattr(built, spec["name"], tensor_of(spec))
    except Exception as error:
      # The frames here are tinygrad's and this builder's: the note names the row's layer.
      error.add_note(f"while building layer '{layer['name']}' (nn.{layer['type']}) of row '{row['id']}' at {layer['where']}")
      raise
    scope[layer["name"]] = built
  for spec in row["tensors"]:
    scope[spec["name"]] = tensor_of(spec)
  inputs = tuple(tensor_of(spec) for spec in row["inputs"])
  params = ", ".join(spec["name"] for spec in row["inputs"])

  def define(name, source, line):
    source = source.strip()
    try:
      compile(source, "<forward>", "eval")
      body = "return (" + source + ")"
    except SyntaxError:
      body = source
    # Pad with newlines so a traceback's line numbers are the roster file's: the body's first line
    # is the roster's line, the def line just above it.
    padding = "\n" * max(line - 2, 0)
    exec(compile(padding + f"def {name}({params}):\n" + textwrap.indent(body, "    ") + "\n", row["forward_file"], "exec"), scope)
    return scope[name]

  forward = define("forward", row["forward"], row["forward_line"])
  # `again:`: the second call, over the same inputs and objects (a later start_pos)
  return forward, inputs, define("again", row["again"], row["again_line"]) if row["again"] else None
