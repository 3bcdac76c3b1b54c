"""tl.backends (the spec's requirement table, capability states, the refusal registry) and
tl.report.doctor(), checked against the CLI's answers for the same core."""

from __future__ import annotations

import json
import subprocess

import tlconform as tl
from conftest import ROOT, tlconform_cli


def cli_json(*args: str):
    done = subprocess.run([tlconform_cli(), *args, "--json"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.stdout, done.stderr
    return json.loads(done.stdout)


def test_spec_fields_equal_the_clis():
    spec = tl.backends.spec("tinygrad")
    cli = cli_json("spec")
    fields = ["distribution", "supported_range", "pinned_version", "install_extra", "maturity", "materialization", "device"]
    assert {field: getattr(spec, field) for field in fields} == {field: cli[field] for field in fields}
    assert spec.requirements() == {field: cli[field] for field in fields}
    assert spec.maturity == "preview" and spec.device == "DEV=PYTHON"
    assert "tinygrad" in tl.backends.names()


def test_capabilities_equal_the_clis_table():
    rows = tl.backends.spec("tinygrad").capabilities()
    cli = cli_json("capabilities")
    assert [(row.name, row.state) for row in rows] == [(row["name"], row["state"]) for row in cli]
    assert {row.state for row in rows} <= {"supported", "unsupported", "untested"}
    replay = next(row for row in rows if row.name == "has_validation_replay")
    assert replay.is_flag and replay.state == "supported"


def test_unknown_backend_refuses():
    try:
        tl.backends.spec("nope")
    except tl.errors.BackendUnsupportedError as error:
        assert error.code == "backend_unknown" and "tinygrad" in str(error)
    else:
        raise AssertionError("an unknown backend was not refused")


def test_refusal_registry_has_every_code_once():
    codes = [entry.code for entry in tl.errors.registry()]
    assert len(codes) == len(set(codes))
    assert {"module_identity_mode_unsupported", "live_payloads_required", "tinygrad_input_required"} <= set(codes)
    assert all(entry.instead for entry in tl.errors.registry())


def test_doctor_rows():
    rows = tl.report.doctor()
    by_name = {row.name: row for row in rows}
    assert {"venv", "python", "tinygrad", "device", "backend_scorecard:tinygrad"} <= set(by_name)
    assert by_name["tinygrad"].status == "ok" and "0.13.0" in by_name["tinygrad"].value
    assert by_name["device"].value.startswith("DEV=PYTHON")
    # The committed scorecard shipped with the package: every cell passed on the pinned leg.
    assert by_name["backend_scorecard:tinygrad"].status == "ok", by_name["backend_scorecard:tinygrad"].value
    assert all(row.status in {"ok", "warning", "missing", "failed"} for row in rows)
    assert "backend_scorecard:tinygrad" in tl.report.doctor_text(rows)


def test_doctor_reports_a_missing_scorecard(tmp_path):
    row = next(r for r in tl.report.doctor(scorecard=tmp_path / "none.json") if r.name == "backend_scorecard:tinygrad")
    assert row.status != "ok"
