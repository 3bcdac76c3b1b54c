"""toygrad: a tiny eager tensor framework, the framework of the test-only "toy" backend.

A Tensor is a flat list of Python floats with a shape and a dtype ("float32" values are rounded
to float32 after every op; "float64" keeps Python's doubles). Every op runs at once, counts itself
in `ops_executed` and is shown to each hook in `add_hook`, which is how a backend records a forward.
There is no RNG, no device and no laziness: this is just enough to drive the harness.
"""

import math
import struct

__version__ = "1.0.0"

ops_executed = 0  # ops run so far, consts included (the framework's own counter, like a kernel count)
_hooks = []  # callables hook(tensor), called for every tensor an op makes


def add_hook(hook):
    _hooks.append(hook)


def remove_hook(hook):
    _hooks.remove(hook)


def hooks():
    return tuple(_hooks)


def _rounded(dtype, values):
    if dtype == "float64":
        return [float(v) for v in values]
    return [_to_float32(float(v)) for v in values]


def _to_float32(v):
    try:
        return struct.unpack("f", struct.pack("f", v))[0]
    except OverflowError:  # past float32's largest value: infinity, as a float32 store would give
        return math.copysign(math.inf, v)


def _flatten(data):
    if isinstance(data, (int, float)):
        return [float(data)], ()
    rows = [_flatten(item) for item in data]
    if not rows or any(shape != rows[0][1] for _, shape in rows):
        raise ValueError("toygrad: ragged or empty nested list")
    return [v for values, _ in rows for v in values], (len(rows),) + rows[0][1]


class Tensor:
    def __init__(self, data, shape=None, dtype="float32", op="input", parents=()):
        if dtype not in ("float32", "float64"):
            raise TypeError(f"toygrad holds float32 or float64, not {dtype}")
        if shape is None:
            data, shape = _flatten(data)
        self.shape = tuple(shape)
        self.data = _rounded(dtype, data)
        if len(self.data) != self.numel():
            raise ValueError(f"toygrad: {len(self.data)} values for shape {self.shape}")
        self.dtype, self.op, self.parents = dtype, op, tuple(parents)
        self.grad = None

    def numel(self):
        count = 1
        for dim in self.shape:
            count *= dim
        return count

    def tolist(self):
        def nest(values, shape):
            if not shape:
                return values[0]
            step = len(values) // shape[0]
            return [nest(values[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]

        return nest(self.data, self.shape)

    def __repr__(self):
        return f"Tensor({self.tolist()}, op={self.op}, dtype={self.dtype})"

    # Ops. A Python number operand becomes a "const" tensor made by the op itself (a literal).
    def _lift(self, other):
        return other if isinstance(other, Tensor) else apply("const", dtype=self.dtype, value=other)

    def __add__(self, other):
        return apply("add", self, self._lift(other))

    def __mul__(self, other):
        return apply("mul", self, self._lift(other))

    __radd__ = __add__
    __rmul__ = __mul__

    def relu(self):
        return apply("relu", self)

    def sum(self):
        return apply("sum", self)

    def matmul(self, other):
        return apply("matmul", self, other)

    def backward(self):
        """d self / d every tensor it was computed from, into .grad (self must be a scalar)."""
        if self.shape != ():
            raise ValueError("toygrad: backward() needs a scalar (shape ())")
        order, seen = [], set()

        def visit(t):
            if id(t) not in seen:
                seen.add(id(t))
                for p in t.parents:
                    visit(p)
                order.append(t)

        visit(self)
        for t in order:
            t.grad = [0.0] * t.numel()
        self.grad = [1.0]
        for t in reversed(order):
            for parent, grad in zip(t.parents, _VJP[t.op](t, t.grad)):
                parent.grad = [a + b for a, b in zip(parent.grad, grad)]


def _broadcast(a, b):
    # Same shape, or one side a scalar (shape ()): the only broadcasting toygrad knows.
    if a.shape == b.shape:
        return a.shape, a.data, b.data
    if b.shape == ():
        return a.shape, a.data, b.data * a.numel()
    if a.shape == ():
        return b.shape, a.data * b.numel(), b.data
    raise ValueError(f"toygrad: shapes {a.shape} and {b.shape} do not broadcast")


def _matmul(a, b):
    if len(a.shape) != 2 or len(b.shape) != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"toygrad: matmul of {a.shape} and {b.shape}")
    (n, k), m = a.shape, b.shape[1]
    values = [sum(a.data[i * k + j] * b.data[j * m + c] for j in range(k)) for i in range(n) for c in range(m)]
    return values, (n, m)


# op -> forward(parents, value) returning (values, shape).
_FORWARD = {
    "const": lambda parents, value: ([float(value)], ()),
    "add": lambda parents, value: (lambda s, x, y: ([u + v for u, v in zip(x, y)], s))(*_broadcast(*parents)),
    "mul": lambda parents, value: (lambda s, x, y: ([u * v for u, v in zip(x, y)], s))(*_broadcast(*parents)),
    "relu": lambda parents, value: ([max(v, 0.0) for v in parents[0].data], parents[0].shape),
    "sum": lambda parents, value: ([sum(parents[0].data)], ()),
    "matmul": lambda parents, value: _matmul(*parents),
}


def _unbroadcast(parent, grad):
    return [sum(grad)] if parent.shape == () and len(grad) != 1 else grad


def _vjp_mul(t, g):
    a, b = t.parents
    _, x, y = _broadcast(a, b)
    return [_unbroadcast(a, [gi * v for gi, v in zip(g, y)]), _unbroadcast(b, [gi * u for gi, u in zip(g, x)])]


def _vjp_matmul(t, g):
    a, b = t.parents
    (n, k), m = a.shape, b.shape[1]
    da = [sum(g[i * m + c] * b.data[j * m + c] for c in range(m)) for i in range(n) for j in range(k)]
    db = [sum(a.data[i * k + j] * g[i * m + c] for i in range(n)) for j in range(k) for c in range(m)]
    return [da, db]


# op -> vector-Jacobian product: the gradient of each parent given the gradient of the output.
_VJP = {
    "input": lambda t, g: [],
    "const": lambda t, g: [],
    "add": lambda t, g: [_unbroadcast(p, g) for p in t.parents],
    "mul": _vjp_mul,
    "relu": lambda t, g: [[gi if v > 0 else 0.0 for gi, v in zip(g, t.parents[0].data)]],
    "sum": lambda t, g: [g * t.parents[0].numel()],
    "matmul": _vjp_matmul,
}


def apply(op, *parents, dtype=None, value=None):
    """Runs `op` on `parents` (value: a const's number) and returns the new tensor."""
    global ops_executed
    if op not in _FORWARD:
        raise ValueError(f"toygrad has no op {op}")
    if dtype is None:
        dtype = "float64" if any(p.dtype == "float64" for p in parents) else "float32"
    values, shape = _FORWARD[op](parents, value)
    out = Tensor(values, shape, dtype, op, parents)
    ops_executed += 1
    for hook in list(_hooks):
        hook(out)
    return out
