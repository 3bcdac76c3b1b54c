"""The Trace surface from Python: ops by position and label, outputs and inputs, payloads as numpy
(zero-copy where numpy has the dtype), replay validation that can fail, derived grads checked
against tinygrad's own backward, and .tlspec round trips."""

from __future__ import annotations

import gc
from pathlib import Path

import numpy as np
import pytest

import tlconform as tl


def test_ops_by_index_label_and_iteration(tutorial):
    trace = tl.trace(tutorial["mlp"], tutorial["x"])
    ops = list(trace)
    assert len(ops) == len(trace) == len(trace.ops) > 0
    assert [op.index for op in ops] == list(range(len(trace)))
    assert trace[0] == ops[0] and trace[-1] == ops[-1]
    for op in ops:
        assert trace[op.label] == op and trace.op(op.label) == op and op.label in trace
        # Topological order: every parent comes first.
        assert all(parent.op.index < op.index and isinstance(parent.position, int) for parent in op.parents)
        assert op.kind in {"input", "compute", "view", "constant"}
        assert isinstance(op.shape, tuple) and op.dtype in {"float32", "bool"}
    with pytest.raises(KeyError):
        trace["no such label"]
    with pytest.raises(IndexError):
        trace[len(trace)]


def test_inputs_outputs_and_constants(tutorial):
    mlp, x = tutorial["mlp"], tutorial["x"]
    trace = tl.trace(mlp, x)
    (inp,) = trace.input_ops
    assert inp.kind == "input" and inp.shape == (2, 4)
    assert np.array_equal(inp.out.numpy(), x.numpy())
    (out,) = trace.output_ops
    assert out.shape == (2, 3)
    assert np.allclose(out.out.numpy(), mlp(x).numpy(), rtol=0, atol=1e-6)
    closures = [op for op in trace if op.constant_kind == "closure"]
    # weight and bias existed before the forward: closure constants with their values.
    values = sorted((op.out.numpy() for op in closures), key=lambda a: a.size)
    assert [a.shape for a in values] == [(3,), (4, 3)]
    assert np.array_equal(values[1], tutorial["weight"].numpy())
    assert trace.evaluations == 1  # realize-once
    assert trace.has_live_payloads and trace.device == "PYTHON" and trace.backend == "tinygrad"


def test_payload_numpy_is_a_read_only_zero_copy_view(tutorial):
    trace = tl.trace(tutorial["mlp"], tutorial["x"])
    payload = trace.output_ops[0].out
    first, second = payload.numpy(), payload.numpy()
    assert np.shares_memory(first, second)
    assert not first.flags.writeable
    with pytest.raises(ValueError):
        first[0, 0] = 1.0
    expected = first.copy()
    del trace, payload, second
    gc.collect()
    assert np.array_equal(first, expected)  # the view keeps its bytes alive
    assert np.asarray(tl.trace(tutorial["mlp"], tutorial["x"]).output_ops[0].out).shape == (2, 3)


def test_validate_forward_pass_takes_tensors_and_arrays_and_can_fail(tutorial):
    mlp, x = tutorial["mlp"], tutorial["x"]
    trace = tl.trace(mlp, x)
    assert trace.validate_forward_pass([mlp(x)]) is True
    assert trace.validate_forward_pass([mlp(x).numpy()]) is True
    assert trace.validate_forward_pass([mlp(x).numpy() + 1]) is False
    status = trace.validate([mlp(x).numpy() + 1])
    assert status.state == "failed" and status.message
    assert any(d.decision == "fail" for d in status.decisions)
    with pytest.raises(TypeError):
        trace.validate_forward_pass(mlp(x))  # a bare tensor, not a list of outputs


def test_protocol_validate_returns_the_status_with_decisions(tutorial):
    mlp, x = tutorial["mlp"], tutorial["x"]
    trace = tl.trace(mlp, x)
    status = tl.backends.spec("tinygrad").protocol().validate(trace, [mlp(x)])
    assert status.state == "passed" and status.passed and status.replayed > 0
    assert status.decisions
    for decision in status.decisions:
        assert decision.phase in {"structure", "ground_truth", "replay", "perturbation"}
        assert decision.decision in {"pass", "fail", "unverified"}
        assert 0 <= decision.op < len(trace) and decision.label == trace[decision.op].label
    with pytest.raises(TypeError):
        bool(status)  # never silently a bool


