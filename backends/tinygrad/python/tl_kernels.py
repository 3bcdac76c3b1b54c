"""The one run: many schedules' kernels as one linear, each distinct kernel run once.

The capture asks tinygrad for many schedules, each a node computed as tinygrad computes it alone.
Those schedules share most of their kernels: the schedule of a deep layer's reduction realizes every
layer before it, exactly as the schedules of those layers' own reductions do. A kernel is a
deterministic function of its program and the bytes it reads, so a kernel whose program (its AST,
hence the same compiled code) and inputs are those of a kernel that already ran in this run writes
the same bits: it is not run again, and its output buffers become the earlier kernel's (tinygrad's
own buffer table maps the BUFFER node to the earlier Buffer, as a BUFFER_VIEW maps to its base).

What a kernel reads is known by identity, not by value: a buffer that existed before the run is
itself; a buffer this run writes is the kernel that wrote it (its program, the identities of what it
read, which output). The schedules themselves are tinygrad's, unchanged: deduplication only decides
which of their kernels must execute, so it cannot change a value. It never skips a kernel that
writes a buffer written twice in the run or that it also reads (an assign, a partial write), nor a
kernel of a schedule marked `keep` (eager's own schedule runs as eager runs it).
"""
from __future__ import annotations

from tinygrad.engine.realize import compile_linear, get_call_arg_uops, get_call_outs_ins
from tinygrad.helpers import GlobalCounters
from tinygrad.uop.ops import Ops, UOp, buffers


class _Identities:
  """Small integers for what buffers hold, so that a key is flat however deep the run: the identity
  of a written buffer names its writer's key, which names the identities it read."""

  def __init__(self):
    self.ids: dict = {}

  def of(self, key) -> int:
    return self.ids.setdefault(key, len(self.ids))


def _identity(uop: UOp, written: dict, ids: _Identities) -> int:
  """What a kernel argument holds: what the run wrote into it, or itself (a buffer that existed
  before the run); a BUFFER_VIEW is its base's identity at an offset."""
  if uop.op is Ops.BUFFER_VIEW: return ids.of(("view", _identity(uop.src[0], written, ids), uop.arg, uop.dtype))
  return written[uop] if uop in written else ids.of(("before", uop))


class KernelRun:
  """Deduplicates the calls of one linear. `calls`: (call, keep) in execution order."""

  def __init__(self, calls: list, var_vals: dict):
    self.var_vals = var_vals
    self.kept: list[UOp] = []
    self.skipped = 0
    # a buffer written by two calls, or read by a call that writes it, is never aliased
    writes: dict[UOp, int] = {}
    in_place: set = set()
    for call, _ in calls:
      args = get_call_arg_uops(call)
      outs, ins = get_call_outs_ins(call)
      for i in outs:
        writes[args[i]] = writes.get(args[i], 0) + 1
        if i in ins: in_place.add(args[i])
    self.unshareable = in_place | {u for u, n in writes.items() if n > 1}
    ids = _Identities()
    written: dict[UOp, int] = {}       # buffer node -> identity of what the run wrote into it
    produced: dict[int, tuple] = {}    # identity of a call -> its output nodes
    for call, keep in calls:
      args = get_call_arg_uops(call)
      outs, ins = get_call_outs_ins(call)
      if call.src[0].op is not Ops.PROGRAM or not outs:
        # a copy or view: cheap, always run; what it writes is its kind over what it reads
        key = ids.of(("call", call.src[0].key, tuple(_identity(args[j], written, ids) for j in ins)))
        for n, i in enumerate(outs): written[args[i]] = ids.of((key, n))
        self.kept.append(call)
        continue
      program = call.src[0]
      reads = tuple(sorted(set(ins) | {i for i in outs if args[i] in written or args[i] in self.unshareable}))
      used_vars = tuple((v.expr, var_vals.get(v.expr)) for v in program.arg.vars)
      key = ids.of((program.key, tuple((i, _identity(args[i], written, ids)) for i in reads), used_vars))
      shareable = not keep and all(args[i].op is Ops.BUFFER and args[i] not in self.unshareable for i in outs)
      earlier = produced.get(key) if shareable else None
      if earlier is not None:
        for i, source in zip(outs, earlier):
          buffers[args[i]] = source.buffer  # the earlier kernel's Buffer: every reader of this node reads it
        self.skipped += 1
      else:
        self.kept.append(call)
        if shareable: produced[key] = tuple(args[i] for i in outs)
      for n, i in enumerate(outs): written[args[i]] = ids.of((key, n))

  def execute(self, run_linear) -> int:
    """Runs the kept calls as one linear; returns how many kernels ran."""
    before = GlobalCounters.kernel_count
    run_linear(UOp(Ops.LINEAR, src=tuple(self.kept)), self.var_vals)
    return GlobalCounters.kernel_count - before


def run_deduplicated(linears: list, var_vals: dict, run_linear) -> KernelRun:
  """Compiles the linears' calls, drops the repeated ones, runs the rest through `run_linear` (one
  evaluation). `linears`: (LINEAR, keep) pairs in execution order."""
  calls = []
  for linear, keep in linears:
    compiled = compile_linear(linear) if linear.src else linear
    calls.extend((call, keep) for call in compiled.src)
  kernels = KernelRun(calls, var_vals)
  kernels.ran = kernels.execute(run_linear)
  return kernels
