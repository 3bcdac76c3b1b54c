"""Derived gradients: the captured graph rebuilt over the saved payloads, differentiated by tinygrad's
own autograd, and evaluated as tinygrad evaluates it.

The graph is the capture's: inputs and realized constants read from buffers of their payloads, a lazy
weight as its expression over what eager realized of it (so no RNG counter moves), writes into
buffers as their values. The inputs' gradients are realized in one schedule, as
``Tensor.realize(*loss.gradient(*inputs))`` realizes them right after an eager forward, nothing
realized before them (the cells compare the two bit for bit); every other op's gradient as tinygrad
gives it realized alone."""
from __future__ import annotations

from tinygrad.dtype import dtypes
from tinygrad.tensor import Tensor
from tinygrad.uop.ops import GroupOp, Ops, UOp

from tl_buffer_write import op_sources
from tl_evaluation import (VIEWS, Builder, Live, Requests, eager_schedule, evaluation_context, fresh_buffer, make_plan, rebuilt, run,
                           with_ownership)


def default_loss(outputs: list, wide: bool = False):
  """The sum of every float output's elements (`wide`: each widened to float64 first, so the sum adds
  no rounding of its own: what finite differences of a narrow output need). The eager twin builds
  its loss with this same function."""
  loss = None
  for output in outputs:
    if not output.is_floating_point(): continue
    term = (output.cast(dtypes.float64) if wide else output).sum()
    loss = term if loss is None else loss + term
  if loss is None: raise RuntimeError("no float output to sum into a loss; give GradOptions.loss")
  return loss


def loss_of(outputs: list, expression: str, wide: bool = False):
  if not expression: return default_loss(outputs, wide)
  return eval(expression, {"outputs": outputs, "Tensor": Tensor})  # noqa: S307 - the caller's own option


def _concrete(view: UOp) -> bool:
  """Whether a movement's arguments are all integers (a symbolic one leaves the view to tinygrad)."""
  return all(isinstance(a, int) if not isinstance(a, tuple) else all(isinstance(b, int) for b in a) for a in view.marg)


def _view_of_another(g: UOp, computed: dict, own: int) -> tuple | None:
  """(target position, views from it up to g) where g is concrete views over another target's
  gradient: the host derives it from that payload (host_views.h), as a capture derives a view, instead
  of tinygrad materializing a copy (a matmul's product's gradient: 262,144 elements)."""
  views, u = [], g
  while u.op in VIEWS and _concrete(u):
    views.append(u)
    u = u.src[0]
    if computed.get(u, own) != own: return computed[u], views[::-1]
  return None


