"""Every dtype tinygrad 0.13 has, through the backend as a user sends it: the capture's outputs equal
eager's bit for bit, validation passes (and fails on a changed ground truth), a `.tlspec` bundle
keeps the bits, and a float forward's derived input gradient equals tinygrad's own autograd.

The dtypes come from the installed tinygrad (`dtypes.all`), so a dtype a new version adds fails
here until the backend carries it."""

from __future__ import annotations

import numpy as np
import pytest

import tlconform as tl

# weakint is the type of a Python int literal before it takes a tensor's dtype: no Tensor holds it
# (tinygrad asserts "dtype=dtypes.weakint has None fmt").
NOT_A_TENSOR_DTYPE = {"weakint"}


def tensor_dtypes():
    from tinygrad import dtypes

    return [d for d in dtypes.all if d.name not in NOT_A_TENSOR_DTYPE]


def float_dtypes():
    from tinygrad import dtypes

    return [d for d in tensor_dtypes() if dtypes.is_float(d)]


def sample(dtype, seed: int):
    """A 3x5 tensor of `dtype`: values in [-3, 3] (their magnitudes for unsigned, signs for bool),
    with zeros and a negative zero where the dtype has them."""
    from tinygrad import Tensor, dtypes

    values = np.random.default_rng(seed).uniform(-3, 3, (3, 5))
    values[0, 0], values[0, 1] = 0.0, -0.0
    if dtype == dtypes.bool:
        return Tensor(values > 0)
    if dtypes.is_int(dtype):
        values = np.abs(values) if dtypes.is_unsigned(dtype) else values
        return Tensor(np.round(values).astype(np.int64)).cast(dtype).realize()
    return Tensor(values.astype(np.float32)).cast(dtype).realize()


FORWARDS = {
    "arithmetic": lambda x, y: (x + y) * x,
    "sum": lambda x, y: x.sum(axis=1),
    "max": lambda x, y: x.max(),
    "select": lambda x, y: (x < y).where(x, y),
    "cast": lambda x, y: x.cast("float32") * 2,
}


def tensor_bits(tensor) -> bytes:
    """A tinygrad Tensor's exact bits (numpy has no bfloat16 or float8: their bit patterns)."""
    from tinygrad import dtypes

    if tensor.dtype == dtypes.bfloat16:
        tensor = tensor.bitcast(dtypes.uint16)
    elif tensor.dtype in dtypes.fp8s:
        tensor = tensor.bitcast(dtypes.uint8)
    return tensor.numpy().tobytes()


@pytest.mark.parametrize("forward", sorted(FORWARDS))
@pytest.mark.parametrize("dtype", tensor_dtypes(), ids=lambda d: d.name)
def test_every_dtype_captures_eagers_bits_and_validates(dtype, forward, tmp_path):
    from tinygrad import Tensor

    fn = FORWARDS[forward]
    eager = fn(sample(dtype, 1), sample(dtype, 2))
    trace = tl.trace(fn, sample(dtype, 1), sample(dtype, 2), backend="tinygrad")
    (out,) = trace.output_ops
    assert out.out.tobytes() == tensor_bits(eager)
    assert trace.validate_forward_pass([eager]) is True
    # It can fail: a changed output is not this trace's ground truth.
    changed = Tensor.ones(*eager.shape, dtype=eager.dtype)
    if tensor_bits(changed) != tensor_bits(eager):
        assert trace.validate_forward_pass([changed]) is False
    # A bundle keeps every op's bits.
    trace.save(str(tmp_path / "t.tlspec"))
    loaded = tl.load(tmp_path / "t.tlspec")
    assert [op.out.tobytes() for op in loaded.ops] == [op.out.tobytes() for op in trace.ops]


@pytest.mark.parametrize("dtype", float_dtypes(), ids=lambda d: d.name)
def test_a_float_dtypes_derived_input_gradient_is_tinygrads_autograd(dtype):
    fn = lambda x, y: ((x * y).relu() + x).sum(axis=0)  # noqa: E731
    x, y, twin_x, twin_y = sample(dtype, 1), sample(dtype, 2), sample(dtype, 1), sample(dtype, 2)
    trace = tl.trace(fn, x, y, backend="tinygrad", grad_options=tl.options.GradOptions(intermediate_grads=True))
    expected = fn(twin_x, twin_y).sum().gradient(twin_x, twin_y)
    assert [op.grad.tobytes() for op in trace.input_ops] == [tensor_bits(g) for g in expected]
