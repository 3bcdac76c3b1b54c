"""Kernels by identity: what a kernel computes is its program and what it reads, so a kernel that
repeats one that already ran need not run again.

A kernel is a deterministic function of its program and the bytes it reads. So a kernel whose program
(its AST, hence the same compiled code) and inputs are those of a kernel that already ran in this run
writes the same bits: it is not run again, and its output buffers become the earlier kernel's
(tinygrad's own buffer table maps the BUFFER node to the earlier Buffer, as a BUFFER_VIEW maps to its
base).

What a kernel reads is known by identity, not by value (`Identities`): a buffer that existed before
the run is itself; a buffer the run writes is the kernel that wrote it (its program, the identities
of what it read, which output). The schedules themselves are tinygrad's, unchanged: deduplication
only decides which of their kernels must execute, so it cannot change a value. It never skips a
kernel that writes a buffer written twice in the run or that it also reads (an assign, a partial
write), nor one that writes a buffer that existed before the run (a forward's write into its
model's state). A kernel of eager's own schedule whose outputs become tensors the user holds (`live`)
may take a request's buffer, which the capture then never frees, but never one another live tensor
holds.
"""
from __future__ import annotations

from tinygrad.engine.realize import compile_linear, get_call_arg_uops, get_call_outs_ins
from tinygrad.helpers import GlobalCounters
from tinygrad.uop.ops import Ops, UOp, buffers


class Identities:
  """Small integers for what buffers hold, so that a key is flat however deep the run: the identity
  of a written buffer names its writer's key, which names the identities it read."""

  def __init__(self, var_vals: dict | None = None):
    self.ids: dict = {}
    self.written: dict[UOp, int] = {}  # buffer node -> identity of what the run wrote into it
    self.var_vals = var_vals or {}

  def of(self, key) -> int:
    return self.ids.setdefault(key, len(self.ids))

  def holds(self, uop: UOp) -> int:
    """What a kernel argument holds: what the run wrote into it, or itself (a buffer that existed
    before the run); a BUFFER_VIEW is its base's identity at an offset."""
    if uop.op is Ops.BUFFER_VIEW: return self.of(("view", self.holds(uop.src[0]), uop.arg, uop.dtype))
    return self.written[uop] if uop in self.written else self.of(("before", uop))

  def key(self, call: UOp, also_read: frozenset = frozenset()) -> int:
    """The identity of what a call computes: its program over the identities of what it reads (and
    of the outputs it writes in place, `also_read`), with the variables its program uses."""
    args = get_call_arg_uops(call)
    outs, ins = get_call_outs_ins(call)
    if call.src[0].op is not Ops.PROGRAM: return self.of(("call", call.src[0].key, tuple(self.holds(args[j]) for j in ins)))
    reads = tuple(sorted(set(ins) | {i for i in outs if args[i] in self.written or args[i] in also_read}))
    used_vars = tuple((v.expr, self.var_vals.get(v.expr)) for v in call.src[0].arg.vars)
    return self.of((call.src[0].key, tuple((i, self.holds(args[i])) for i in reads), used_vars))

  def wrote(self, call: UOp, key: int) -> list:
    """Records what the call's outputs hold now; returns their identities, in output order."""
    args = get_call_arg_uops(call)
    outs, _ = get_call_outs_ins(call)
    out_ids = [self.of((key, n)) for n in range(len(outs))]
    for i, identity in zip(outs, out_ids): self.written[args[i]] = identity
    return out_ids


def unshareable(calls: list) -> set:
  """The buffers a call writes that must keep their own Buffer: written by two calls, or read by a
  call that writes them."""
  writes: dict[UOp, int] = {}
  in_place: set = set()
  for call in calls:
    args = get_call_arg_uops(call)
    outs, ins = get_call_outs_ins(call)
    for i in outs:
      writes[args[i]] = writes.get(args[i], 0) + 1
      if i in ins: in_place.add(args[i])
  return in_place | {u for u, n in writes.items() if n > 1}


def alias(call: UOp, holders: tuple):
  """Makes each output of a call that does not run the Buffer of the node that holds its value."""
  args = get_call_arg_uops(call)
  outs, _ = get_call_outs_ins(call)
  for i, holder in zip(outs, holders): buffers[args[i]] = holder.buffer


def shareable_outputs(call: UOp, fixed: set) -> bool:
  """Whether a call's outputs may become an earlier call's: a program's, into buffers the run makes
  (a buffer that existed before the run is a forward's write into its model's state, which happens)."""
  args = get_call_arg_uops(call)
  outs, _ = get_call_outs_ins(call)
  return bool(outs) and call.src[0].op is Ops.PROGRAM and all(
    args[i].op is Ops.BUFFER and args[i] not in fixed and not ((b := buffers.get(args[i])) is not None and b.is_allocated()) for i in outs)


class KernelRun:
  """Deduplicates the calls of one linear. `calls`: (call, live) in execution order; a live call's
  outputs become tensors the user holds (eager's schedule in a capture). A live call may take the
  outputs of an earlier call that is not live, once: two live tensors never share a Buffer, since a
  later forward writes each in place (two BatchNorms' counters, both computed as the constant 1,
  would otherwise count twice)."""

  def __init__(self, calls: list, var_vals: dict):
    self.var_vals = var_vals
    self.kept: list[UOp] = []
    self.skipped = 0
    fixed = frozenset(unshareable([call for call, _ in calls]))
    ids = Identities(var_vals)
    produced: dict[int, tuple] = {}  # identity of a call -> its output nodes
    taken: set[int] = set()  # identities whose outputs a live call took
    for call, live in calls:
      key = ids.key(call, fixed)
      shareable = shareable_outputs(call, fixed) and key not in taken
      earlier = produced.get(key) if shareable else None
      if earlier is not None:
        alias(call, earlier)
        self.skipped += 1
        if live: taken.add(key)
      else:
        self.kept.append(call)
        if shareable and not live: produced[key] = tuple(get_call_arg_uops(call)[i] for i in get_call_outs_ins(call)[0])
      ids.wrote(call, key)

  def execute(self, run_linear) -> int:
    """Runs the kept calls as one linear; returns how many kernels ran."""
    before = GlobalCounters.kernel_count
    run_linear(UOp(Ops.LINEAR, src=tuple(self.kept)), self.var_vals)
    return GlobalCounters.kernel_count - before


def compiled(linear: UOp) -> UOp:
  return compile_linear(linear) if linear.src else linear


def run_deduplicated(linears: list, var_vals: dict, run_linear) -> KernelRun:
  """Compiles the linears' calls, drops the repeated ones, runs the rest through `run_linear` (one
  evaluation). `linears`: (LINEAR, live) pairs in execution order (KernelRun)."""
  calls = [(call, live) for linear, live in linears for call in compiled(linear).src]
  kernels = KernelRun(calls, var_vals)
  kernels.ran = kernels.execute(run_linear)
  return kernels
