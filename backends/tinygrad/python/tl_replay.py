"""Replay jobs: each op re-run from saved payloads, all in one evaluation.

A *plain* job rebuilds an op exactly as the capture computed it (its request over the capture's
plan), with every value the capture read from another op's buffer read from a fresh buffer of that
op's saved payload instead: so a correct trace replays bit for bit, and a payload that is not the
value its parents' payloads give is found. A *local* job rebuilds the op alone over its parents'
payloads (one of them possibly replaced by a perturbed payload), optionally only its first elements:
what perturbation compares with its local plain twin. An *evaluated* job is what a perturbed local job
must equal: tinygrad's own evaluation of the op's node with every source that is an op read from its
saved payload, found by the node's own sources (not the trace's parents), the replaced one from the
perturbed payload, in full, and only then cut to its first elements.

A plain job that inlines a reduction is scheduled on its own, as the capture scheduled its request
(scheduled with other jobs, tinygrad would realize a node two jobs share once, and fuse the reduction
differently from the capture). Every job reads the same buffer per saved payload, so a kernel two
schedules share (the same program over the same buffers: the earlier layers of a deep model, which
each later layer's reduction computes again) runs once, and a replay costs about what the capture did. The ops whose payload is eager's (the outputs) are rebuilt over their parents' payloads
first; where one differs (eager's kernel summed in another order), all of them again as eager
computed them (`as_eager`): their whole graphs over one set of buffers of their own, in the same
schedule, so tinygrad splits them into the kernels it split eager's into (outputs that share a
reduction share its kernel). A broadcast is moved on the host (`broadcast`)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tinygrad.uop.ops import GroupOp, Ops, UOp

from tl_buffer_write import functional_write, is_buffer_write, op_sources
from tl_evaluation import CHAINABLE, VIEWS, Builder, Live, Requests, evaluation_context, fresh_buffer, over, run, with_ownership


ELEMENTWISE = set(GroupOp.ALU) | {Ops.CAST}  # not BITCAST: it may change the shape


@dataclass
class Job:
  op: int
  local: bool = False
  replacements: dict | None = None  # local jobs: argument position -> index into the extra payloads
  limit: int | None = None          # local jobs: only the first `limit` elements (flattened)
  as_eager: bool = False            # plain jobs of eager_ops: the op's whole graph as eager computed it
  evaluated: list | None = None     # (argument position, parent op, index into the extra payloads)


class Payloads:
  """Fresh buffers of saved payloads: `payloads[i]` is op i's (data, dtype name, shape), `extra[k]`
  a replacement's. Each is made once and read by every job that reads it."""

  def __init__(self, payloads, extra):
    self.payloads, self.extra, self.shared, self.eager_group, self.replaced = payloads, extra, {}, {}, {}
    self.eager_state: dict | None = None  # the before-state the ops eager computed read: one for all of them

  def op(self, i: int) -> UOp:
    if i not in self.shared: self.shared[i] = fresh_buffer(*self.payloads[i])
    return self.shared[i]

  def eager(self, i: int) -> UOp:
    """The buffers the ops eager's schedule computed read: one set for all of them, apart from every
    other job's, so tinygrad splits them into the kernels eager's schedule had."""
    if i not in self.eager_group: self.eager_group[i] = fresh_buffer(*self.payloads[i])
    return self.eager_group[i]

  def replacement(self, k: int) -> UOp:
    """One buffer per distinct replacement: a perturbed local job and its evaluated twin read the
    same one, so where both build the same node tinygrad evaluates it once."""
    data, dtype, shape = self.extra[k]
    key = (bytes(data), dtype, tuple(shape))
    if key not in self.replaced: self.replaced[key] = fresh_buffer(*self.extra[k])
    return self.replaced[key]


def _builder(live: Live, payloads: Payloads) -> Builder:
  """Builds plain jobs over one buffer per saved payload and one before-state, shared by every job.
  The capture's requests read one buffer per op, so two reads of an op in one graph are one node and
  tinygrad fuses (or realizes) the graph as it did there: fresh buffers per read made them two nodes,
  and a where(c, x, 0) * y that the capture's kernel folded to +0.0 replayed as -0.0 over another
  kernel split (qr, svd). Shared across jobs, a kernel two jobs' schedules share (the same program
  over the same buffers) runs once (tl_kernels)."""
  state: dict = {}

  def value(u):
    i = live.index.get(u)
    return None if i is None else payloads.op(i)

  def data_leaf(u):  # an input or buffer constant, itself a view of a buffer: its saved payload
    return payloads.op(live.index[u]) if live.data_leaf(u) else None

  def whole(u, given):
    if not state: state.update(live.before_forward())
    return live.over_payloads(u, payloads.op, given, state)

  def realized(u):
    # a CONTIGUOUS is its op's value alone, which that op's payload holds unless eager's schedule
    # computed the op (_capture reads the op's request there too); a node eager's schedule realized
    # holds eager's value, which its capture did not stop at
    if u.op is Ops.CONTIGUOUS and u.src[0] in live.index and u.src[0] not in live.eager_map: return value(u.src[0])
    return None if u in live.eager_map else value(u)

  def leaf(u):
    # a write eager's schedule made holds eager's value (the state the forward left); what reads it
    # alone reads its value computed alone, as the capture's request did (a fresh BatchNorm's running
    # mean, its batch mean fused there)
    if is_buffer_write(u) and u in live.eager_map: return whole(u, {})
    return value(u) if u in live.index else live.realized(u)

  return Builder(live.plan, frontier=value, leaf=leaf, whole=whole, stop=data_leaf, realized=realized)


