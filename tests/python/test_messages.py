"""What tl.trace and a Trace say when given something wrong (issue 22.11): a clear TypeError naming
the argument, the forward's own exception as its own type (and a PythonError), the seed as given,
names shown whole, IndexError for any out-of-range int, and a TlspecError for a save with no path."""

from __future__ import annotations

import pytest

import tlconform as tl


def test_a_non_callable_forward_names_the_argument(tutorial):
    with pytest.raises(TypeError, match="fn must be callable"):
        tl.trace(5, tutorial["x"])


def test_a_loss_that_is_not_text_names_the_option(tutorial):
    grads = tl.options.GradOptions(intermediate_grads=True, loss=5)
    with pytest.raises(TypeError, match="GradOptions.loss must be a str"):
        tl.trace(tutorial["mlp"], tutorial["x"], grad_options=grads)


def test_a_loss_that_does_not_compile_is_a_syntax_error(tutorial):
    grads = tl.options.GradOptions(intermediate_grads=True, loss="sum(")
    with pytest.raises(SyntaxError) as raised:
        tl.trace(tutorial["mlp"], tutorial["x"], grad_options=grads)
    assert isinstance(raised.value, tl.errors.PythonError)


class Custom(Exception):
    def __init__(self, code, detail):
        super().__init__(f"{code}: {detail}")
        self.code = code


@pytest.mark.parametrize(
    "error",
    [KeyError("k"), ValueError("bad \udc80 surrogate"), OSError(2, "no such thing"), Custom(7, "custom")],
    ids=["KeyError", "surrogate", "OSError", "custom"],
)
def test_a_forward_error_reaches_the_caller_as_its_own_type(tutorial, error):
    def broken(x):
        raise error

    with pytest.raises(type(error)) as raised:
        tl.trace(broken, tutorial["x"])
    caught = raised.value
    assert isinstance(caught, tl.errors.PythonError)
    assert caught.args == error.args  # the message as raised, a lone surrogate included
    assert caught.type_name == type(error).__name__
    assert "raise error" in caught.traceback
    assert any("tlconform" in note for note in caught.__notes__)
    if isinstance(error, Custom):
        assert caught.code == 7
    if isinstance(error, OSError):
        assert caught.errno == 2


def test_a_seed_is_named_as_it_was_given(tutorial):
    for seed in (-1, 2**100):
        with pytest.raises(tl.errors.BackendUnsupportedError) as refused:
            tl.trace(tutorial["mlp"], tutorial["x"], random_seed=seed)
        assert refused.value.code == "explicit_seed_unsupported"
        assert f"random_seed={seed} was given" in str(refused.value)
    with pytest.raises(TypeError, match="random_seed must be an int"):
        tl.trace(tutorial["mlp"], tutorial["x"], random_seed="3")


def test_a_backend_name_with_a_nul_is_shown_whole(tutorial):
    with pytest.raises(tl.errors.BackendUnsupportedError) as refused:
        tl.trace(tutorial["mlp"], tutorial["x"], backend="tin\0ygrad")
    assert refused.value.code == "backend_unknown"
    assert "tin\\x00ygrad" in str(refused.value) and "known: " in str(refused.value)


def test_any_out_of_range_int_is_an_index_error(tutorial):
    trace = tl.trace(tutorial["mlp"], tutorial["x"])
    for index in (len(trace), 2**63, 2**200, -(2**63) - 5):
        with pytest.raises(IndexError):
            trace[index]


def test_saving_to_no_path_is_a_tlspec_error(tutorial):
    trace = tl.trace(tutorial["mlp"], tutorial["x"])
    with pytest.raises(tl.errors.TlspecError, match="no bundle path given"):
        trace.save("")


def test_a_loaded_trace_says_it_was_loaded(tutorial, tmp_path):
    trace = tl.trace(tutorial["mlp"], tutorial["x"])
    trace.save(str(tmp_path / "b.tlspec"))
    loaded = tl.load(tmp_path / "b.tlspec")
    with pytest.raises(tl.errors.BackendUnsupportedError) as refused:
        loaded.validate([tutorial["mlp"](tutorial["x"])])
    assert refused.value.code == "live_payloads_required"
    message = str(refused.value)
    assert "loaded from the .tlspec bundle" in message and str(tmp_path / "b.tlspec") in message
    assert "or captured on PYTHON" not in message  # the old text read as if PYTHON captures were audit-only
