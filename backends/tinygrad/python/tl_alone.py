"""Every op's value as tinygrad gives it realized on its own, at about the cost of one capture.

The independent check of a trace (DESIGN.md 5.8): an intermediate's payload must be its value
realized alone (`t.numpy()` right after the forward). That value is tinygrad's own schedule of the op
over the trace's leaves; nothing here reads the capture's plan or an intermediate payload. Two things
make it affordable:

* The schedules of different ops share most of their kernels (a deep layer's schedule realizes every
  layer before it, as those layers' own schedules do). A kernel is known by its program and the
  identities of what it reads (tl_kernels.Identities), and one that repeats another is not run.
* What they do not share is each op's last kernel: an op fused behind a reduction (a bias add, a gelu
  step, a softmax step) sums that reduction again in its own kernel. So tinygrad compiles two
  programs per op: the op's own last kernel, and the op over its sources' values read from buffers
  (one small kernel). Both are compiled without optimizations (every rewrite tinygrad makes, none of
  its tiling), each buffer named by what it holds, and every index rewritten in terms of the flat
  index of the element stored. A source the op's own kernel fuses is replaced, in the small kernel,
  by what the source's own program stores at the element read. Where the small kernel is then the
  op's own program, node for node, both compute the same bits, and the small kernel runs instead
  (`proven`); otherwise the op's own kernel runs (`executed`).

What the proof relies on, and says so: optimizations that tile or vectorize the elements of a kernel
compute each element with the same operations (they change which thread computes it, not how), and
a sum fused into another kernel is summed as in its own kernel when both kernels apply the same
optimizations (checked: a fused sum is only replaced where they do).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from tinygrad.codegen import to_program
from tinygrad.device import Device
from tinygrad.dtype import dtypes, truncate
from tinygrad.engine.realize import get_call_arg_uops, get_call_outs_ins
from tinygrad.helpers import Context
from tinygrad.uop.ops import GroupOp, Ops, UOp, buffers

from tl_evaluation import VIEWS, Live, evaluation_context, rebuilt, schedule, with_ownership
from tl_kernels import Identities, alias, compiled, shareable_outputs, unshareable

DEBUG = False


# ---------------------------------------------------------------------------------------------
# A kernel as a value of the element it stores
# ---------------------------------------------------------------------------------------------

@dataclass
class Program:
  """A kernel compiled without optimizations, as the value it stores at element `flat` of its output
  (each buffer a variable named by what it holds), the names of the buffers it reads, and the
  optimizations tinygrad applies when it runs it."""
  value: UOp
  flat: UOp
  names: set
  opts: tuple


def _buffer_name(x: UOp) -> str | None:
  return x.arg[0] if x.op is Ops.DEFINE_VAR and isinstance(x.arg[0], str) and x.arg[0].startswith("buf:") else None


def _int_subtrees(value: UOp) -> list:
  """The integer-valued sub-expressions a value reads directly (addresses, masks, aranges): each
  integer node that is the value itself or a source of a node that is not an integer."""
  def is_int(x: UOp) -> bool: return dtypes.is_int(x.dtype) and x.dtype.count == 1 and x.op is not Ops.DEFINE_VAR
  roots = {s for x in value.toposort() if not is_int(x) for s in x.src if is_int(s)}
  return list(roots | ({value} if is_int(value) else set()))


def in_terms_of(value: UOp, mapping: dict) -> UOp:
  """`value` with variables replaced by `mapping`, each integer sub-expression simplified by
  tinygrad's own index rules (never a float one: those need not preserve bits)."""
  subs = {}
  for x in _int_subtrees(value):
    if any(v in mapping for v in x.toposort()): subs[x] = x.substitute(mapping, walk=True).simplify()
  return value.substitute(subs, walk=True) if subs else value


