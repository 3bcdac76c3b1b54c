"""Faithful evaluation of many tinygrad nodes in one run.

Every value this module computes for a node is the value tinygrad gives for that node realized on
its own (``Tensor(node).numpy()``), and all of them come from one ``run_linear`` call. Realizing
each node alone would recompute every chain once per node (quadratic), so a node's expression may
read another node's buffer instead of recomputing it (a *cut*), but only where that cannot change a
value:

* tinygrad rewrites a kernel's ALU expression before running it (``(x*c1)*c2 -> x*(c1*c2)``,
  ``a*b+c -> MULACC``, ``x*(1/(1+x)) -> 1-1/(1+x)``, ...), and a cut hides the structure a rewrite
  needs. ``CutPlanner`` runs tinygrad's own kernel rewrites on each node's neighbourhood, once as it
  is and once with a source opaque, and cuts that edge only when both agree.
* a kernel keeps a float dtype the device emulates (float16 on Python < 3.12) in float32 registers,
  so a node of such a dtype is never read from a buffer by a consumer.
* a reduction's summation order is chosen per kernel (GROUP, UNROLL) from the whole fused kernel, and
  which nodes tinygrad realizes around it depends on everything below it, so a REDUCE (and an
  output) is requested *faithfully*: its whole graph as it is, in a schedule of its own that shares
  no node with another request, so tinygrad computes it exactly as it would alone. That graph stops
  at what tinygrad realizes in it as alone: a node whose region holds a reduction and that every
  consumer reads through a broadcast (a layer's output, which the next matmul broadcasts) and a
  CONTIGUOUS, read from their requests' buffers, so a deep model's reduction schedules its own layer,
  not every layer before it; not where the graph holds a shared node (below), where tinygrad fuses
  such a node otherwise.
* two reductions without a broadcast between them share a kernel, and tinygrad picks its summation
  order from everything fused into it: every node of that region (up to where tinygrad realizes) is
  requested faithfully too. A reduction over a lazily random weight needs no rule of its own: a
  default-init layer's random values are a CONTIGUOUS (below), a buffer the reduction reads as it
  reads any other, and values drawn with contiguous=False are fused like any other elementwise source
  (rows lazy_random_expression_in_a_matmul, embedding_arange_sum_default_init).
* tinygrad realizes a node whose region holds a reduction where it is broadcast (EXPAND) into a
  consumer; such edges are cut everywhere, as tinygrad cuts them. An arange is no reduction here:
  tinygrad folds a reduction over a constant into index arithmetic.
* a node below two consumers of such a node that index it differently (a *shared* node: tinygrad
  realizes it there) is computed in a graph where tinygrad also realizes other nodes the plan cannot
  foresee (one read in several loops, when it reads more than three buffers): it is requested
  faithfully, reading only the shared nodes' buffers, so tinygrad realizes the rest as it would alone.
* a CONTIGUOUS (a random weight's bits) is a buffer of its own wherever tinygrad reads it: computed
  once, every request reads it.

Nodes a graph holds but a trace does not (the internals of a lazy weight) are inlined, never cut.
"""
from __future__ import annotations

import contextlib
import gc
import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from tinygrad.callify import transform_to_call
from tinygrad.device import Device
from tinygrad.dtype import dtypes, truncate
from tinygrad.helpers import Context
from tinygrad.schedule import create_linear_with_vars
from tinygrad.uop.decompositions import get_late_rewrite_patterns
from tinygrad.uop.ops import GroupOp, Ops, UOp, graph_rewrite
from tinygrad.uop.symbolic import sym, symbolic_simple

from tl_buffer_write import is_buffer_write, without_writes
from tl_kernels import run_deduplicated
from tl_runtime import tinygrad_dtype_name

VIEWS = {Ops.RESHAPE, Ops.EXPAND, Ops.PAD, Ops.SHRINK, Ops.PERMUTE, Ops.FLIP}
EXPANDABLE = GroupOp.ALU | {Ops.CAST, Ops.BITCAST}          # what tinygrad's ALU rewrites look into
IDENTITY = {Ops.DETACH, Ops.CONTIGUOUS_BACKWARD}            # dropped by the scheduler: the source's value
CHAINABLE = EXPANDABLE | {Ops.REDUCE} | IDENTITY
CONST_LEAVES = {Ops.CONST, Ops.DEVICE, Ops.UNIQUE}
DATA_LEAVES = {Ops.BUFFER, Ops.PARAM, Ops.BUFFER_VIEW, Ops.BIND, Ops.DEFINE_VAR}
NEIGHBOURHOOD = 4  # levels below a node a rewrite check looks at (tinygrad's ALU patterns span at most 3)


def view_base(u: UOp) -> UOp:
  while u.op in VIEWS: u = u.src[0]
  return u


def under_identity(u: UOp) -> UOp:
  """The node under u's views and identity ops (a DETACH): what tinygrad's kernel reads there."""
  while u.op in VIEWS or u.op in IDENTITY: u = u.src[0]
  return u


def is_meta(u: UOp) -> bool:
  return u.dtype.scalar() in (dtypes.void, dtypes.weakint)


def expanding(u: UOp) -> bool:
  """Whether the chain of views from u down to its base broadcasts a dimension."""
  while u.op in VIEWS:
    if u.op is Ops.EXPAND and any(a != b for a, b in zip(u.src[0].shape, u.shape)): return True
    u = u.src[0]
  return False


def over(chain: UOp, base_value: UOp, at: UOp | None = None) -> UOp:
  """The view chain `chain` rebuilt with `at` (default: its base) replaced by `base_value`."""
  if chain is at or (at is None and chain.op not in VIEWS): return base_value
  inner = over(chain.src[0], base_value, at)
  return chain if inner is chain.src[0] else chain.replace(src=(inner,) + chain.src[1:])


PROBE_LIMIT = 1 << 22  # elements a factor's probe may have; past it a factor counts as moved (faithful: exact, dearer)


def _varies_along(shape: tuple, views: list, axes: tuple) -> bool:
  """Whether a node of `shape`, seen through `views` (innermost first), takes other values along
  `axes` of the result: its elements numbered, moved as the views move them, compared along the axes."""
  if not all(isinstance(d, int) for d in shape) or math.prod(shape) > PROBE_LIMIT: return True
  probe = np.arange(math.prod(shape), dtype=np.int64).reshape(shape)
  for v in views:
    if not all(isinstance(a, int) for a in _flat(v.marg)): return True  # a symbolic view
    if v.op is Ops.RESHAPE: probe = probe.reshape(v.marg)
    elif v.op is Ops.EXPAND: probe = np.broadcast_to(probe, v.marg)
    elif v.op is Ops.PERMUTE: probe = probe.transpose(v.marg)
    elif v.op is Ops.PAD: probe = np.pad(probe, v.marg, constant_values=-1)
    elif v.op is Ops.SHRINK: probe = probe[tuple(slice(a, b) for a, b in v.marg)]
    elif v.op is Ops.FLIP: probe = probe[tuple(slice(None, None, -1) if f else slice(None) for f in v.marg)]
    if probe.size > PROBE_LIMIT: return True
  first = probe[tuple(slice(0, 1) if a in axes else slice(None) for a in range(probe.ndim))]
  return bool((probe != first).any())


