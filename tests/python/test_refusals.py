"""Every refusal code the tinygrad backend raises, raised from Python, with the state probes the C++
refusal cells take: the code (from the one registry) and its remedy, no kernel ran, the inputs'
bytes and graph identity, tinygrad's seed and RNG counters, every Tensor attribute, Python's GC."""

from __future__ import annotations

import gc
from pathlib import Path

import numpy as np
import pytest

import tlconform as tl
from tlconform.errors import BackendUnsupportedError


def tinygrad_state(x):
    """What a refusal must leave as it was. Reads realized values only (reading a lazy RNG counter
    would change it), so the counters are realized first."""
    from tinygrad import Tensor
    from tinygrad.helpers import GlobalCounters

    return {
        "kernels": GlobalCounters.kernel_count,
        "input_uop": x.uop,
        "input_bytes": bytes(x.uop.base.buffer.as_memoryview()),
        "seed": Tensor._seed,
        "rng_counters": {device: counter.tolist() for device, counter in Tensor._device_rng_counters.items()},
        "rng_seeds": {device: seeds.tolist() for device, seeds in Tensor._device_seeds.items()},
        "attributes": dict(Tensor.__dict__),
        "gc": gc.isenabled(),
    }


def changed(before, after) -> list[str]:
    """The probes whose state differs (kernels are compared by count; the rest by value or identity)."""
    differ = []
    for key in before:
        if key == "attributes":
            moved = [name for name in before[key].keys() | after[key].keys() if before[key].get(name) is not after[key].get(name)]
            if moved:
                differ.append(f"attributes {sorted(moved)}")
        elif key == "input_uop":
            if before[key] is not after[key]:
                differ.append(key)
        elif before[key] != after[key]:
            differ.append(key)
    return differ


@pytest.fixture
def x():
    """A realized input, with tinygrad's RNG already drawn from (so its counters exist)."""
    from tinygrad import Tensor

    Tensor.manual_seed(7)
    Tensor.rand(3).realize()
    return Tensor([[1.0, 2.0], [3.0, 4.0]]).realize()


def forward(body: str):
    """A forward over x from source, so each case reads as the roster row it mirrors."""
    from tinygrad import Tensor, TinyJit  # noqa: F401 (used by the bodies)

    scope = {"Tensor": Tensor, "TinyJit": TinyJit}
    exec("def fn(x):\n" + "\n".join("    " + line for line in body.splitlines()), scope)
    return scope["fn"]


# (id, code, how to ask): each mirrors a row of rosters/tinygrad/refusals.yaml.
CASES = [
    ("module_identity_mode", "module_identity_mode_unsupported",
     lambda x: tl.trace(forward("return (x * 2).relu()"), x, capture=tl.options.CaptureOptions(module_identity_mode="nope"))),
    ("other_option", "trace_option_unsupported", lambda x: tl.trace(forward("return x + 1"), x, layers_to_save="all")),
    ("random_seed", "explicit_seed_unsupported", lambda x: tl.trace(forward("return x + 1"), x, random_seed=3)),
    ("backward_capture", "backward_capture_unsupported", lambda x: tl.trace(forward("return x + 1"), x, backward_capture=True)),
    ("fastlog", "fastlog_unsupported", lambda x: tl.trace(forward("return x + 1"), x, fastlog=True)),
    ("interventions", "interventions_unsupported", lambda x: tl.trace(forward("return x + 1"), x, interventions=True)),
    ("rng_replay", "rng_replay_unsupported", lambda x: tl.trace(forward("return x + 1"), x, rng_replay=True)),
    ("streaming", "streaming_unsupported", lambda x: tl.trace(forward("return x + 1"), x, streaming=True)),
    ("structure_only", "structure_only_capture_unsupported", lambda x: tl.trace(forward("return x + 1"), x, structure_only=True)),
    ("unknown_backend", "backend_unknown", lambda x: tl.trace(forward("return x + 1"), x, backend="nope")),
    ("no_tensor_input", "tinygrad_input_required", lambda x: tl.trace(forward("return Tensor([1.0, 2.0]) * x"), 2.0)),
    ("float_output", "tensor_output_required", lambda x: tl.trace(forward("return 3.0"), x)),
    ("huge_output", "payload_too_large", lambda x: tl.trace(forward("return Tensor.ones(1000000, 1000000) + x.sum()"), x)),
    ("realize", "mid_capture_execution_unsupported", lambda x: tl.trace(forward("return (x * 2).realize() + 1"), x)),
    ("numpy", "mid_capture_execution_unsupported", lambda x: tl.trace(forward("return Tensor((x * 2).numpy())"), x)),
    ("assign_input", "input_mutation_unsupported", lambda x: tl.trace(forward("return x.assign(x + 1) * 2"), x)),
    ("replace_input", "input_mutation_unsupported", lambda x: tl.trace(forward("return x.replace(x * 3) + 1"), x)),
    ("setitem_input", "input_mutation_unsupported", lambda x: tl.trace(forward("x[0] = 5.0\nreturn x + 1"), x)),
    ("rand", "rng_state_in_graph", lambda x: tl.trace(forward("return x + Tensor.rand(2)"), x)),
    ("manual_seed", "rng_state_in_graph", lambda x: tl.trace(forward("Tensor.manual_seed(5)\nreturn x + 1"), x)),
    ("dropout", "rng_state_in_graph", lambda x: tl.trace(forward("with Tensor.train():\n    return x.dropout(0.5)"), x)),
    ("unreadable_closure", "constant_unrealizable",
     lambda x: tl.trace(forward('on_disk = Tensor.empty(2, 2, device="DISK:/nonexistent/tl-conformance/weights.bin")\n'
                                "return x + on_disk.to(x.device)"), x)),
    ("buffer_write", "buffer_write_unsupported",
     lambda x: tl.trace(forward("cache = Tensor.empty(2, 4)\nother = Tensor.empty(2, 2)\n"
                                "return Tensor(cache.uop.after(other.uop.store((x * 2).uop))) + 1"), x)),
]


