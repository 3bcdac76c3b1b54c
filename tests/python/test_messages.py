"""What tl.trace and a Trace say when given something wrong (issue 22.11): a clear TypeError naming
the argument, the forward's own exception as its own type (and a PythonError), the seed as given,
names shown whole, IndexError for any out-of-range int, and a TlspecError for a save with no path."""

from __future__ import annotations

import pytest
from conftest import run_python

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


def test_a_save_with_no_room_is_a_typed_error_naming_the_path_and_the_free_space(tmp_path):
    """Issue 37.10: a save on a full disk raised a bare RuntimeError. No room is made here by a file
    size limit (EFBIG), in a process of its own: the same path through the code as ENOSPC."""
    target = tmp_path / "full.tlspec"
    result = run_python(
        "import resource, signal\n"
        "from tinygrad import Tensor\n"
        "import tlconform as tl\n"
        "x = Tensor.arange(4096).float()\n"
        "trace = tl.trace(lambda x: x * 2, x)\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (8192, resource.RLIM_INFINITY))\n"
        "try:\n"
        f"    trace.save({str(target)!r})\n"
        "except tl.errors.FileWriteError as error:\n"
        "    assert isinstance(error, OSError) and isinstance(error, tl.errors.TlconformError), type(error).__mro__\n"
        "    print('typed', error.errno, error.filename, error.free_bytes is not None)\n"
        "    print(error)\n"
    )
    assert result.returncode == 0, result.stderr
    assert "typed 27 " in result.stdout, result.stdout  # EFBIG
    assert str(target) in result.stdout
    assert "free on its filesystem" in result.stdout
    assert not target.exists()


def test_a_failure_of_the_captures_own_machinery_is_a_capture_error():
    """Issue 35.4: an exception raised after the forward returned, inside the capture's own work (here
    tinygrad's run_linear planted to raise), is a CaptureError naming the stage and the call, not the
    forward's error."""
    result = run_python(
        "from tinygrad import Tensor\n"
        "import tinygrad.engine.realize as realize_module\n"
        "import tlconform as tl\n"
        "def planted(*args, **kwargs):\n"
        "    raise ValueError('planted')\n"
        "realize_module.run_linear = planted\n"
        "try:\n"
        "    tl.trace(lambda x: (x + 1).relu(), Tensor([1.0, 2.0]))\n"
        "except tl.errors.CaptureError as error:\n"
        "    assert isinstance(error, tl.errors.TlconformError) and not isinstance(error, tl.errors.PythonError)\n"
        "    print('typed', error.stage, '|', error.framework_call, '|', error.type_name)\n"
        "    print(error)\n"
    )
    assert result.returncode == 0, result.stderr
    assert "typed evaluating the payloads in one run | " in result.stdout, result.stdout
    assert "in planted | ValueError" in result.stdout, result.stdout
    assert "report it with the forward" in result.stdout
