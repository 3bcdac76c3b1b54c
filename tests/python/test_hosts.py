"""The same core in two hosts: inside Python the runtime attaches to the running interpreter (it
starts, configures and finalizes none), and the tinygrad device follows the spec: DEV=PYTHON unless
the host chose a device; tinygrad imported earlier on another device gives audit-only traces."""

from __future__ import annotations

import json

from conftest import run_python

PROBE = """
import json, os, sys
{before}
import tlconform as tl
from tinygrad import Tensor
x = Tensor([[1.0, -2.0], [3.0, 4.0]])
trace = tl.trace(lambda t: (t * 2).relu(), x)
rows = {{row.name: row.value for row in tl.report.doctor()}}
try:
    trace.validate_forward_pass([(x * 2).relu()])
    refused = ""
except tl.errors.BackendUnsupportedError as error:
    refused = error.code
print(json.dumps({{"device": trace.device, "live": trace.has_live_payloads, "refused": refused, "dev": os.environ.get("DEV"),
                  "python": rows["python"], "venv": rows["venv"], "prefix": sys.prefix, "ops": len(trace)}}))
"""


def run_probe(before: str = "", env: dict | None = None) -> dict:
    done = run_python(PROBE.format(before=before), env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_attaches_and_picks_dev_python_when_nothing_chose_a_device():
    found = run_probe()
    assert found["dev"] == "PYTHON" and found["device"] == "PYTHON" and found["live"] and found["refused"] == ""
    # The running interpreter, not another one started from a venv of the build.
    assert found["venv"] == found["prefix"] and f"sys.prefix {found['prefix']}" in found["python"]


def test_tinygrad_imported_on_another_device_gives_an_audit_only_trace():
    found = run_probe(before="os.environ['DEV'] = 'CPU'\nimport tinygrad")
    assert found["device"] == "CPU" and not found["live"]
    assert found["refused"] == "live_payloads_required"
    assert found["ops"] > 0


def test_tinygrad_imported_first_without_dev_keeps_its_own_device():
    """Too late to choose: tinygrad picked its device at import, so the trace is audit-only."""
    found = run_probe(before="import tinygrad")
    assert found["device"] != "PYTHON" and not found["live"]
    assert found["refused"] == "live_payloads_required"


def test_a_users_dev_is_kept():
    found = run_probe(env={"DEV": "CPU"})
    assert found["dev"] == "CPU" and found["device"] == "CPU" and not found["live"]


def test_interpreter_exits_cleanly_after_captures():
    """No second interpreter and no finalization from the core: Python's own exit runs normally."""
    done = run_python(PROBE.format(before="import atexit\natexit.register(lambda: print('atexit ran'))"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "atexit ran"
