"""Probes the conformance cells use, kept apart from the backend's own bookkeeping: a counter around
both doors to tinygrad's executor (`EvaluationProbe`), a snapshot of the state a refusal must leave
as it was and what changed between two (`snapshot`, `changes`, one name in `PROBES` each), and
tinygrad's RNG state as text (`rng_state`), and the tensors a row's objects hold (`held_tensors`)."""
from __future__ import annotations

import gc as _gc

import tinygrad.engine.jit as _jit
import tinygrad.engine.realize as _realize
import tinygrad.tensor as _tensor
from tinygrad import Tensor
from tinygrad.helpers import GlobalCounters as _counters

class EvaluationProbe:
  def __init__(self):
    self.count = 0
    self.originals = (_realize.run_linear, _tensor.run_linear)
  def __enter__(self):
    def counting(original):
      def run_linear(*args, **kwargs):
        self.count += 1
        return original(*args, **kwargs)
      return run_linear
    _realize.run_linear = counting(self.originals[0])
    _tensor.run_linear = counting(self.originals[1])
    return self
  def __exit__(self, *exc):
    _realize.run_linear, _tensor.run_linear = self.originals

def snapshot(inputs):
  # Identity, not values, for lazy state: reading a lazy counter would realize it.
  def input_state(t):
    if not isinstance(t, Tensor):
      return ("python", repr(t))
    base = t.uop.base
    data = bytes(base.buffer.as_memoryview()) if base.op.name == "BUFFER" and base.is_realized else None
    return (t.uop, data)
  return {
    "kernels": _counters.kernel_count,
    "inputs": [input_state(t) for t in inputs],
    "seed": Tensor._seed,
    "rng": {(kind, device): tensor.uop for kind, table in (("seeds", Tensor._device_seeds), ("counter", Tensor._device_rng_counters))
        for device, tensor in table.items()},
    "attributes": {**{("Tensor", name): value for name, value in Tensor.__dict__.items()},
           ("TinyJit", "__call__"): _jit.TinyJit.__dict__["__call__"],
           ("tinygrad.tensor", "run_linear"): _tensor.run_linear,
           ("tinygrad.engine.realize", "run_linear"): _realize.run_linear},
    "gc": _gc.isenabled(),
  }

PROBES = ["no_kernel_ran", "inputs_unchanged", "rng_unchanged", "attributes_restored", "gc_enabled"]

def changes(before, after):
  changed = {}
  if after["kernels"] != before["kernels"]:
    changed["no_kernel_ran"] = f"{after['kernels'] - before['kernels']} kernel(s) ran"
  for i, (old, new) in enumerate(zip(before["inputs"], after["inputs"])):
    if old[0] is not new[0] and old[0] != new[0]:
      changed["inputs_unchanged"] = f"input {i}'s graph identity changed"
    elif old[1] != new[1]:
      changed["inputs_unchanged"] = f"input {i}'s bytes changed"
  if before["seed"] != after["seed"] or before["rng"].keys() != after["rng"].keys() or \
      any(before["rng"][key] is not after["rng"][key] for key in before["rng"]):
    changed["rng_unchanged"] = "tinygrad's seed, device seeds or RNG counters changed"
  moved = sorted(f"{owner}.{name}" for owner, name in before["attributes"].keys() | after["attributes"].keys()
         if before["attributes"].get((owner, name)) is not after["attributes"].get((owner, name)))
  if moved:
    changed["attributes_restored"] = "changed: " + ", ".join(moved)
  if not after["gc"] or after["gc"] != before["gc"]:
    changed["gc_enabled"] = "Python's garbage collector is disabled"
  return changed

def rng_state():
  # Read after the outputs: realizing the counters first changes still-lazy random values.
  parts = [f"seed={Tensor._seed}"]
  for device in sorted(Tensor._device_seeds):
    parts.append(f"{device}.seeds={Tensor._device_seeds[device].tolist()}")
  for device in sorted(Tensor._device_rng_counters):
    parts.append(f"{device}.counter={Tensor._device_rng_counters[device].tolist()}")
  return ";".join(parts)


_ROW_NAMES = {"Tensor", "dtypes", "nn", "np", "math", "source_dir", "forward"}


def held_tensors(forward) -> list:
  """Every tensor the row's objects hold, by name: each name the row's setup (or its inputs) bound, as
  tinygrad's get_state_dict walks it (a layer's weights, BatchNorm's running statistics and
  num_batches_tracked, a block's KV cache once made, an assign target): what a forward may write. In
  name order; a name whose objects cannot be walked (a cycle too deep) is left out."""
  import types
  from tinygrad.nn.state import get_state_dict
  found = []
  for name, value in sorted(forward.__globals__.items()):
    if name.startswith("__") or name in _ROW_NAMES or isinstance(value, (type, types.ModuleType, types.FunctionType)): continue
    try:
      state = get_state_dict(value, prefix=name + ".")
    except RecursionError:
      continue
    found.extend(sorted(state.items()))
  return found