def _holds_reduce(u: UOp) -> bool:
  return any(x.op is Ops.REDUCE for x in u.toposort())


def _plain(live: Live, payloads: Payloads, shared: Builder, parents: dict, job: Job) -> UOp | bytes:
  u = live.nodes[job.op]
  if u in live.eager_map and job.as_eager:
    # the whole graphs of every op eager realized (its writes too: a BatchNorm's running statistics
    # share the batch variance with the output), scheduled together as eager scheduled them, reading
    # what eager's schedule realized of other ops
    given = {n: payloads.eager(live.index[n]) for n in live.eager_map if n in live.index and n is not u}
    # one before-state for all of them (a lazy weight's bits one buffer): a state of their own each
    # made the weights two outputs share two nodes, which tinygrad then fused apart
    if payloads.eager_state is None: payloads.eager_state = live.before_forward()
    return live.over_payloads(u, payloads.eager, given, payloads.eager_state)
  if is_buffer_write(u):  # over its (buffer, value) parents' payloads, as a pure write
    buffer, value = (payloads.op(live.index[s]) if s in live.index else s for s in op_sources(u))
    return functional_write(u, buffer, value)
  if u in live.eager_map:  # the capture took eager's value (an output, a CONTIGUOUS eager realized):
    # first the op over its parents' payloads, what eager gives unless its kernel summed in another order
    return _local(live, payloads, parents, Job(op=job.op, local=True))
  if u.op not in CHAINABLE and u.op not in VIEWS:  # a CONTIGUOUS, a COPY: the op over its parents' payloads
    return u.replace(src=tuple(payloads.op(live.index[s]) if s in live.index else s for s in u.src))
  if u.op is Ops.EXPAND and u.src[0] in live.index and all(isinstance(d, int) for d in u.shape):
    saved = payloads.payloads[live.index[u.src[0]]]
    if saved is not None: return broadcast(saved, u.shape)
  if u.op in VIEWS:  # a view is its parent op's payload seen through the view, exactly as captured
    n = u.src[0]
    while n not in live.index and n.op in VIEWS: n = n.src[0]
    if n in live.index and payloads.payloads[live.index[n]] is not None:
      return over(u, payloads.op(live.index[n]), at=n)
  return shared.value(u)


def broadcast(payload: tuple, shape: tuple) -> bytes:
  """A broadcast (EXPAND) of a saved payload, replayed on the host by numpy's broadcast_to, the same
  movement by code independent of the capture's own (harness/model/movement.cpp): on DEV=PYTHON
  every element of a 64x64x64 broadcast costs as a computed one, several times the product it feeds.
  Elements are moved as raw bytes, so every dtype is moved exactly."""
  data, _, source = payload
  if math.prod(source) == 0 or math.prod(shape) == 0: return b""
  item = len(data) // math.prod(source)
  raw = np.frombuffer(data, np.uint8).reshape(tuple(source) + (item,))
  return np.broadcast_to(raw, tuple(shape) + (item,)).tobytes()