def _flat(arg) -> list:
  return [b for a in arg for b in (a if isinstance(a, tuple) else (a,))]


def moves_a_factor(r: UOp) -> bool:
  """Whether tinygrad moves a factor out of the sum r (symbolic.reduce_mul_chain: sum(x * f) -> sum(x) * f
  where f does not range over the summed axes, a constant among them): a factor it then fuses with
  an addend after the sum into one MULACC, rounded once (LayerNorm's per-row scale before a matmul
  with a bias)."""
  if r.op is not Ops.REDUCE or r.arg[0] is not Ops.ADD or view_base(r.src[0]).op is not Ops.MUL: return False
  axes = tuple(r.arg[1])

  def moved(u: UOp, views: list) -> bool:
    while u.op in VIEWS:
      views = [u] + views
      u = u.src[0]
    if u.op is Ops.MUL: return any(moved(s, views) for s in u.src)
    return not _varies_along(u.shape, views, axes)
  return moved(r.src[0], [])


def negates_a_sum(u: UOp) -> bool:
  """Whether u is a negation (a MUL by the constant -1) of a sum reached through ADDs in one kernel:
  tinygrad's symbolic `-1 * (x + y) -> -x + -y` distributes it down the ADDs into the sum's own
  accumulation, which then rounds otherwise (`-(x @ w)`, `1 - linear(x)` alone differ from the
  negated matmul in 174 of 480 elements on DEV=PYTHON), so such a MUL is computed with its sum."""
  if u.op is not Ops.MUL or not any(view_base(s).op is Ops.CONST and view_base(s).arg == -1 for s in u.src): return False
  stack = [view_base(s) for s in u.src if not is_meta(s) and not expanding(s) and view_base(s).op is not Ops.CONST]
  while stack:
    n = stack.pop()
    if n.op is Ops.REDUCE and n.arg[0] is Ops.ADD: return True
    if n.op is Ops.ADD: stack.extend(view_base(s) for s in n.src if not is_meta(s) and not expanding(s))
  return False


# ---------------------------------------------------------------------------------------------
# Which ALU edges may be cut
# ---------------------------------------------------------------------------------------------

class CutPlanner:
  """Decides, for each edge (source, consumer) into an ALU node, whether the consumer may read the
  source from a buffer without tinygrad computing it differently. Neighbourhoods repeat (a deep chain
  is one step again and again) and hash-consing makes equal ones one object: rewrites are cached."""

  def __init__(self):
    renderer = Device[Device.DEFAULT].renderer
    # in the order tinygrad's kernel pipeline applies them: symbolic first, then the device's late
    # rewrites (MULACC, SUB, ...) with symbolic_simple (codegen/__init__.py, full_rewrite_to_sink)
    self.matchers = (sym, symbolic_simple + get_late_rewrite_patterns(tuple(renderer.code_for_op.keys()), False))
    self.native = renderer.supported_dtypes()
    self.rewritten: dict[UOp, UOp | None] = {}
    self.by_shape: dict[UOp, UOp | None] = {}  # the same, keyed by the neighbourhood under canonical names
    # placeholders are named by what they stand for, once per planner, so that a trial and the full
    # neighbourhood name the same node alike and a cut never takes the name of another node
    self.names: dict[tuple, str] = {}

  def placeholder(self, u: UOp, views: tuple, cut: bool) -> UOp:
    name = self.names.setdefault((u, views, cut), f"{'cut' if cut else 'p'}{len(self.names)}")
    return UOp(Ops.DEFINE_VAR, u.dtype, arg=(name, u.dtype.min, u.dtype.max))

  @staticmethod
  def is_cut(u: UOp) -> bool:
    return u.op is Ops.DEFINE_VAR and u.arg[0].startswith("cut")

  def _rewrite_once(self, u: UOp) -> UOp | None:
    try:
      for matcher in self.matchers: u = graph_rewrite(u, matcher, name="tl cut check")
      return u
    except Exception:  # a neighbourhood tinygrad cannot rewrite on its own: never cut into it
      return None

  def rewrite(self, u: UOp) -> UOp | None:
    """u's rewrite. Neighbourhoods of different nodes that differ only in their placeholders' names
    (each layer of a deep model is the one before again) are rewritten once: under names that keep
    the placeholders' order (tinygrad orders a commutative op's sources by them) and name nothing else,
    then renamed back."""
    if u not in self.rewritten:
      holders = sorted({x for x in u.toposort() if x.op is Ops.DEFINE_VAR}, key=lambda x: x.arg)
      canonical = {h: UOp(Ops.DEFINE_VAR, h.dtype, arg=(f"{k:06d}", *h.arg[1:])) for k, h in enumerate(holders)}
      shape = u.substitute(canonical) if canonical else u
      if shape not in self.by_shape: self.by_shape[shape] = self._rewrite_once(shape)
      rewritten = self.by_shape[shape]
      if rewritten is not None and canonical: rewritten = rewritten.substitute({v: k for k, v in canonical.items()})
      self.rewritten[u] = rewritten
    return self.rewritten[u]

  def neighbourhood(self, root: UOp, opaque: set, also: frozenset = frozenset()) -> tuple[UOp, set]:
    """root's expression NEIGHBOURHOOD levels deep as scalars: views and identity ops looked through
    (each view chain gets placeholders of its own, as a kernel loads a view at other indices),
    broadcast constants as constants, and anything else below (a buffer, a reduction, the depth
    limit, an edge in `opaque` or `also`) a placeholder. Returns it and the edges of those it crossed.
    (`also` rather than a union: copying the plan's cuts per trial would cost time and memory that
    grow with the graph.)"""
    memo: dict = {}
    crossed: set = set()

    def go(u, views, depth, consumer):
      if u.op in IDENTITY: return go(u.src[0], views, depth, consumer)  # dropped: it indexes nothing
      if u.op in VIEWS:
        base = view_base(u)
        if base.op is Ops.CONST: return UOp.const(base.dtype, base.arg)
        return go(u.src[0], views + (u,), depth, consumer)
      if u.op is Ops.CONST: return UOp.const(u.dtype, u.arg)
      cut = consumer is not None and ((u, consumer) in opaque or (u, consumer) in also)
      if cut: crossed.add((u, consumer))
      key = (u, views, cut)
      if key not in memo:
        if depth == 0 or cut or u.op not in EXPANDABLE or u.dtype.count != 1:
          memo[key] = self.placeholder(u, views, cut)
        else:
          memo[key] = UOp(u.op, u.dtype, tuple(go(s, views, depth - 1, u) for s in u.src), u.arg)
      return memo[key]

    try:
      return go(root, (), NEIGHBOURHOOD, None), crossed
    finally:
      go = None  # noqa: F841 - `go` refers to itself: a cycle that would outlive the call while the GC is paused

  def agrees(self, trial: UOp, full: UOp, rewritten_full: UOp) -> bool:
    """Whether rewriting `trial` (`full` with some sub-expressions opaque) gives `full`'s rewrite with
    those sub-expressions' rewritten forms read as the same placeholders."""
    rewritten_trial = self.rewrite(trial)
    if rewritten_trial is None: return False
    opaque: dict[UOp, UOp] = {}

    def align(t, f):
      if self.is_cut(t):
        rewritten = self.rewrite(f)
        return rewritten is not None and opaque.setdefault(rewritten, t) is t
      return t.op == f.op and t.arg == f.arg and len(t.src) == len(f.src) and all(align(a, b) for a, b in zip(t.src, f.src))

    if not align(trial, full): return False
    try:
      return rewritten_full.substitute(opaque) is rewritten_trial
    except Exception:
      return False

  def plan(self, topo: list[UOp]) -> set:
    """The edges (source, consumer) an ALU consumer may read from a buffer. Consumers go in
    topological order; an earlier cut that a later consumer's rewrite sees through is taken back
    (an inlined edge is always exact)."""
    cut: set = set()
    for c in topo:
      if c.op not in EXPANDABLE: continue
      full, _ = self.neighbourhood(c, set())
      rewritten_full = self.rewrite(full)
      if rewritten_full is None: continue
      while True:
        trial, crossed = self.neighbourhood(c, cut)
        if not crossed or self.agrees(trial, full, rewritten_full): break
        cut -= crossed
      candidates = [e for e in dict.fromkeys((under_identity(s), c) for s in c.src)
                    if e[0].op in EXPANDABLE and e[0].dtype.scalar() in self.native]
      safe = [e for e in candidates if self.agrees(self.neighbourhood(c, cut, frozenset({e}))[0], full, rewritten_full)]
      if safe and self.agrees(self.neighbourhood(c, cut, frozenset(safe))[0], full, rewritten_full): cut |= set(safe)
    return cut


