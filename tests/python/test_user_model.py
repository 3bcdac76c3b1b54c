"""A user's own model, traced from Python as a new user would (issue 21, item 7): a model class
with Linear, LayerNorm and gelu at default (lazily random) init. The capture's outputs equal an
eager twin's bit for bit, the model afterwards is the model one eager forward leaves (calling it
again gives the twin's second call), the tutorial's own check holds against `model(x)` called
after the trace (given as a Tensor or as numpy, 0-d included), and derived input grads equal
tinygrad's own autograd on the twin."""

from __future__ import annotations

import numpy as np

import tlconform as tl


def make_model(seed: int):
    from tinygrad import Tensor, nn

    Tensor.manual_seed(seed)

    class Block:
        def __init__(self):
            self.up = nn.Linear(8, 16)
            self.norm = nn.LayerNorm(16)
            self.down = nn.Linear(16, 4)

        def __call__(self, x):
            return self.down(self.norm(self.up(x)).gelu())

    return Block()


def make_input():
    from tinygrad import Tensor

    return Tensor(np.random.default_rng(0).uniform(-2, 2, (5, 8)).astype(np.float32))


def test_a_default_init_model_is_left_as_one_eager_forward_leaves_it():
    model, twin = make_model(42), make_model(42)
    x = make_input()
    trace = tl.trace(model, x, backend="tinygrad")
    first = twin(x).numpy()
    assert trace.output_ops[0].out.numpy().tobytes() == first.tobytes()
    # The second call of each: the traced model and the twin agree bit for bit.
    assert model(x).numpy().tobytes() == twin(x).numpy().tobytes()
    assert model.up.weight.numpy().tobytes() == twin.up.weight.numpy().tobytes()


def test_validation_against_a_later_call_passes_as_tensor_and_as_numpy():
    model = make_model(7)
    x = make_input()
    trace = tl.trace(model, x, backend="tinygrad")
    assert trace.validate_forward_pass([model(x)]) is True
    assert trace.validate_forward_pass([model(x).numpy()]) is True
    # It can fail: another model's output is not this trace's ground truth.
    assert trace.validate_forward_pass([make_model(8)(x)]) is False


def test_numpy_ground_truth_keeps_a_zero_d_shape():
    from tinygrad import Tensor

    x = Tensor([[1.0, -2.0], [3.0, -4.0]])
    trace = tl.trace(lambda t: t.abs().sum(), x, backend="tinygrad")
    truth = x.abs().sum().numpy()
    assert truth.shape == ()
    assert trace.validate_forward_pass([truth]) is True
    assert trace.validate_forward_pass([np.float32(9.0)]) is False


def test_derived_grads_equal_tinygrads_autograd():
    model, twin = make_model(3), make_model(3)
    x, twin_x = make_input(), make_input()
    trace = tl.trace(model, x, backend="tinygrad", grad_options=tl.options.GradOptions(intermediate_grads=True))
    (expected,) = twin(twin_x).sum().gradient(twin_x)
    assert trace.input_ops[0].grad.numpy().tobytes() == expected.numpy().tobytes()
