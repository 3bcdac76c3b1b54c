"""A forward's write into a buffer (tinygrad.llm's KV cache, the RNG counter's advance, a slice
assign), read as one op over (buffer, value). Tinygrad 0.13 builds it in one of two forms:

- AFTER(buffer, STORE(target, value)): `t.assign(v)` on a tensor whose node is the buffer itself;
- AFTER(buffer, AFTER(target, STORE(target, value))): `t[0:2].assign(v)`, a view assign, which wraps
  the write in the buffer's own node so every tensor reading the buffer reads it written.

The target is a view of the buffer and the STORE is void, so both belong to the op's definition, as a
movement op's shape arguments do. Its functional form (the buffer with the value where the view
writes) computes the same values and writes nothing: what every pure evaluation reads instead."""
from __future__ import annotations

from tinygrad.dtype import dtypes
from tinygrad.uop.ops import Ops, UOp

# The views a write's target may be made of: each has an inverse.
INVERTIBLE_VIEWS = {Ops.RESHAPE, Ops.SHRINK, Ops.PERMUTE, Ops.FLIP}


def _store(u: UOp) -> UOp | None:
  """The STORE of a write's AFTER in either form, or None."""
  if u.op is not Ops.AFTER or len(u.src) != 2: return None
  effect = u.src[1]
  if effect.op is Ops.AFTER and len(effect.src) == 2 and effect.src[1].op is Ops.STORE \
     and effect.src[1].src and effect.src[1].src[0] is effect.src[0]:  # a view assign's inner AFTER
    effect = effect.src[1]
  return effect if effect.op is Ops.STORE and len(effect.src) == 2 else None


def is_buffer_write(u: UOp) -> bool:
  """Whether u is AFTER(buffer, STORE(target, value)) with target an invertible view of that buffer.
  Any other AFTER (over a kernel CALL, a gated store, a store through an expand) is not: what it
  writes would be a hole in the trace."""
  if (store := _store(u)) is None: return False
  target = store.src[0]
  while target is not u.src[0] and target.op in INVERTIBLE_VIEWS: target = target.src[0]
  return target is u.src[0]


def op_sources(u: UOp) -> tuple:
  """The sources an op is defined over: (buffer, value) for a buffer write, its src otherwise."""
  return (u.src[0], _store(u).src[1]) if is_buffer_write(u) else u.src


def _undo_view(view: UOp, x: UOp) -> UOp:
  """The view undone on x: x has the view's shape, the result its source's."""
  source_shape = view.src[0].shape
  arg = view.marg
  if view.op is Ops.RESHAPE: return x.reshape(source_shape)
  if view.op is Ops.SHRINK: return x.pad(tuple((b, s - e) for (b, e), s in zip(arg, source_shape)))
  if view.op is Ops.PERMUTE:
    inverse = [0] * len(arg)
    for i, p in enumerate(arg): inverse[p] = i
    return x.permute(tuple(inverse))
  return x.flip(tuple(i for i, flipped in enumerate(arg) if flipped))  # FLIP is its own inverse


def functional_write(write: UOp, buffer: UOp | None = None, value: UOp | None = None) -> UOp:
  """The same values as a pure function of (buffer, value): the value moved back into the buffer's
  shape through the inverse of the target view, selected where it was written. Its gradient is the
  written region's for the value and the rest for the buffer (tinygrad's own rule for a STORE passes
  the whole buffer's gradient to the value, which is wrong for a partial write)."""
  buffer = write.src[0] if buffer is None else buffer
  target, placed = _store(write).src
  placed = placed if value is None else value
  written = placed.const_like(True, dtypes.bool)
  view = target
  while view is not write.src[0]:
    placed, written = _undo_view(view, placed), _undo_view(view, written)
    view = view.src[0]
  if target is write.src[0]: return placed  # the whole buffer is written
  return written.where(placed, buffer)


def without_writes(u: UOp) -> UOp:
  """u with every buffer write read as its functional form (outer writes may hold inner ones)."""
  while True:
    writes = {x: functional_write(x) for x in u.toposort() if is_buffer_write(x)}
    if not writes: return u
    u = u.substitute(writes)


def stale_read(roots: list[UOp]) -> UOp | None:
  """A node that reads a buffer as an earlier write left it, outside a later write into that buffer
  (the later write's own target and value may read it), or None. Tinygrad 0.13 runs the later write
  before such a read, so eager's read sees the later value (`ck.assign(x); y = ck * 3; ck.assign(ck *
  2 + 1); y + ck` gives 8 for x = 0.5 where its graph says 3.5): no trace holds both eager's outputs
  and its graph's values."""
  nodes = UOp.sink(*roots).toposort()
  readers: dict[UOp, list[UOp]] = {}
  for n in nodes:
    for s in n.src: readers.setdefault(s, []).append(n)
  for u in nodes:
    if not is_buffer_write(u) or not is_buffer_write(u.src[0]): continue
    store = _store(u)
    own = {u, u.src[1], store, *store.src[1].toposort()}
    target = store.src[0]
    while target is not u.src[0]: own, target = own | {target}, target.src[0]
    for reader in readers[u.src[0]]:
      if reader not in own: return reader
  return None