# ---------------------------------------------------------------------------------------------
# Plans and requests
# ---------------------------------------------------------------------------------------------

def _chain(u: UOp) -> list:
  """The views of a view chain, outermost first."""
  views = []
  while u.op in VIEWS:
    views.append(u)
    u = u.src[0]
  return views


def squeezes_only(view: UOp) -> bool:
  """A RESHAPE that only adds or drops size-1 axes indexes its source as its consumer does."""
  return view.op is Ops.RESHAPE and [d for d in view.shape if d != 1] == [d for d in view.src[0].shape if d != 1]


@dataclass
class Plan:
  """How the nodes of a graph are requested.

  `cut`: the ALU edges a consumer may read from a buffer. `faithful`: the nodes requested as
  tinygrad fuses them alone (reductions, outputs). `reduce_region[u]`: u's fused region (up to
  where tinygrad realizes) holds a reduction. `shared`: reduction-region nodes read by consumers
  that index them differently (a reduction and an elementwise op, or two elementwise ops that flow
  into different reductions), whose region still holds a reduction once the shared nodes below them
  are realized: where a graph holds two such consumers, tinygrad realizes the node there, so what
  follows it is computed over its buffer.
  `context[u]`: the shared nodes u's own graph holds two consumers of; a node's value depends on its
  context, so a consumer reads a source's buffer only where the source's context is the consumer's
  (restricted to what lies below the source)."""
  topo: list
  cut: set
  constish: dict
  reduce_region: dict
  native: set
  faithful: set = field(default_factory=set)
  shared: set = field(default_factory=set)
  below: dict = field(default_factory=dict)     # shared node -> the nodes it lies below (its descendants)
  context: dict = field(default_factory=dict)   # node -> frozenset of shared nodes realized in its graph
  broadcast_only: set = field(default_factory=set)  # reduction-region nodes every consumer reads through a broadcast
  every_edge: bool = False  # make_plan(exact=False): every edge is read from a buffer
  _holds: dict = field(default_factory=dict)

  def within(self, context: frozenset, u: UOp) -> frozenset:
    """The part of a context that lies below u (or is u)."""
    return frozenset(n for n in context if n is u or u in self.below[n]) if context else context

  def holds_reduce(self, u: UOp, context: frozenset) -> bool:
    """Whether u's fused region holds a reduction once the nodes of `context` are realized buffers."""
    if not context: return self.reduce_region.get(u, False)
    if u in context or u.op not in CHAINABLE: return False
    if u.op is Ops.REDUCE: return True
    key = (u, context)
    if key not in self._holds:
      self._holds[key] = any(self.holds_reduce(view_base(s), self.within(context, view_base(s))) and not expanding(s)
                             for s in u.src if not is_meta(s))
    return self._holds[key]

  def reads_buffer(self, chain: UOp, consumer: UOp, context: frozenset) -> bool:
    """Whether `consumer`, built in `context`, reads `chain` (views over a node) from that node's buffer."""
    base = view_base(chain)
    if self.constish.get(base, True) or base.op not in CHAINABLE: return False
    if self.every_edge: return not (consumer.op is Ops.REDUCE and base.op in GroupOp.ALU)  # a sum of products fused
    if base in context: return True                                                            # tinygrad realizes it here
    if self.context.get(base, frozenset()) != self.within(context, base) - {base}: return False
    if expanding(chain) and self.holds_reduce(base, self.within(context, base)): return True  # and here
    if base.dtype.scalar() not in self.native: return False
    if base.op is Ops.REDUCE: return True
    if base.op in IDENTITY:  # tinygrad drops it: read from a buffer where what lies under it would be
      under = under_identity(base)  # ((hard - y).detach() + y folds to hard alone: never over a buffer)
      return under.op is Ops.REDUCE or under.op not in CHAINABLE or (under, consumer) in self.cut
    return (base, consumer) in self.cut