def _local(live: Live, payloads: Payloads, parents: dict, job: Job) -> UOp:
  """The op over its parents' payloads: `parents` maps argument position -> parent op."""
  u = live.nodes[job.op]
  sources = list(op_sources(u))
  for position, parent in parents.items():
    replaced = (job.replacements or {}).get(position)
    if replaced is not None: sources[position] = payloads.replacement(replaced)
    elif not live.plan.constish.get(live.nodes[parent], False): sources[position] = payloads.op(parent)
  if is_buffer_write(u):
    built = functional_write(u, sources[0], sources[1])
  elif job.limit is not None and u.op in ELEMENTWISE and u.numel() > job.limit:
    # Element k of an elementwise op reads element k of each source: its first elements need only
    # theirs, so a perturbation of a 64x64x64 product computes 1,024 elements, not 262,144.
    return u.replace(src=tuple(_first(s, job.limit) for s in sources))
  elif job.limit is not None and u.op is Ops.REDUCE and 0 not in u.arg[1] and u.numel() > job.limit:
    # The first elements of a reduction over other axes are its first rows: reduce only as many as
    # read about `limit` terms (one at least), since every term costs as an element does.
    source = sources[0]
    rows = max(1, job.limit // max(1, source.numel() // source.shape[0]))
    built = u.replace(src=(source.shrink(((0, rows),) + tuple((0, d) for d in source.shape[1:])),))
  else:
    built = u.replace(src=tuple(sources))
  if job.limit is not None and built.numel() > job.limit: built = _first(built, job.limit)
  return built


def _evaluated(live: Live, payloads: Payloads, job: Job) -> UOp:
  """The op's own node over its sources' saved payloads, the source at `position` (which must be the
  node of `parent`) replaced: nothing of the local job's limiting or of the trace's parent map."""
  position, parent, replaced = job.evaluated
  u = live.nodes[job.op]
  sources = list(op_sources(u))
  if live.index.get(sources[position]) != parent:
    raise ValueError(f"argument {position} of the op is not op {parent}'s node")
  for k, s in enumerate(sources):
    i = live.index.get(s)
    if k == position: sources[k] = payloads.replacement(replaced)
    elif i is not None and not live.plan.constish.get(s, False): sources[k] = payloads.op(i)
  built = functional_write(u, sources[0], sources[1]) if is_buffer_write(u) else u.replace(src=tuple(sources))
  return _first(built, job.limit) if job.limit is not None and built.numel() > job.limit else built


def _first(u: UOp, limit: int) -> UOp:
  """The first `limit` elements of `u`, flattened."""
  return u.reshape((u.numel(),)).shrink(((0, limit),))


def expected_parents(live: Live) -> list:
  """Per op, the parents its node has in the captured graph: (parent op, argument position) for each
  source that is an op. The structure phase holds a trace's recorded parents against these."""
  return [[(live.index[s], position) for position, s in enumerate(op_sources(u)) if s in live.index] for u in live.nodes]


def constant_ops(live: Live) -> list:
  """Per op, whether its value is a constant expression (a literal, a view of one): part of its
  consumers' definition (tinygrad folds it), never perturbed."""
  return [bool(live.plan.constish.get(u, False)) for u in live.nodes]


def replay(live: Live, parents: list, payloads: list, extra: list, jobs: list) -> tuple:
  """Evaluates every job in one run. Returns, per job, the Buffer holding its value (None when
  empty; bytes when computed on the host), the error that kept it from being built (None when it
  was), the shape of its value (a limited local job's is flat and may be shorter than its limit), and
  whether the host computed it (a broadcast).
  `parents[i]` maps op i's argument positions to its parent ops."""
  with evaluation_context():
    store = Payloads(payloads, extra)
    shared = _builder(live, store)
    built, errors, private = [], [], []
    for spec in jobs:
      job = Job(**spec) if isinstance(spec, dict) else spec
      try:
        built.append(_evaluated(live, store, job) if job.evaluated is not None
                     else _local(live, store, parents[job.op], job) if job.local else _plain(live, store, shared, parents[job.op], job))
        errors.append(None)
      except Exception as error:  # reported as that op's replay failure
        built.append(None)
        errors.append(f"{type(error).__name__}: {error}")
      # a plain job that inlines a reduction gets a schedule of its own, as the capture's request did
      private.append(built[-1] is not None and not isinstance(built[-1], bytes) and not job.local and job.evaluated is None
                     and not job.as_eager and live.nodes[job.op] not in live.eager_map and _holds_reduce(built[-1]))
    requests = Requests()
    sinks = []
    for b, own in zip(built, private):
      sinks.append(None if b is None or isinstance(b, bytes) or 0 in b.shape else b.contiguous())
    # the ops eager realized, again as eager computed them: one schedule of them all, as
    # Tensor.realize(*outputs) made one (split where two share a node, tinygrad would fuse otherwise)
    as_eager = [s for s, spec in zip(sinks, jobs) if s is not None and (Job(**spec) if isinstance(spec, dict) else spec).as_eager]
    if as_eager: requests.add_together(as_eager)
    together = set(as_eager)
    for sink, own in zip(sinks, private):
      if sink is not None and sink not in together: requests.add(sink, private=own)
    run(requests.finish())
    values = [b if isinstance(b, bytes) else None if s is None else requests.buffer(s) for b, s in zip(built, sinks)]
    shapes = [None if b is None or isinstance(b, bytes) else tuple(b.shape) for b in built]
    on_host = [isinstance(b, bytes) for b in built]
    return with_ownership(values, [s is not None and requests.created(s) for s in sinks]), errors, shapes, on_host


def eager_ops(live: Live) -> list:
  """The ops whose payload is eager's value (the outputs, a CONTIGUOUS eager realized). Each is replayed
  first over its parents' saved payloads; only where that differs (eager's kernel summed in another
  order than the op's parents were computed in) again as eager computed it, its whole graph."""
  return [i for i, u in enumerate(live.nodes) if u in live.eager_map]
