"""Guards around a traced forward: each patch replaces a tinygrad function while the forward runs
and raises, before doing anything, where the forward asks for what a capture cannot honour (running
a kernel, writing into an input, drawing random numbers). `install` returns a mark and `uninstall`
undoes exactly the patches made since it. A capture does not nest: one started inside a traced
forward (tl.trace called by the forward) is refused as it is asked for, before its own forward runs,
since it would evaluate its graph, running tinygrad inside the outer capture. The patches are Python
because they replace Python functions."""
from __future__ import annotations

import threading

import tinygrad.engine.jit as _jit
import tinygrad.engine.realize as _realize
import tinygrad.tensor as _tensor
from tinygrad import Tensor

class TlRefusal(Exception):
  def __init__(self, code, message):
    super().__init__(message)
    self.code = code

_patches = []
_capturing = []  # (mark, thread) of each capture whose guards are installed

def _patch(owner, name, make):
  """Replaces owner.name with make(original), keeping the original for uninstall."""
  original = owner.__dict__[name]
  _patches.append((owner, name, original))
  static = isinstance(original, staticmethod)
  replacement = make(original.__func__ if static else original)
  setattr(owner, name, staticmethod(replacement) if static else replacement)

class _PerThreadMetadata:
  """tinygrad's _METADATA (the method name an op is labelled with) is one value for the whole
  process: while the forward runs, its thread keeps its own, so another thread's tinygrad call
  (a .numpy() at the same moment) cannot label the forward's ops, nor the forward its."""
  def __init__(self, shared, owner):
    self.shared, self.owner, self.local = shared, owner, threading.local()
  def get(self):
    if threading.get_ident() != self.owner: return self.shared.get()
    return getattr(self.local, "state", None)
  def set(self, value):
    if threading.get_ident() != self.owner: return self.shared.set(value)
    previous = getattr(self.local, "state", None)
    self.local.state = value
    return previous

def install(inputs):
  mark = len(_patches)  # each capture undoes only its own patches
  owner = threading.get_ident()  # the tracing thread: only its calls are the forward's
  if any(thread == owner for _, thread in _capturing):
    raise TlRefusal("mid_capture_execution_unsupported",
                    "tl.trace was called inside a traced forward: a capture evaluates its forward's graph once it "
                    "returns, which would run tinygrad inside the outer capture; trace the inner function on its own")
  _capturing.append((mark, owner))
  input_tensors = [t for t in inputs if isinstance(t, Tensor)]
  input_uops = {t.uop for t in input_tensors}
  input_bases = {t.uop.base for t in input_tensors}
  def writes_input(tensor):
    return tensor.uop in input_uops or tensor.uop.base in input_bases

  def forward_only(check):
    """A guard that looks at calls from the tracing thread; other threads call tinygrad as usual."""
    def make(original):
      def guarded(*args, **kwargs):
        if threading.get_ident() == owner: check(*args, **kwargs)
        return original(*args, **kwargs)
      return guarded
    return make

  def executing(what):
    def refuse(*args, **kwargs):
      raise TlRefusal("mid_capture_execution_unsupported", f"{what} was called inside the traced forward")
    return forward_only(refuse)
  _patch(Tensor, "realize", executing("Tensor.realize() (or numpy/tolist/item/data, which realize)"))
  _patch(_jit.TinyJit, "__call__", executing("a TinyJit function"))
  _patch(_tensor, "run_linear", executing("tinygrad's executor"))
  _patch(_realize, "run_linear", executing("tinygrad's executor"))

  def mutating(name):
    def refuse_input(self, *args, **kwargs):
      if writes_input(self):
        raise TlRefusal("input_mutation_unsupported", f"Tensor.{name} writes into an input of the traced forward")
    return forward_only(refuse_input)
  for name in ("assign", "replace", "__setitem__"):
    _patch(Tensor, name, mutating(name))

  def drawing(what):
    def refuse(*args, **kwargs):
      raise TlRefusal("rng_state_in_graph", f"{what} inside the traced forward")
    return forward_only(refuse)
  _patch(Tensor, "_next_counter", drawing("a random draw (Tensor.rand, randn, randint, dropout, ...)"))
  _patch(Tensor, "manual_seed", drawing("Tensor.manual_seed"))
  _patch(_tensor, "_METADATA", lambda shared: _PerThreadMetadata(shared, owner))
  return mark

def uninstall(mark):
  while _capturing and _capturing[-1][0] >= mark:
    _capturing.pop()
  while len(_patches) > mark:
    owner, name, original = _patches.pop()
    setattr(owner, name, original)