def make_plan(nodes: list[UOp], faithful=(), planner: CutPlanner | None = None, exact=True) -> Plan:
  """`exact=False`: every node computed once over its sources' buffers (each op rounded as it is
  stored; linear in the graph), where the values need not be tinygrad's fused ones bit for bit; but a
  reduction fuses the ALU op it sums (its sources still read from buffers), as tinygrad fuses a
  matmul: summing a materialized 64x64x64 product costs DEV=PYTHON twice the fused kernel."""
  topo = [u for u in UOp.sink(*nodes).toposort() if u.op is not Ops.SINK]
  constish: dict[UOp, bool] = {}
  reduce_region: dict[UOp, bool] = {}
  region_reduces: dict[UOp, frozenset] = {}  # the reductions of u's fused region (two at most: enough to tell)
  reorders: dict[UOp, bool] = {}             # u's fused region sums in an order the whole kernel picks
  consumers: dict[UOp, list] = {}  # base -> (consumer, the view chain it reads the base through)
  uses: dict[UOp, int] = {}        # base -> how many nodes read it (through views), consumers or not
  for u in topo:
    # a STORE is void like a shape vector, but what it writes is its value: a write into a buffer
    # never realized (a fresh BatchNorm's running mean, lazy zeros) is as constant as that value is
    constish[u] = (is_meta(u) and u.op is not Ops.STORE) or u.op in CONST_LEAVES or (
      len(u.src) > 0 and u.op not in DATA_LEAVES and all(constish[s] for s in u.src))
    # a view chain that broadcasts ends the region below it: tinygrad realizes there
    fused = [view_base(s) for s in u.src if not is_meta(s) and not expanding(s)] if u.op in CHAINABLE else []
    # a constant expression's reduction (an arange) is folded into index arithmetic, never summed
    reduces = frozenset({u} if u.op is Ops.REDUCE and not constish[u] else ()).union(
      *(region_reduces.get(s, frozenset()) for s in fused))
    region_reduces[u] = frozenset(list(reduces)[:2])
    reduce_region[u] = bool(reduces)
    reorders[u] = len(reduces) >= 2 or any(reorders.get(s, False) for s in fused)
    for s in dict.fromkeys(u.src):
      if is_meta(s) or u.op in VIEWS: continue
      uses[view_base(s)] = uses.get(view_base(s), 0) + 1
      if u.op in CHAINABLE: consumers.setdefault(view_base(s), []).append((u, s))
  planner = planner or CutPlanner()
  if not exact:
    return Plan(topo, set(), constish, reduce_region, planner.native, every_edge=True)
  plan = Plan(topo, planner.plan(topo), constish, reduce_region, planner.native)
  # A reduction tinygrad fuses with another reduction is summed in an order it picks from the whole
  # kernel, everything fused after it included: what follows it up to where tinygrad realizes is
  # computed as it is alone, never over its buffer.
  plan.faithful = {u for u in topo if u.op is Ops.REDUCE or reorders[u]} | set(faithful)
  # tinygrad distributes a negation into the accumulation of a sum below it (negates_a_sum): computed
  # with that sum, as alone.
  plan.faithful |= {u for u in topo if negates_a_sum(u)}
  # tinygrad moves a factor out of a sum and fuses factor * sum + addend into one MULACC (moves_a_factor):
  # an ADD of such a sum is computed with it, as alone, never over the sum's buffer.
  factor_moved = {u for u in topo if moves_a_factor(u)}  # each sum probed once, however many ADDs read it
  plan.faithful |= {u for u in topo if u.op is Ops.ADD and any(
    not is_meta(s) and not expanding(s) and view_base(s) in factor_moved for s in u.src)}

  def indexes_as_elementwise(consumer, chain):
    views_ok = all(squeezes_only(v) for v in _chain(chain))
    return (consumer.op in EXPANDABLE or consumer.op in IDENTITY) and views_ok
  # The reductions u's value flows into without a broadcast in between: two consumers that flow into
  # different ones read their source at two indexings where their paths meet (an RMSNorm's h * h summed
  # over the row, and h itself multiplied by the broadcast result), so tinygrad realizes the source
  # there, as it does for a reduction and an elementwise consumer.
  sums_into: dict[UOp, frozenset] = {}
  for u in reversed(topo):
    sums_into[u] = frozenset({u}) if u.op is Ops.REDUCE else frozenset().union(
      *(sums_into[c] for c, chain in consumers.get(u, []) if not expanding(chain)))
  candidates = [n for n in topo if n.op in CHAINABLE and reduce_region[n] and len(consumers.get(n, [])) >= 2
                and (not all(indexes_as_elementwise(c, chain) for c, chain in consumers[n])
                     or len({sums_into[c] for c, _ in consumers[n]}) > 1)]
  # In topological order, so that a candidate's context holds every shared node below it: one whose
  # region holds no reduction once those are realized is an elementwise expression over their buffers,
  # which tinygrad computes again in each consumer (an attention's exp2, once its scores are realized),
  # never realizes.
  for n in candidates:
    if not plan.holds_reduce(n, plan.context.get(n, frozenset())): continue
    plan.shared.add(n)
    below, stack = set(), [c for c, _ in consumers[n]]
    while stack:
      u = stack.pop()
      if u not in below:
        below.add(u)
        stack.extend(c for c, _ in consumers.get(u, []))
    plan.below[n] = below
    # the nodes below two consumers of n: count, per node, the consumers it lies below
    reach: dict[UOp, int] = {}
    for c in dict.fromkeys(c for c, _ in consumers[n]):
      seen, stack = set(), [c]
      while stack:
        u = stack.pop()
        if u in seen: continue
        seen.add(u)
        reach[u] = reach.get(u, 0) + 1
        stack.extend(c for c, _ in consumers.get(u, []))
    for u, count in reach.items():
      if count >= 2: plan.context[u] = plan.context.get(u, frozenset()) | {n}
  # Where a node's graph holds a shared node, tinygrad realizes more than the plan can model (qr's
  # next column, read by two reductions and the output): computed whole over the shared buffers.
  # (Narrower rules tried on 2026-12-07 -- only where a node of that graph is read twice, or only where
  # the shared node lies in u's own kernel -- each put an op of qr or svd off its value alone.)
  plan.faithful |= {u for u in plan.context if u.op in CHAINABLE}
  # A node whose region holds a reduction and which every consumer reads through a broadcast is
  # realized by tinygrad in every graph that holds it (reads_buffer): a faithful node's whole graph
  # reads its buffer there (Builder.realized_below). Counted over every reader, views aside, and the
  # outputs: a node an output is a view of, or that a CONTIGUOUS or a write reads, is not one.
  for r in faithful:
    if r.op in VIEWS: uses[view_base(r)] = uses.get(view_base(r), 0) + 1
  plan.broadcast_only = {n for n, readers in consumers.items()
                         if n.op in CHAINABLE and reduce_region[n] and not constish[n] and len(readers) == uses.get(n, 0)
                         and all(expanding(chain) for _, chain in readers)}
  return plan


