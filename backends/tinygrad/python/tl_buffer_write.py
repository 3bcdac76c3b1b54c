"""A forward's write into a buffer, AFTER(buffer, STORE(view of buffer, value)) (tinygrad.llm's KV
cache, the RNG counter's advance), read as one op over (buffer, value).

The STORE is void and its target a view of the buffer, so both belong to the op's definition, as a
movement op's shape arguments do. Its functional form (the buffer with the value where the view
writes) computes the same values and writes nothing: what every pure evaluation reads instead."""
from __future__ import annotations

from tinygrad.dtype import dtypes
from tinygrad.uop.ops import Ops, UOp

# The views a write's target may be made of: each has an inverse.
INVERTIBLE_VIEWS = {Ops.RESHAPE, Ops.SHRINK, Ops.PERMUTE, Ops.FLIP}


def is_buffer_write(u: UOp) -> bool:
  """Whether u is AFTER(buffer, STORE(target, value)) with target an invertible view of that buffer.
  Any other AFTER (over a kernel CALL, a gated store, a store through an expand) is not: what it
  writes would be a hole in the trace."""
  if u.op is not Ops.AFTER or len(u.src) != 2 or u.src[1].op is not Ops.STORE or len(u.src[1].src) != 2: return False
  target = u.src[1].src[0]
  while target is not u.src[0] and target.op in INVERTIBLE_VIEWS: target = target.src[0]
  return target is u.src[0]


def op_sources(u: UOp) -> tuple:
  """The sources an op is defined over: (buffer, value) for a buffer write, its src otherwise."""
  return (u.src[0], u.src[1].src[1]) if is_buffer_write(u) else u.src


def rebuild_write(original: UOp, buffer: UOp, value: UOp) -> UOp:
  """A buffer write like `original` over new sources: AFTER(buffer, STORE(same view of buffer, value))."""
  store = original.src[1]
  target = store.src[0].substitute({original.src[0]: buffer})
  return original.replace(src=(buffer, store.replace(src=(target, value))))


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
  target, placed = write.src[1].src
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