@pytest.mark.parametrize("ask,code", [(case[2], case[1]) for case in CASES], ids=[case[0] for case in CASES])
def test_refused_with_its_code_and_state_unchanged(x, ask, code):
    before = tinygrad_state(x)
    with pytest.raises(BackendUnsupportedError) as refused:
        ask(x)
    after = tinygrad_state(x)
    assert refused.value.code == code, str(refused.value)
    info = {entry.code: entry for entry in tl.errors.registry()}[code]
    assert refused.value.remedy == info.instead and info.instead
    assert str(refused.value).startswith(code + ":")
    assert changed(before, after) == []


def test_assign_refusal_leaves_input_bytes_and_rng_counters(x):
    """The spec's example probe, spelled out: a refused x.assign inside the forward."""
    from tinygrad import Tensor

    data, counters = x.numpy().copy(), {d: c.tolist() for d, c in Tensor._device_rng_counters.items()}
    assert counters, "the fixture drew random numbers, so counters exist"
    with pytest.raises(BackendUnsupportedError) as refused:
        tl.trace(lambda t: t.assign(t + 1) * 2, x)
    assert refused.value.code == "input_mutation_unsupported"
    assert np.array_equal(x.numpy(), data)
    assert {d: c.tolist() for d, c in Tensor._device_rng_counters.items()} == counters


def test_a_trace_inside_a_traced_forward_is_refused_saying_so(x):
    """Issue 37.10: a forward that calls tl.trace is refused with mid_capture_execution_unsupported (a
    capture evaluates its graph, which would run tinygrad inside the outer capture), at the call and
    before the inner forward runs, saying it was a nested trace, not "tinygrad's executor was called"."""
    ran = []

    def inner(y):
        ran.append(True)
        return y * 3

    def outer(t):
        tl.trace(inner, t + 1)
        return t * 2

    before = tinygrad_state(x)
    with pytest.raises(BackendUnsupportedError) as refused:
        tl.trace(outer, x)
    assert refused.value.code == "mid_capture_execution_unsupported"
    assert "tl.trace was called inside a traced forward" in str(refused.value), str(refused.value)
    assert "executor" not in str(refused.value)
    assert not ran, "the inner forward ran"
    assert changed(before, tinygrad_state(x)) == []
    assert len(tl.trace(lambda t: t * 2, x)) > 0, "a trace after the refusal"


def test_the_probes_can_fail(x):
    """A mutation the refusal path must not make is seen by the probes."""
    from tinygrad import Tensor

    before = tinygrad_state(x)
    x.assign(x + 1).realize()
    Tensor.rand(2).realize()
    assert {"input_bytes", "kernels", "rng_counters"} <= set(changed(before, tinygrad_state(x)))


def test_a_granted_request_is_not_a_refusal(x):
    """The same call without the refused option captures (so the cases above refuse for the option)."""
    assert len(tl.trace(forward("return (x * 2).relu()"), x)) > 0


@pytest.mark.parametrize("request_", ["validate", "validate_forward_pass", "derive_grads"])
def test_audit_only_trace_refuses_live_payloads_required(tmp_path: Path, tutorial, request_):
    bundle = tmp_path / "mlp.tlspec"
    tl.trace(tutorial["mlp"], tutorial["x"]).save(str(bundle))
    loaded = tl.load(bundle)
    from tinygrad.helpers import GlobalCounters

    lazy_output = tutorial["mlp"](tutorial["x"])
    kernels = GlobalCounters.kernel_count
    with pytest.raises(BackendUnsupportedError) as refused:
        if request_ == "derive_grads":
            loaded.derive_grads()
        else:
            getattr(loaded, request_)([lazy_output])
    assert refused.value.code == "live_payloads_required"
    # Refused before the ground truth was read: the lazy output was not evaluated.
    assert GlobalCounters.kernel_count == kernels
    assert lazy_output.uop.base.op.name != "BUFFER" or not lazy_output.uop.base.is_realized