class Builder:
  """Builds requests over a plan. `frontier(node)` is what a consumer reads where it cuts at a node
  (a capture: that node's request; a replay: a buffer of its saved payload), or None where nothing
  can be read (the node is no op of the trace). `leaf(node)` stands for a node that is no ALU,
  reduction or view (a buffer, a COPY, a CONTIGUOUS, an AFTER). `whole(node, given)` is a faithful
  node's expression: its graph as it is (with the `given` nodes replaced), for tinygrad to fuse and
  realize within as it would for that node alone (a capture: the node, its writes read as values; a
  replay: over its leaves' payloads).
  `stop(node)`, where not None, is the value of a node a view chain ends at (a replay: an input or
  constant op, itself a view of a buffer, reads its saved payload, never that buffer).
  `realized(node)`, default `frontier`, is what a faithful node's whole graph reads for a node tinygrad
  realizes there (realized_below): a buffer, which `whole` leaves as it is (a capture: the node's
  request, scheduled first; a request still to be scheduled would be rebuilt by without_writes into a
  node no earlier schedule computed)."""

  def __init__(self, plan: Plan, frontier: Callable, leaf: Callable, whole: Callable, stop: Callable = lambda u: None,
               realized: Callable | None = None):
    self.plan, self.frontier, self.leaf, self.whole, self.stop = plan, frontier, leaf, whole, stop
    self.realized = realized or frontier
    self.forms: dict = {}

  def source(self, chain: UOp, consumer: UOp, context: frozenset) -> UOp:
    for view in _chain(chain):  # a chain ends early at a node with a value of its own
      if (value := self.stop(view)) is not None: return over(chain, value, at=view)
    base = view_base(chain)
    if self.plan.reads_buffer(chain, consumer, context):
      value = self.frontier(base)
      if value is not None: return over(chain, value)
    return over(chain, self.form(base, self.plan.within(context, base)))

  def form(self, u: UOp, context: frozenset) -> UOp:
    """u's expression in `context`: itself for constants, its leaf form for data, its whole graph for a
    faithful node, otherwise its sources per edge."""
    key = (u, context)
    if key in self.forms: return self.forms[key]
    if is_meta(u) or (self.plan.constish.get(u, False) and u.op not in DATA_LEAVES):
      result = u
    elif u.op not in CHAINABLE:
      result = self.leaf(u)
    elif u in self.plan.faithful:
      # a node of the context is realized where this node is computed: read as its own value where
      # its own context is what lies below it here (a BatchNorm's mean realized alone sums the conv
      # fused in; in a graph that realizes the conv it sums the conv's buffer, in another order), and
      # left to tinygrad to realize in this graph otherwise
      given = {n: v for n in context if n is not u and self.plan.context.get(n, frozenset()) == self.plan.within(context, n) - {n}
               and (v := self.frontier(n)) is not None}
      result = self.whole(u, {**given, **self.realized_below(u, context)})
    else:
      src = tuple(s if is_meta(s) else self.source(s, u, context) for s in u.src)
      result = u if src == u.src else u.replace(src=src)
    self.forms[key] = result
    return result

  def realized_below(self, u: UOp, context: frozenset) -> dict:
    """The nodes of u's graph that tinygrad realizes there as each alone (Plan.broadcast_only outside
    any shared node's context, reads_buffer's broadcast rule; every CONTIGUOUS), each with what u's
    graph reads for it (`realized`; a node it gives None for is computed in the graph): u's whole graph
    stops at them, so a deep model's reduction schedules its last layer, not every layer before it.
    Not where u's graph holds a shared node: tinygrad realizes more there than the plan models, and
    fuses such a node otherwise (qr's columns)."""
    found: dict = {}
    if context: return found

    def enter(x):
      if x in found: return False
      # a CONTIGUOUS is a buffer of its own wherever tinygrad reads it (Live.lazy_bits)
      stops = x is not u and (x.op is Ops.CONTIGUOUS or (x in self.plan.broadcast_only and not self.plan.context.get(x)))
      if not stops or (value := self.realized(x)) is None: return True
      found[x] = value
      return False

    u.toposort(gate=enter)
    return found

  def value(self, u: UOp) -> UOp:
    """u's value expression as tinygrad computes u alone (a view reads its base as a consumer would)."""
    context = self.plan.context.get(u, frozenset())
    if u in self.plan.faithful: return self.form(u, context)
    if u.op in VIEWS: return self.source(u, u, context)
    return self.form(u, context)


# ---------------------------------------------------------------------------------------------
# Schedules and the one run
# ---------------------------------------------------------------------------------------------

@dataclass
class Schedule:
  sinks: list
  linear: UOp
  var_vals: dict
  buffer_map: dict
  live: bool = False  # its outputs become tensors the user holds (eager's schedule; tl_kernels.KernelRun)


def schedule(sinks: list[UOp]) -> Schedule:
  call, buffer_map = transform_to_call(UOp.sink(*sinks))
  linear, var_vals = create_linear_with_vars(call)
  return Schedule(list(sinks), linear, var_vals, buffer_map)


@contextlib.contextmanager
def evaluation_context():
  """What every evaluation here runs under. Python's cyclic GC is paused, as tinygrad's own realize
  pauses it (scheduling allocates many short-lived UOps; collections in the middle free nothing).
  TUPLE_ORDER=0: tinygrad's linearizer otherwise breaks priority ties by an uncached recursive tuple of
  each subtree, O(depth) per comparison, so a deep fused kernel takes minutes to compile; without it
  the same program runs (only the order of independent instructions may differ)."""
  enabled = gc.isenabled()
  gc.disable()
  try:
    with Context(TUPLE_ORDER=0):
      yield
  finally:
    if enabled: gc.enable()


def run(schedules: list[Schedule]) -> int:
  """Runs every schedule's kernels as one linear, in order, each distinct kernel once (tl_kernels);
  returns how many kernels ran."""
  import tinygrad.engine.realize as realize_module  # looked up per call: the cells' probe wraps it
  var_vals: dict = {}
  for s in schedules: var_vals.update(s.var_vals)
  return run_deduplicated([(s.linear, s.live) for s in schedules], var_vals, realize_module.run_linear).ran


SHARED_NODE_BUFFERS = 3  # tinygrad keeps a node two kernels share when it reads more buffers (remove_bufferize)


