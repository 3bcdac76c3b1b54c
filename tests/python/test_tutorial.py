"""The spec's tutorial (../shared/spec/tinygrad-backend.txt) runs from Python.

TUTORIAL below is the page's text verbatim (the tutorial script, then its protocol and refusal
snippets) with only the import lines changed (`import torchlens as tl` -> `import tlconform as tl`,
`from torchlens.errors` -> `from tlconform.errors`). It runs in a fresh process, and what it prints
is checked against the spec's comments and against the CLI's own trace of the same forward.
"""

from __future__ import annotations

import json
import re
import subprocess

import numpy as np
import pytest

from conftest import ROOT, run_python, tlconform_cli

TUTORIAL = '''\
import os

os.environ["DEV"] = "PYTHON"

from tinygrad import Tensor
import tlconform as tl

weight = Tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6], [-0.7, 0.8, 0.9], [1.0, -1.1, 1.2]])
bias = Tensor([0.0, 0.1, -0.1])

def mlp(x):
    return (x.matmul(weight) + bias).relu()

x = Tensor([[-1.0, -0.5, 0.25, 1.0], [0.5, 1.5, -2.0, 0.75]])
trace = tl.trace(mlp, x, backend="tinygrad")

print(len(trace), "ops recorded")
print(trace.output_ops[0].out.numpy())          # equals mlp(x).numpy()
assert trace.validate_forward_pass([mlp(x)]) is True

protocol = tl.backends.spec("tinygrad").protocol()
status = protocol.validate(trace, [mlp(x)])
print(status.state)          # "passed"
print(status.message)        # names the first offending op when it fails

from tlconform.errors import BackendUnsupportedError

try:
    tl.trace(
        mlp,
        x,
        backend="tinygrad",
        capture=tl.options.CaptureOptions(module_identity_mode="nope"),
    )
except BackendUnsupportedError as error:
    print(error.code)        # "module_identity_mode_unsupported"
'''

# The only lines that differ from the spec's text.
IMPORTS = {
    "import tlconform as tl": "import torchlens as tl",
    "from tlconform.errors import BackendUnsupportedError": "from torchlens.errors import BackendUnsupportedError",
}

EXPECTED_OUTPUT = np.array([[0.525, 0.0, 1.325], [2.8, 0.0, 0.0]], dtype=np.float32)


def check_tutorial_output(stdout: str, expected_ops: int) -> list[str]:
    """What is wrong with the tutorial's printout (empty when it says what the spec says)."""
    problems = []
    lines = stdout.splitlines()
    first = re.fullmatch(r"(\d+) ops recorded", lines[0]) if lines else None
    if first is None:
        return [f"the first line is not 'N ops recorded': {stdout!r}"]
    if int(first.group(1)) != expected_ops:
        problems.append(f"{first.group(1)} ops recorded, the CLI's trace of the same forward has {expected_ops}")
    # numpy prints the 2x3 array over two lines: [[a b c]\n [d e f]].
    printed = " ".join(lines[1:3])
    numbers = [float(n) for n in re.findall(r"-?\d+\.?\d*(?:e[-+]?\d+)?", printed)]
    if len(numbers) != 6 or not printed.startswith("[[") or not printed.endswith("]]"):
        problems.append(f"the output array did not print as a 2x3 array: {printed!r}")
    elif not np.allclose(np.array(numbers).reshape(2, 3), EXPECTED_OUTPUT, rtol=0, atol=1e-6):
        problems.append(f"the output is {numbers}, not {EXPECTED_OUTPUT.tolist()}")
    rest = lines[3:]
    if rest != ["passed", "", "module_identity_mode_unsupported"]:
        problems.append(f"after the array it printed {rest!r}, not ['passed', '', 'module_identity_mode_unsupported']")
    return problems


def cli_op_count() -> int:
    """The op count of the CLI's trace of the same forward (roster row tutorial_mlp)."""
    done = subprocess.run([tlconform_cli(), "trace", "--row", "tutorial_mlp", "--json"], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    return len(json.loads(done.stdout)["ops"])


def test_tutorial_prints_what_the_spec_says():
    done = run_python(TUTORIAL, {"DEV": "PYTHON"})
    assert done.returncode == 0, done.stderr
    expected_ops = cli_op_count()
    assert expected_ops > 0
    assert check_tutorial_output(done.stdout, expected_ops) == []


def test_installed_package_runs_the_tutorial():
    """The same text against the package pip installed into this venv (ci/bootstrap.sh does), not
    the build tree's: what a user of `pip install .` gets."""
    where = run_python("import tlconform; print(tlconform.__file__)", {"PYTHONPATH": ""})
    if where.returncode != 0:
        pytest.skip("tlconform is not pip-installed in this venv (ci/bootstrap.sh installs it)")
    assert "site-packages" in where.stdout, where.stdout
    done = run_python(TUTORIAL, {"DEV": "PYTHON", "PYTHONPATH": ""})
    assert done.returncode == 0, done.stderr
    assert check_tutorial_output(done.stdout, cli_op_count()) == []


def test_the_output_check_can_fail():
    good = "19 ops recorded\n[[0.525 0.    1.325]\n [2.8   0.    0.   ]]\npassed\n\nmodule_identity_mode_unsupported\n"
    assert check_tutorial_output(good, 19) == []
    assert check_tutorial_output(good, 18)  # a wrong op count
    assert check_tutorial_output(good.replace("0.525", "0.526"), 19)  # a wrong value
    assert check_tutorial_output(good.replace("passed", "failed"), 19)
    assert check_tutorial_output(good.replace("module_identity_mode_unsupported", "trace_option_unsupported"), 19)
    assert check_tutorial_output(good.replace("[[0.525 0.    1.325]\n [2.8   0.    0.   ]]", "[0.525]\n[]"), 19)
    assert check_tutorial_output("", 19)


def spec_snippets(page: str) -> str:
    """The page's tutorial code: from the script's first line to the prose after the refusal
    snippet, without the two prose paragraphs that introduce the snippets."""
    text = page[page.index("import os\n") : page.index("Layers with random default init")]
    prose = ("The protocol object is", "Refusals are typed.")
    return "\n".join(line for line in text.splitlines() if not line.startswith(prose))


def test_tutorial_is_the_spec_text_with_only_the_imports_changed():
    page = ROOT.parent / "shared" / "spec" / "tinygrad-backend.txt"
    if not page.exists():
        pytest.skip(f"the spec page is not beside this checkout ({page})")
    ours = TUTORIAL
    for line, original in IMPORTS.items():
        assert line in ours
        ours = ours.replace(line, original)
    normalize = lambda text: [line.rstrip() for line in text.splitlines() if line.strip()]  # noqa: E731
    assert normalize(ours) == normalize(spec_snippets(page.read_text()))