def test_derived_grads_equal_tinygrads_backward(tutorial):
    from tinygrad import Tensor

    mlp, x = tutorial["mlp"], tutorial["x"]
    trace = tl.trace(mlp, x, grad_options=tl.options.GradOptions(intermediate_grads=True))
    eager_x = Tensor(x.numpy())
    (expected,) = mlp(eager_x).sum().gradient(eager_x)
    expected = expected.numpy()
    assert np.abs(expected).sum() > 0
    assert np.allclose(trace.input_ops[0].grad.numpy(), expected, rtol=1e-5, atol=1e-6)
    assert all(op.grad is not None for op in trace if op.dtype == "float32")
    # The comparison can fail: a different loss's gradient differs.
    assert not np.allclose(trace.input_ops[0].grad.numpy(), 2 * expected)


def test_derive_grads_later_keeps_earlier_views(tutorial):
    trace = tl.trace(tutorial["mlp"], tutorial["x"])
    op = trace.output_ops[0]
    view = op.out.numpy()
    assert op.grad is None
    trace.derive_grads()
    assert op.grad is not None and np.array_equal(op.grad.numpy(), np.ones((2, 3), np.float32))
    assert np.array_equal(view, trace.output_ops[0].out.numpy())
    with pytest.raises(ValueError):
        trace.derive_grads(tl.options.GradOptions(intermediate_grads=False))


def test_save_and_load_round_trip(tmp_path: Path, tutorial):
    trace = tl.trace(tutorial["mlp"], tutorial["x"])
    trace.save(str(tmp_path / "mlp.tlspec"))
    loaded = tl.load(tmp_path / "mlp.tlspec")
    assert not loaded.has_live_payloads
    assert [(op.label, op.kind, op.dtype, op.shape) for op in loaded] == [(op.label, op.kind, op.dtype, op.shape) for op in trace]
    assert [[p.op.index for p in op.parents] for op in loaded] == [[p.op.index for p in op.parents] for op in trace]
    for mine, theirs in zip(trace, loaded):
        assert mine.out.tobytes() == theirs.out.tobytes()
    trace.save(str(tmp_path / "audit.tlspec"), with_payloads=False)
    assert all(op.out is None for op in tl.load(tmp_path / "audit.tlspec"))
    with pytest.raises(tl.errors.TlspecError):
        tl.load(tmp_path / "missing.tlspec")


def test_bfloat16_payloads_widen_to_float32(tutorial):
    from tinygrad import dtypes

    x = tutorial["x"].cast(dtypes.bfloat16).realize()

    def halve(t):
        return (t * 0.5).relu()

    trace = tl.trace(halve, x)
    out = trace.output_ops[0].out
    assert out.dtype == "bfloat16" and out.nbytes == 2 * 8
    widened = out.numpy()
    assert widened.dtype == np.float32
    assert np.array_equal(widened, halve(x).numpy())  # tinygrad's .numpy() widens the same way
    assert trace.validate_forward_pass([halve(x)]) is True


def test_a_forward_error_keeps_its_type_and_traceback(tutorial):
    def broken(x):
        raise ValueError("boom")

    with pytest.raises(tl.errors.PythonError) as raised:
        tl.trace(broken, tutorial["x"])
    assert raised.value.type_name == "ValueError" and "boom" in raised.value.traceback


def test_draw_makes_one_node_per_op_and_marks_a_failure(tutorial, tmp_path):
    mlp, x = tutorial["mlp"], tutorial["x"]
    trace = tl.trace(mlp, x)
    picture = tmp_path / "mlp.svg"
    trace.draw(str(picture))
    svg = picture.read_text()
    assert svg.count('<g id="node') == len(trace)
    assert svg.count('<g id="edge') == sum(len(op.parents) for op in trace)
    # Validated against a wrong output: the picture marks the first failing op.
    wrong = mlp(x).numpy() + 1.0
    status = trace.validate([wrong])
    assert status.state == "failed"
    trace.draw(str(tmp_path / "failed.dot"), validation=status)
    assert "FIRST FAILURE" in (tmp_path / "failed.dot").read_text()