class Requests:
  """Requests laid out into schedules: consecutive chained requests share one; a faithful request
  gets one of its own. A schedule reads earlier schedules' requests as their buffers.

  Where two requests of one schedule hold the same node (a consumer inlines a source that is itself
  requested), tinygrad's rangeify realizes that node once and both read its buffer when it reads
  more than SHARED_NODE_BUFFERS buffers: a cut no plan chose, which can change the consumer's value
  (a*b+c fused into one MULACC or not). A request holding such a node of the pending schedule starts
  a new schedule, so each request is computed as its own expression says."""

  def __init__(self):
    self.schedules: list[Schedule] = []
    self.pending: list[UOp] = []
    self.pending_nodes: set = set()  # the computed nodes the pending requests hold
    self.buffers: dict[UOp, frozenset] = {}  # node -> the buffers it reads (capped past the limit)
    self.done: dict[UOp, UOp] = {}  # a scheduled request -> its buffer (as a view of the buffer)
    self.scheduled: dict[UOp, UOp] = {}  # a request -> what was scheduled (earlier requests as buffers)

  def _computed_nodes(self, request: UOp) -> list:
    """The nodes a request computes: below it down to buffers, other requests and constants."""
    nodes, seen, stack = [], set(), [request.src[0] if request.op is Ops.CONTIGUOUS else request]
    while stack:
      u = stack.pop()
      if u in seen or not (u.op in CHAINABLE or u.op in VIEWS): continue
      seen.add(u)
      nodes.append(u)
      stack.extend(u.src)
    return nodes

  def _reads(self, u: UOp) -> frozenset:
    """The buffers (and other requests, realized in the same schedule) u's expression reads."""
    if u in self.buffers: return self.buffers[u]
    stack = [u]
    while stack:  # post-order without recursion: computed expressions can be deep
      n = stack.pop()
      if n in self.buffers: continue
      if n.op in CHAINABLE or n.op in VIEWS:
        pending = [s for s in n.src if s not in self.buffers]
        if pending:
          stack.append(n)
          stack.extend(pending)
          continue
        reads: frozenset = frozenset()
        for s in n.src:
          reads |= self.buffers[s]
          if len(reads) > SHARED_NODE_BUFFERS: break
        self.buffers[n] = reads
      else:
        self.buffers[n] = frozenset() if n.op in CONST_LEAVES or is_meta(n) else frozenset({n})
    return self.buffers[u]

  def _shares_a_kept_node(self, nodes: list) -> bool:
    return any(n in self.pending_nodes and n.op not in VIEWS and len(self._reads(n)) > SHARED_NODE_BUFFERS for n in nodes)

  def _flush(self):
    if not self.pending: return
    sinks = [r.substitute(self.done) if self.done else r for r in self.pending]
    s = schedule(sinks)
    for original, sink in zip(self.pending, sinks):
      self.done[original] = s.buffer_map[sink] if sink in s.buffer_map else sink
      self.scheduled[original] = sink
    self.schedules.append(s)
    self.pending = []
    self.pending_nodes = set()

  def add(self, request: UOp, private: bool):
    if private:
      self._flush()
      self.pending = [request]
      self._flush()
      return
    nodes = self._computed_nodes(request)
    if self._shares_a_kept_node(nodes): self._flush()
    self.pending.append(request)
    self.pending_nodes.update(nodes)

  def add_together(self, requests: list):
    """Requests laid out in one schedule of their own, whatever nodes they share: as one
    Tensor.realize of them all schedules them."""
    self._flush()
    self.pending = list(dict.fromkeys(requests))
    self._flush()

  def scheduled_value(self, request: UOp) -> UOp:
    """A request's buffer (as a view of it), its schedule laid out now if it is still pending."""
    if request not in self.done: self._flush()
    return self.done[request]

  def finish(self) -> list[Schedule]:
    self._flush()
    return self.schedules

  def buffer(self, request: UOp):
    """The device Buffer a request's value is in once the run is done."""
    value = self.done[request]
    return value.base.buffer if value.base.op is Ops.BUFFER else None

  def created(self, request: UOp) -> bool:
    """Whether the run made the request's buffer (a request of a view of an existing buffer is that
    buffer: it belongs to whoever made it, and must not be freed)."""
    base = self.done[request].base
    return base.op is Ops.BUFFER and base not in {x for x in self.scheduled[request].toposort() if x.op is Ops.BUFFER}


def eager_schedule(roots: list[UOp]) -> Schedule | None:
  """What Tensor.realize(*outputs) schedules: every root without a buffer of its own."""
  to_realize = [r for r in roots if r.device is not None and not r.has_buffer_identity()]
  if not to_realize: return None
  eager = schedule(to_realize)
  eager.live = True
  return eager


# ---------------------------------------------------------------------------------------------
# Capture: every requested node's value, the outputs from eager's own schedule
# ---------------------------------------------------------------------------------------------

def with_ownership(buffers: list, created: list | None = None) -> list:
  """(buffer, whether the reader may free it once copied) per value: a buffer this run made
  (`created`, default all), at its last appearance only, since equal requests share one buffer."""
  created = created if created is not None else [True] * len(buffers)
  mine = {id(b) for b, c in zip(buffers, created) if c and b is not None and not isinstance(b, bytes)}
  foreign = {id(b) for b, c in zip(buffers, created) if not c and b is not None}
  last = {id(b): i for i, b in enumerate(buffers) if b is not None}
  return [(b, id(b) in mine and id(b) not in foreign and last[id(b)] == i) for i, b in enumerate(buffers)]


def fresh_buffer(data, dtype, shape) -> UOp:
  """A new realized buffer holding `data` (bytes or a buffer of them), shaped: a payload handed back
  (`dtype` a payload dtype's name) or a buffer's saved bytes (`dtype` tinygrad's)."""
  from tinygrad.tensor import Tensor
  dtype = getattr(dtypes, tinygrad_dtype_name(dtype)) if isinstance(dtype, str) else dtype
  return Tensor(bytes(data), dtype=dtype).reshape(tuple(shape)).uop


@dataclass
class Live:
  """What a live trace keeps from its capture: each op's node, the forward's outputs, the capture's
  plan (so a replay builds each op as the capture did), the requested nodes, eager's map (what
  eager's schedule realized: the outputs' replay reads it), and the buffers the forward writes (the
  RNG counter, a cache) as they were before the capture's evaluation wrote them: a replay or a
  gradient recomputes a lazy weight from them as the capture's requests did."""
  nodes: list
  roots: list
  plan: Plan
  requested: set
  eager_map: dict
  written_before: dict = field(default_factory=dict)  # written buffer's node -> (bytes, dtype, shape)
  index: dict = field(default_factory=dict)
  _bits: dict | None = None

  def __post_init__(self):
    self.index = {u: i for i, u in enumerate(self.nodes)}

  def data_leaf(self, u: UOp) -> bool:
    """Whether u is an op that holds data (an input, a buffer constant): no op among its sources, a
    buffer (or a copy of one) below it. A lazy constant (a random weight) is not: its expression is."""
    return (u in self.index and u.base.op in (Ops.BUFFER, Ops.COPY) and not self.plan.constish.get(u, False)
            and not any(s in self.index for s in u.src))

  def state_before(self) -> dict:
    """Fresh buffers of the written buffers as they were before the capture wrote them."""
    return {buffer: fresh_buffer(*saved) for buffer, saved in self.written_before.items()}

  def lazy_bits(self) -> dict:
    """Each lazy weight's random bits (a CONTIGUOUS no op stands for, over the buffers the forward
    writes), computed once, over the before-state: node -> (bytes, dtype, shape). tinygrad realizes a
    CONTIGUOUS into a buffer of its own wherever it is read, so a graph that reads a fresh buffer of
    these bytes instead computes what it would, without computing the bits again (the threefry of a
    64x64 weight costs as much as a matmul on DEV=PYTHON)."""
    if self._bits is None:
      written, reads_written, found = set(self.written_before), {}, []
      for u in UOp.sink(*self.nodes).toposort():
        reads_written[u] = u in written or any(reads_written[s] for s in u.src)
        if u.op is Ops.CONTIGUOUS and u not in self.index and reads_written[u] and 0 not in u.shape: found.append(u)
      self._bits = {}
      if found:
        state = self.state_before()
        requests = Requests()
        sinks = [without_writes(u.substitute(state, walk=True)) for u in found]
        for sink in sinks: requests.add(sink, private=False)
        run(requests.finish())
        for u, sink in zip(found, sinks):
          self._bits[u] = (bytes(requests.buffer(sink).as_memoryview()), u.dtype, u.shape)
    return self._bits

  def before_forward(self) -> dict:
    """What every rebuilt graph reads in place of the forward's state: fresh buffers of the written
    buffers as they were before the capture wrote them, and of the lazy weights' random bits."""
    return {**self.state_before(), **{u: fresh_buffer(*bits) for u, bits in self.lazy_bits().items()}}

  def over_payloads(self, u: UOp, payload: Callable, given: dict | None = None, state: dict | None = None) -> UOp:
    """u's graph with each data leaf read from `payload(op index)`, each buffer the forward writes as
    it was before the capture wrote it, the `given` nodes replaced, and writes read as values: u
    recomputed from the trace's leaves as the capture's request computed it (a lazy weight's random
    expression inlined, as tinygrad fuses it where that weight is read; reading eager's realized
    weight instead would let tinygrad fuse, and sum, otherwise). `state`: what before_forward() gave
    for another graph this one is scheduled with (default: fresh buffers of its own)."""
    subs = {**(self.before_forward() if state is None else state), **(given or {})}
    for n in u.toposort(gate=lambda x: x not in subs):
      if n not in subs and self.data_leaf(n): subs[n] = payload(self.index[n])
    return without_writes(u.substitute(subs, walk=True) if subs else u)

  def realized(self, u: UOp) -> UOp:
    """A node no op stands for, as it is after the capture: eager's buffer where eager realized it,
    its value with writes read as values otherwise."""
    mapped = self.eager_map.get(u)
    return mapped if mapped is not None else without_writes(u)