def derive(live: Live, payloads: list, outputs: list, expression: str, targets: list, inputs: list) -> tuple:
  """d loss / d op for every op in `targets` (float ops), in target order: a list of (Buffer, owned)
  and a dict of the ones the host derives instead, position -> (position of the gradient it is views
  of, those views). `inputs` are the input ops among the targets, realized together as an eager twin
  realizes an input gradient; another target's gradient that eager's schedule realizes (the base of an
  input's) is read from there."""
  with evaluation_context():
    nodes = rebuilt(live, payloads)
    loss = loss_of([Tensor(nodes[live.nodes[i]]) for i in outputs], expression)
    target_tensors = [Tensor(nodes[live.nodes[i]]) for i in targets]
    gradients = [g.uop for g in loss.gradient(*target_tensors)]
    # an input gradient that reads no buffer (a zero where the loss does not reach) has no eager kernel
    input_set = {i for i, g in zip(targets, gradients) if i in set(inputs) and any(x.op is Ops.BUFFER for x in g.toposort())}
    eager = eager_schedule([g for i, g in zip(targets, gradients) if i in input_set and 0 not in g.shape])
    eager_map = eager.buffer_map if eager else {}
    first = {}
    for k, g in enumerate(gradients): first.setdefault(g, k)
    host = {k: view for k, (i, g) in enumerate(zip(targets, gradients))
            if i not in input_set and 0 not in g.shape and (view := _view_of_another(g, first, k)) is not None}
    realized = {g for g in gradients if g in eager_map}  # target gradients eager's schedule realizes
    others = [(i, g) for k, (i, g) in enumerate(zip(targets, gradients)) if i not in input_set and k not in host and g not in realized]
    plan = make_plan([g for _, g in others], exact=False) if others else None
    requests = Requests()
    request_of = {}
    if plan is not None:
      # a gradient reads forward values (a relu's mask, a product's other factor): their saved payloads
      forward = {nodes[u]: i for i, u in enumerate(live.nodes) if payloads[i] is not None}
      store: dict[int, UOp] = {}

      def frontier(u):
        if u in realized: return eager_map[u]
        if u in wanted: return request(u)
        if u in forward:
          if forward[u] not in store: store[forward[u]] = fresh_buffer(*payloads[forward[u]])
          return store[forward[u]]
        return None

      builder = Builder(plan, frontier=frontier, leaf=lambda u: u, whole=lambda u, given: u.substitute(given, walk=True) if given else u)
      wanted = set(g for _, g in others)

      def request(u):
        if u not in request_of:
          request_of[u] = r = builder.value(u).contiguous()
          requests.add(r, private=u in plan.faithful or bool(plan.context.get(u)))
        return request_of[u]

      for _, g in others:
        if 0 not in g.shape: request(g)
    schedules = requests.finish()
    run(([eager] if eager else []) + schedules)  # eager's first: the other gradients may read its buffers
    # an input gradient eager realized only the base of (a view of it): read through the view, as
    # `.numpy()` reads it, in a run of its own (exact: a view computes nothing)
    viewed = Requests()
    through = {}
    for i, g in zip(targets, gradients):
      if i in input_set and g not in eager_map and 0 not in g.shape:
        through[g] = g.substitute({k: v for k, v in eager_map.items()}).contiguous()
        viewed.add(through[g], private=False)
    if through: run(viewed.finish())
    result, created = [], []
    for k, (i, g) in enumerate(zip(targets, gradients)):
      if 0 in g.shape or k in host: result.append(None); created.append(False)
      elif g in realized: result.append(eager_map[g].base.buffer); created.append(True)
      elif i in input_set: result.append(viewed.buffer(through[g])); created.append(viewed.created(through[g]))
      else: result.append(requests.buffer(request_of[g])); created.append(requests.created(request_of[g]))
    return with_ownership(result, created), host


def losses(live: Live, payloads: list, outputs: list, expression: str, replacement_sets: list) -> list:
  """The loss (widened to float64) re-evaluated once per replacement set (op -> payload), in one run.
  Only what lies below a replaced op is recomputed: every other op reads its saved payload."""
  with evaluation_context():
    consumers: dict[int, list] = {}
    for i, u in enumerate(live.nodes):
      for s in op_sources(u):  # a buffer write reads its value through its STORE
        if s in live.index: consumers.setdefault(live.index[s], []).append(i)
    comparisons = {i for i, u in enumerate(live.nodes) if u.op in GroupOp.Comparison}
    values = []
    for replaced in replacement_sets:
      below, stack = set(), list(replaced)
      while stack:
        for c in consumers.get(stack.pop(), []):
          if c not in below: below.add(c); stack.append(c)
      # Comparisons read their saved payloads, as tinygrad's autograd holds a mask constant: a step
      # across a comparison's boundary (max_pool2d's indices) is not the derivative autograd gives.
      frozen = (set(range(len(live.nodes))) - below - set(replaced)) | (comparisons - set(replaced))
      nodes = rebuilt(live, payloads, replaced, frozen=frozen)
      loss = loss_of([Tensor(nodes[live.nodes[i]]) for i in outputs], expression, wide=True)
      values.append(loss.cast(dtypes.float64).uop.contiguous())
    requests = Requests()
    for v in values: requests.add(v, private=False)
    run(requests.finish())
    return with_ownership([requests.buffer(v) for v in values], [requests.created(v) for v in values])