def _flat_mapping(index: UOp, size: int) -> tuple | None:
  """The launch variables of a store address, each as a function of the flat index of the element
  it writes: (flat variable, mapping). None unless the address writes every element exactly once in
  row-major order (strides and extents tile [0, size))."""
  variables = [x for x in index.toposort() if x.op in (Ops.SPECIAL, Ops.RANGE)]
  terms = []
  for v in variables:
    stride = index.substitute({w: w.const_like(1 if w is v else 0) for w in variables}).simplify()
    if stride.op is not Ops.CONST or v.src[0].op is not Ops.CONST: return None
    terms.append((stride.arg, v.src[0].arg, v))
  terms.sort(key=lambda t: -t[0])
  expected = size
  for stride, extent, _ in terms:  # each stride the product of the extents after it
    if expected % extent or stride != expected // extent: return None
    expected = stride
  if expected != 1: return None
  flat = UOp(Ops.DEFINE_VAR, dtypes.int, arg=(f"flat{size}", 0, size - 1))
  # the outermost variable needs no remainder: its extent times its stride is the size
  return flat, {v: flat // stride if k == 0 else (flat // stride) % extent for k, (stride, extent, v) in enumerate(terms)}


def program(ast: UOp, optimized: UOp, args: tuple, name_of) -> Program | None:
  """`ast`: a kernel's SINK; `optimized`: its PROGRAM as it runs; `args`: its buffer arguments;
  `name_of(arg, is_output)`: what a buffer is called. None unless it stores into one output once per
  element."""
  if ast.op is not Ops.SINK or optimized.op is not Ops.PROGRAM or len(optimized.arg.outs) != 1: return None
  with Context(NOOPT=1):
    sink = to_program(ast, Device[Device.DEFAULT].renderer).src[0]
  outs = set(optimized.arg.outs)
  names = {p: name_of(args[p.arg], p.arg in outs) for p in sink.toposort() if p.op is Ops.PARAM}
  named = sink.substitute({p: UOp(Ops.DEFINE_VAR, p.dtype, arg=(f"buf:{n}", 0, 0)) for p, n in names.items()})
  stores = [x for x in named.toposort() if x.op is Ops.STORE and x.src[0].op is Ops.INDEX
            and _buffer_name(x.src[0].src[0]) == "buf:out"]  # not a register's
  if len(stores) != 1 or len(stores[0].src[0].src) != 2: return None
  target = stores[0].src[0]
  size = target.src[0].dtype.size if hasattr(target.src[0].dtype, "size") else 0
  found = _flat_mapping(target.src[1], size) if size > 0 else None
  if found is None: return None
  flat, mapping = found
  return Program(in_terms_of(stores[0].src[1], mapping), flat, {n for n in names.values() if n != "out"},
                 tuple(optimized.src[0].arg.applied_opts))


def _store_exact(value: UOp) -> bool:
  """Whether storing a value and loading it back gives the value: a register of DEV=PYTHON holds an
  ALU result already rounded to its dtype (exec_alu truncates it), a load of that dtype, or a literal
  the dtype holds exactly; a literal such as 1.0001 in a float32 register is a double until stored."""
  scalar = value.dtype.scalar()
  if value.op is Ops.CONST: return scalar in truncate and truncate[scalar](value.arg) == value.arg
  if value.op is Ops.LOAD: return True
  return value.op in GroupOp.ALU and scalar in truncate


def _brief(u: UOp, depth: int = 6) -> str:
  """A value's top levels, for a message."""
  if depth == 0: return "..."
  if u.op is Ops.LOAD: return f"load({_buffer_name(u.src[0].src[0]) if u.src[0].op is Ops.INDEX else '?'})"
  if u.op is Ops.CONST: return repr(u.arg)
  if u.op is Ops.DEFINE_VAR: return u.arg[0]
  return f"{u.op.name}({', '.join(_brief(s, depth - 1) for s in u.src)})"


def _first_difference(a: UOp, b: UOp):
  """The first pair of nodes where two values differ (for a message)."""
  if a is b: return None
  if a.op is not b.op or a.arg != b.arg or a.dtype != b.dtype or len(a.src) != len(b.src): return (a, b)
  for x, y in zip(a.src, b.src):
    if (d := _first_difference(x, y)) is not None: return d
  return (a, b)


# The integer (and boolean) functions of the element's indices that a kernel computes: its
# addresses, masks and aranges. Two forms of one function ((flat // 32) * 32 + flat % 32 and flat)
# are one function over the indices' ranges, which tinygrad's simplifier does not always see:
# evaluated over every index value, a function is named by what it gives.
_INDEX_OPS = {Ops.ADD: np.add, Ops.SUB: np.subtract, Ops.MUL: np.multiply, Ops.FLOORDIV: np.floor_divide,
              Ops.FLOORMOD: np.mod, Ops.SHL: np.left_shift, Ops.SHR: np.right_shift, Ops.AND: np.bitwise_and,
              Ops.OR: np.bitwise_or, Ops.XOR: np.bitwise_xor, Ops.MAX: np.maximum, Ops.CMPLT: np.less,
              Ops.CMPNE: np.not_equal, Ops.CMPEQ: np.equal}
_INDEX_POINTS = 1 << 22  # the most index values one function is evaluated at


def _is_index(x: UOp) -> bool:
  return x.dtype.count == 1 and (dtypes.is_int(x.dtype) or x.dtype == dtypes.bool)


def _index_variable(x: UOp) -> int | None:
  """The number of values an index variable takes (it takes 0 .. n-1), or None if x is none."""
  if x.op is Ops.DEFINE_VAR and isinstance(x.arg[0], str) and x.arg[0].startswith("flat"): return x.arg[2] + 1
  if x.op in (Ops.RANGE, Ops.SPECIAL) and x.src[0].op is Ops.CONST: return x.src[0].arg
  return None


def _evaluate(x: UOp, at: dict, memo: dict):
  if x in memo: return memo[x]
  if x in at: result = at[x]
  elif x.op is Ops.CONST and isinstance(x.arg, (int, bool)): result = np.int64(x.arg)
  elif x.op is Ops.CAST and _is_index(x.src[0]):
    result = _evaluate(x.src[0], at, memo)
    result = result != 0 if x.dtype == dtypes.bool else result.astype(np.int64) if hasattr(result, "astype") else np.int64(result)
  elif x.op is Ops.NEG: result = -_evaluate(x.src[0], at, memo)
  elif x.op is Ops.MULACC: result = _evaluate(x.src[0], at, memo) * _evaluate(x.src[1], at, memo) + _evaluate(x.src[2], at, memo)
  elif x.op is Ops.WHERE: result = np.where(_evaluate(x.src[0], at, memo), _evaluate(x.src[1], at, memo), _evaluate(x.src[2], at, memo))
  elif x.op in _INDEX_OPS: result = _INDEX_OPS[x.op](_evaluate(x.src[0], at, memo), _evaluate(x.src[1], at, memo))
  else: raise KeyError(x.op)
  memo[x] = result
  return result


class IndexNames:
  """Names index functions by their values: a value with every index sub-expression replaced by a
  variable named by what it gives at every index."""

  def __init__(self):
    self.memo: dict[UOp, UOp] = {}

  def _name(self, x: UOp) -> UOp:
    if x in self.memo: return self.memo[x]
    variables = sorted({v for v in x.toposort() if _index_variable(v) is not None}, key=lambda v: (v.op.value, str(v.arg)))
    named = x
    points = int(np.prod([_index_variable(v) for v in variables])) if variables else 1
    if all(v.op in (Ops.CONST, Ops.DEFINE_VAR, Ops.RANGE, Ops.SPECIAL, Ops.CAST, Ops.NEG, Ops.MULACC, Ops.WHERE)
           or v.op in _INDEX_OPS for v in x.toposort()) and points <= _INDEX_POINTS:
      grids = np.meshgrid(*[np.arange(_index_variable(v), dtype=np.int64) for v in variables], indexing="ij") if variables else []
      try:
        values = np.broadcast_to(_evaluate(x, dict(zip(variables, grids)), {}), grids[0].shape if grids else ())
        key = hashlib.sha256(repr((x.dtype, [(v.op, v.arg, _index_variable(v)) for v in variables])).encode() +
                             np.ascontiguousarray(values, dtype=np.int64).tobytes()).hexdigest()
        named = UOp(Ops.DEFINE_VAR, x.dtype, arg=(f"index:{key}", 0, 0))
      except (KeyError, ValueError, OverflowError, ZeroDivisionError):
        pass
    self.memo[x] = named
    return named

  def __call__(self, value: UOp) -> UOp:
    roots = {s for x in value.toposort() if not _is_index(x) for s in x.src if _is_index(s) and s.op is not Ops.DEFINE_VAR}
    if _is_index(value): roots.add(value)
    subs = {r: self._name(r) for r in roots if not any(y.op in (Ops.LOAD, Ops.DEFINE_REG, Ops.INDEX) for y in r.toposort())}
    return value.substitute({k: v for k, v in subs.items() if k is not v}, walk=True)


def _accumulates(value: UOp) -> bool:
  return any(x.op is Ops.DEFINE_REG for x in value.toposort())


# ---------------------------------------------------------------------------------------------
# Every op alone
# ---------------------------------------------------------------------------------------------

@dataclass
class _Op:
  index: int
  node: UOp                   # the op's node rebuilt over the trace's leaves
  calls: list                 # its schedule alone, compiled
  asts: dict                  # compiled call -> its kernel AST
  final: UOp | None = None    # the call that writes its value
  target: UOp | None = None   # the buffer node its value is written to
  identity: int | None = None
  program: Program | None = None
  cut: list | None = None     # the small kernel's calls, where proven
  sources: dict = field(default_factory=dict)  # op index -> the placeholder buffer the small kernel reads


class AloneValues:
  """Plans and runs every listed op's value alone (one run); `how[i]` says how op i's was computed."""

  def __init__(self, live: Live, payloads: list, ops: list):
    self.nodes = rebuilt(live, payloads)
    self.op_of = {self.nodes[u]: i for i, u in enumerate(live.nodes)}
    self.ops: dict[int, _Op] = {}
    self.how: dict[int, str] = {}
    self._reads: dict[UOp, bool] = {}
    self.index_names = IndexNames()
    for i in sorted(set(ops)):
      node = self.nodes[live.nodes[i]]
      if 0 in node.shape: continue
      s = schedule([node.contiguous()])
      calls = list(compiled(s.linear).src)
      entry = _Op(i, node, calls, dict(zip(calls, (c.src[0] for c in s.linear.src))))
      value = s.buffer_map.get(node.contiguous())
      entry.target = value.base if value is not None else None
      written = {get_call_arg_uops(c)[k]: c for c in calls for k in get_call_outs_ins(c)[0]}
      entry.final = written.get(entry.target)
      self.ops[i] = entry

  def _identities(self):
    """Every op's schedule walked in op order, as alone semantics: the identity of each op's value."""
    self.ids = Identities()
    self.call_keys: dict = {}
    self.fixed = frozenset(unshareable([c for e in self.ops.values() for c in e.calls]))
    for entry in self.ops.values():
      for call in entry.calls:
        key = self.ids.key(call, self.fixed)
        self.call_keys[(entry.index, call)] = key
        out_ids = self.ids.wrote(call, key)
        if call is entry.final:
          outs = [get_call_arg_uops(call)[k] for k in get_call_outs_ins(call)[0]]
          entry.identity = out_ids[outs.index(entry.target)]
      if entry.final is None and entry.target is not None: entry.identity = self.ids.holds(entry.target)

  def _computed(self, u: UOp) -> bool:
    """Whether a node reads a buffer (a constant expression is cheaper to compute again than to load)."""
    if u not in self._reads:
      for x in u.toposort(gate=lambda x: x not in self._reads):
        if x not in self._reads: self._reads[x] = x.op is Ops.BUFFER or any(self._reads[s] for s in x.src)
    return self._reads[u]

  def _name(self, uop: UOp, output: bool) -> str:
    return "out" if output else f"v{self.ids.holds(uop)}"

  def _small(self, entry: _Op, depth: int) -> tuple | None:
    """The op over the values of the ops `depth` steps below it (and of any sum nearer: a sum is never
    computed again), everything between inlined: (its graph, the placeholder buffer per op read)."""
    placeholders: dict[int, UOp] = {}
    memo: dict = {}
    computed = self._computed

    def build(u: UOp, level: int) -> UOp:
      if (u, level) in memo: return memo[(u, level)]
      i = self.op_of.get(u)
      result = u
      if i is not None and level > 0 and i in self.ops and self.ops[i].identity is not None and computed(u) and (
          level >= depth or u.op is Ops.REDUCE):
        if i not in placeholders: placeholders[i] = UOp.new_buffer(Device.DEFAULT, u.numel(), u.dtype).reshape(u.shape)
        result = placeholders[i]
      elif u.src and u.dtype.scalar() not in (dtypes.void, dtypes.weakint) and (level == 0 or i is not None or u.op in VIEWS):
        src = tuple(s if s.dtype.scalar() in (dtypes.void, dtypes.weakint) else build(s, level + (0 if u.op in VIEWS else 1))
                    for s in u.src)
        result = u if src == u.src else u.replace(src=src)
      memo[(u, level)] = result
      return result

    return build(entry.node, 0), placeholders

  def _prove(self, entry: _Op):
    """Whether the op over the values of ops below it (one small kernel) is provably its own last
    kernel: tried over the ops 1, 2, 3 and 4 steps below."""
    own = entry.program
    if own is None or entry.node.op is Ops.CONTIGUOUS: return
    tried = set()
    for depth in (1, 2, 3, 4):
      graph, placeholders = self._small(entry, depth)
      if not placeholders or graph in tried: continue
      tried.add(graph)
      if self._same(entry, graph, placeholders):
        return

  def _same(self, entry: _Op, graph: UOp, placeholders: dict) -> bool:
    own = entry.program
    cut = schedule([graph.contiguous()])
    calls = list(compiled(cut.linear).src)
    if len(calls) != 1: return False
    named = {p.base: f"v{self.ops[i].identity}" for i, p in placeholders.items()}
    small = program(cut.linear.src[0].src[0], calls[0].src[0], get_call_arg_uops(calls[0]),
                    lambda uop, output: "out" if output else named.get(uop) or self._name(uop, False))
    if small is None or small.flat is not own.flat: return False
    by_name = {f"buf:v{self.ops[i].identity}": self.ops[i] for i in placeholders}
    swaps = {}
    for load in small.value.toposort():
      if load.op is not Ops.LOAD or load.src[0].op is not Ops.INDEX: continue
      name = _buffer_name(load.src[0].src[0])
      if name is None or name[4:] in own.names or name not in by_name: continue
      stored = by_name[name].program  # a source fused into the op's own kernel: what it stores there
      if stored is None or load.dtype != stored.value.dtype or len(load.src[0].src) != 2 or not _store_exact(stored.value):
        return False
      if _accumulates(stored.value) and stored.opts != own.opts:
        if DEBUG: print("NOT PROVEN (opts)", entry.node.op, stored.opts, own.opts)
        return False  # a sum fused here is summed as this kernel's optimizations order it
      swaps[load] = in_terms_of(stored.value, {stored.flat: load.src[0].src[1]})
    value = small.value.substitute(swaps) if swaps else small.value
    if self.index_names(value) is not self.index_names(own.value):
      if DEBUG:
        d = _first_difference(own.value, value)
        print("NOT PROVEN", entry.node.op, entry.node.shape, "\nOWN", _brief(own.value), "\nSMALL", _brief(value), "\nDIFF", d[0] if d else None, "\nVS", d[1] if d else None)
      return False
    entry.cut, entry.sources = calls, placeholders
    return True

  def plan(self):
    self._identities()
    for entry in self.ops.values():
      if entry.final is not None:
        entry.program = program(entry.asts[entry.final], entry.final.src[0], get_call_arg_uops(entry.final), self._name)
    for entry in self.ops.values(): self._prove(entry)

  def run(self, run_linear) -> dict:
    """Runs what the plan needs in one linear; returns each op's value holder (a node whose Buffer
    holds it), by op index."""
    holder_of: dict[int, UOp] = {}   # identity -> the node whose Buffer holds that value
    emitted = []
    for entry in self.ops.values():
      for call in entry.calls:
        outs = get_call_outs_ins(call)[0]
        args = get_call_arg_uops(call)
        key = self.call_keys[(entry.index, call)]
        out_ids = [self.ids.of((key, n)) for n in range(len(outs))]
        if call is entry.final and entry.cut is not None:
          for i, placeholder in entry.sources.items(): buffers[placeholder.base] = holder_of[self.ops[i].identity].buffer
          emitted.extend(entry.cut)
          cut_args, cut_outs = get_call_arg_uops(entry.cut[-1]), get_call_outs_ins(entry.cut[-1])[0]
          holder_of.setdefault(entry.identity, cut_args[cut_outs[0]])
          self.how[entry.index] = "proven"
          continue
        if shareable_outputs(call, False, self.fixed) and all(n in holder_of for n in out_ids):
          alias(call, tuple(holder_of[n] for n in out_ids))
        else:
          emitted.append(call)
          for n, i in zip(out_ids, outs): holder_of.setdefault(n, args[i])
        if call is entry.final: self.how[entry.index] = "executed"
      if entry.final is None:
        self.how[entry.index] = "a buffer"
        if entry.target is not None: holder_of.setdefault(entry.identity, entry.target)
    if emitted: run_linear(UOp(Ops.LINEAR, src=tuple(emitted)), self.ids.var_vals)
    self.kernels = len(emitted)
    return {e.index: holder_of.get(e.identity) for e in self.ops.values()}


def alone(live: Live, payloads: list, ops: list) -> tuple:
  """Each listed op's value as tinygrad gives its node realized on its own, over the trace's leaves,
  all in one run. Returns (with_ownership values, how each was computed: "proven" (its sources'
  values through a small kernel provably its own), "executed" (its own last kernel), "a buffer" (its
  value is an existing buffer), or "empty"), in the order of `ops`."""
  import tinygrad.engine.realize as realize_module  # looked up per call: the cells' probe wraps it
  with evaluation_context():
    values = AloneValues(live, payloads, ops)
    values.plan()
    holders = values.run(realize_module.run_linear)
    result, how = [], []
    for i in ops:
      holder = holders.get(i)
      result.append(None if holder is None else holder.buffer)
      how.append(values.how.get(i, "empty"))
    import os, sys, collections  # DEBUG
    if os.environ.get("TL_ALONE_DEBUG"): print("tl_alone:", dict(collections.Counter(how)), "kernels", values.kernels, file=sys.stderr)
    return with_ownership(result), how


def judged_ops(live: Live) -> list:
  """The ops the independent check holds against their values alone: every op the capture computed
  (not an input or buffer constant, whose payload is a leaf, not a view, which is its parent's payload
  moved, and not an output, whose payload is eager's own value)."""
  return [i for i, u in enumerate(live.nodes)
          if u in live.requested and u not in live.eager_map and u.op not in VIEWS and not live.data_leaf(u)]