@dataclass
class Captured:
  """What a capture's evaluation hands back: per requested node, a Buffer to copy from (or bytes read
  before the run, or None for an empty tensor) and whether the capture owns that buffer (may free it
  once copied); the same for each root; the kernels that ran; and what the live trace keeps."""
  values: list
  owned: list
  root_values: list
  kernels: int
  live: Live


def in_range(value: UOp) -> UOp:
  """A literal as its dtype stores it: tinygrad's graphs hold constants such as uint8 -1 (from a
  subtraction), which every device wraps as it stores them (255) but DEV=PYTHON's store refuses."""
  if value.op is not Ops.CONST or not dtypes.is_int(value.dtype.scalar()): return value
  stored = truncate[value.dtype.scalar()](value.arg)
  return value if stored == value.arg else value.replace(arg=stored)


def is_lazy_constant(u: UOp, ops) -> bool:
  """Whether u is a lazy weight's expression (a default-init layer's random values, drawn with
  contiguous=False): no op (of `ops`) among its sources and no buffer itself, yet a buffer below it
  (the RNG's counter)."""
  return (not any(s in ops for s in u.src) and u.base.op not in (Ops.BUFFER, Ops.COPY)
          and any(n.op is Ops.BUFFER for n in u.toposort()))


def capture(nodes: list[UOp], requested: list[bool], roots: list[UOp], apply_map: Callable) -> Captured:
  """`nodes`: every op's node, in op order; `requested[i]`: op i needs a payload from the evaluation
  (the others are views the caller derives on the host); `roots`: the forward's outputs."""
  with evaluation_context():
    return _capture(nodes, requested, roots, apply_map)


def _capture(nodes, requested_mask, roots, apply_map) -> Captured:
  requested = [u for u, r in zip(nodes, requested_mask) if r]
  plan = make_plan(list(nodes) + list(roots), faithful=roots)
  wanted = set(requested)
  requests = Requests()
  request_of: dict[UOp, UOp] = {}
  leaves: dict[UOp, UOp] = {}

  def leaf(u):  # the graph as it is, its writes read as values: the writes run once, in eager's schedule
    if u not in leaves and u.op is Ops.CONTIGUOUS and 0 not in u.shape and u.src[0] in wanted:
      # a CONTIGUOUS of an op is that op's value alone, which the op's request holds: read there, not
      # computed again from the leaves (a transformer block's output, every layer below it)
      leaves[u] = request(u.src[0])
    if u not in leaves:
      leaves[u] = without_writes(u)
      if u.op is Ops.CONTIGUOUS and 0 not in u.shape:
        # tinygrad realizes a CONTIGUOUS into a buffer of its own wherever it is read (a random weight's
        # bits): computed once, every request reads that buffer, as each would alone
        requests.add(leaves[u], private=False)
    return leaves[u]

  def realized(u):  # what a faithful node's graph reads for a node tinygrad realizes there: its buffer
    if u.op is Ops.CONTIGUOUS and 0 not in u.shape and u.src[0] in wanted:
      return requests.scheduled_value(leaf(u))  # its op's value alone, eager's or not
    if u in eager_map: return None  # the replay reads eager's value for it: computed whole in both
    if u in wanted: return requests.scheduled_value(request(u))
    if u.op is Ops.CONTIGUOUS and 0 not in u.shape: return requests.scheduled_value(leaf(u))
    return None

  builder = Builder(plan, frontier=lambda u: request(u) if u in wanted else None, leaf=leaf,
                    whole=lambda u, given: without_writes(u.substitute(given, walk=True)) if given else leaf(u),
                    realized=realized)

  recorded = set(nodes)

  def request(u):
    if u not in request_of:
      request_of[u] = r = in_range(builder.value(u)).contiguous()
      # A lazy constant (a weight drawn with contiguous=False) is computed in a schedule of its own,
      # as alone: tinygrad draws two lazy random expressions realized in one kernel alike.
      requests.add(r, private=u in plan.faithful or bool(plan.context.get(u)) or is_lazy_constant(u, recorded))
    return request_of[u]

  # Eager's schedule of the outputs (it runs last); what it realizes is read from it.
  eager = eager_schedule(roots)
  # A write whose buffer a later write writes again: tinygrad writes both into the one buffer, so
  # eager's buffer holds the later value and the earlier write's is computed like any other op's.
  overwritten = {u.src[0] for u in UOp.sink(*roots, *requested).toposort() if is_buffer_write(u) and is_buffer_write(u.src[0])}
  eager_map = {u: b for u, b in eager.buffer_map.items() if u not in overwritten} if eager else {}

  def eager_value(u):
    """What eager's schedule leaves for u: its buffer, or u's own (an input returned as it is); None
    where eager realizes only u's base (a view: the caller derives it from its parent)."""
    if 0 in u.shape: return None
    if u in eager_map: return eager_map[u].base.buffer
    return u.base.buffer if u.has_buffer_identity() and u.base.op is Ops.BUFFER else None

  # The buffers the forward writes, as the requests read them (eager's schedule, last, writes them).
  written_before = {}
  for u in UOp.sink(*roots, *requested).toposort():
    # the buffer itself, or its reshape (a view assign's node: tinygrad's `has_buffer_identity`)
    if is_buffer_write(u) and u.src[0].base.op is Ops.BUFFER and u.src[0].has_buffer_identity() \
       and u.src[0].base.buffer.is_allocated():
      written = u.src[0]
      written_before[written] = (bytes(written.base.buffer.as_memoryview()), written.dtype, written.shape)
  before: dict[UOp, bytes] = {}
  from_eager: set = set()
  for u in requested:
    base = u.base
    if base.op is Ops.BUFFER and base.buffer.is_allocated() and u.has_buffer_identity():
      before[u] = bytes(base.buffer.as_memoryview())  # an input or closure: the value the forward started from
    elif 0 in u.shape:
      continue
    elif u in eager_map:
      from_eager.add(u)
    else:
      request(u)
  schedules = requests.finish()
  kernels = run(schedules + ([eager] if eager else []))
  if eager: apply_map(eager.buffer_map)
  # where eager's schedule repeats a request's kernel it reads that request's buffer (tl_kernels), and
  # the live tensors hold it now: never freed
  live_buffers = {id(b.base.buffer) for b in eager.buffer_map.values() if b.base.op is Ops.BUFFER} if eager else set()

  values, created = [], []
  for u in requested:
    made = False
    if u in before: value = before[u]
    elif 0 in u.shape: value = None
    elif u in from_eager: value = eager_value(u)  # eager's own value: live tensors hold it now
    else:
      value = requests.buffer(request_of[u])
      made = requests.created(request_of[u]) and id(value) not in live_buffers
    values.append(value)
    created.append(made)
  owned = [free for _, free in with_ownership(values, created)]
  live = Live(list(nodes), list(roots), plan, wanted, eager_map, written_before)
  return Captured(values, owned, [eager_value(u) for u in roots], kernels, live)


def rebuilt(live: Live, payloads: list, replacements: dict | None = None, frozen: set | None = None,
            buffer: Callable | None = None) -> dict:
  """Each op's node as it stood when captured, rebuilt over buffers of the saved payloads: every op
  that holds data (an input, a buffer constant), every replaced op and every `frozen` op reads a fresh
  buffer; what no op stands for (a lazy weight's parts) is its expression, over the buffers the
  forward writes as they were before the capture wrote them (as the capture's requests and a tensor
  read on its own after the forward compute it); writes are read as values. `payloads[i]` (and a
  replacement) is (data, dtype name, shape). `buffer(i)`: the buffer op i's payload is read from
  (default: a fresh one). Returns node -> rebuilt."""
  subs: dict[UOp, UOp] = {}
  replacements, frozen = replacements or {}, frozen or set()
  buffer = buffer or (lambda i: fresh_buffer(*payloads[i]))
  for i, u in enumerate(live.nodes):
    if i in replacements: subs[u] = fresh_buffer(*replacements[i])
    elif (i in frozen or live.data_leaf(u)) and payloads[i] is not None: subs[u] = buffer(i)
  subs = {**live.before_forward(), **subs}
  sink = without_writes(UOp.sink(*live.nodes).substitute(subs))
  return dict(zip(live.nodes, sink.src))


def judged_ops(live: Live) -> list:
  """The ops the cells hold against their values alone: every intermediate the capture computed or
  read from eager's schedule, whatever its plan (not an output, whose payload is eager's value of the
  outputs realized together, nor an op an output is a view of that eager's schedule realized: that
  view is its payload; not an input or a buffer constant, whose payload is a leaf; not a literal
  expression, which reads no buffer; not a view, its parent's payload moved; not a write eager's
  schedule made)."""
  reads_buffer: dict[UOp, bool] = {}  # a literal's expression is its payload: nothing to compute alone
  for n in UOp.sink(*live.nodes).toposort():
    reads_buffer[n] = n.op is Ops.BUFFER or any(reads_buffer.get(x, False) for x in n.src)
  # an op an output is a view of, where eager's schedule realized it, holds eager's value too; so does a
  # write eager's schedule made: its payload is the state the forward left (state_afterwards checks it)
  outputs = set(live.roots) | {view_base(r) for r in live.roots if view_base(r) in live.eager_map} | {
    u for u in live.eager_map if is_buffer_write(u)}
  return [i for i, u in enumerate(live.nodes) if (u in live.requested or u in live.eager_map) and u not in outputs
          and u.op not in VIEWS and not live.data_leaf(u) and reads_buffer.get(u, True)]


def alone_costs(live: Live, ops: list) -> list:
  """What realizing each listed op on its own costs: the nodes tinygrad fuses into that op's own
  kernel, down to the buffers it reads (data leaves, a lazy weight's random bits) and the reductions
  it reads (each reduction's kernel is counted as that reduction's own cost: compiled once, its kernel
  reused). A deep elementwise chain's last op costs as many nodes as the chain, a layer's output its
  layer. A graph of the same structure as an earlier one over other buffers (the next block's
  attention) costs one node: tinygrad's schedule cache keys a graph by its structure, its buffers
  taken as parameters. One pass: each node's region is a bit set, its own bit or'ed with its
  sources' (a reduction source's own bit only, its highest), and its structure a hash of its own and its sources'."""
  region: dict[UOp, int] = {}
  structure: dict[UOp, int] = {}
  for k, n in enumerate(UOp.sink(*(live.nodes[i] for i in ops)).toposort()):
    region[n] = 1 << k
    if n.op is Ops.BUFFER or live.data_leaf(n) or (n.op is Ops.CONTIGUOUS and n not in live.index):
      structure[n] = hash((Ops.BUFFER, n.dtype, n.arg if n.op is Ops.BUFFER else n.shape))
      continue
    for s in n.src: region[n] |= 1 << (region[s].bit_length() - 1) if s.op is Ops.REDUCE else region[s]
    structure[n] = hash((n.op, n.dtype, n.arg, tuple(structure[s] for s in n.src)))
  costs, scheduled = [], set()
  for i in ops:
    u = live.nodes[i]
    costs.append(1 if structure[u] in scheduled else region[u].bit_count())
    scheduled.add(structure[u])
  return costs


def alone(live: Live, payloads: list, ops: list) -> list:
  """Each listed op's value as tinygrad gives its node realized on its own (`t.numpy()`), over the
  captured leaves: a schedule of its own per op, all in one run (a kernel two ops' schedules share
  runs once). What the capture's values are checked against."""
  with evaluation_context():
    nodes = rebuilt(live, payloads)
    requests = Requests()
    sinks = [None if 0 in nodes[live.nodes[i]].shape else nodes[live.nodes[i]].contiguous() for i in ops]
    for sink in dict.fromkeys(s for s in sinks if s is not None): requests.add(sink, private=True)
    run(requests.finish())
    values = [None if s is None else requests.buffer(s) for s in sinks]
    return with_ownership(values, [s is not None and requests.created(s) for s in sinks])
