#!/usr/bin/env python3
"""Plants each bug of tests/mutations/mutants.toml in turn and asserts the harness kills it.

For each mutant: replace its `old` text with `new` in its file, rebuild, then run its `rows` as
cells (killed when a cell fails) or, for a mutant of the judge itself, the unit tests matching its
`tests` (killed when one fails). With --full, a mutant its own rows do not kill is run against every
default cell before it counts as a survivor. The file is restored after each mutant (also on an
error or Ctrl-C), and the build is brought back to the source as it was. Prints one line per mutant
and the mutation score; writes the result as JSON (--out). Exit 0 only when every mutant was killed.

  python3 tests/mutations/mutate.py                 # every mutant, its rows or tests only
  python3 tests/mutations/mutate.py --full          # and every default cell for a survivor (nightly)
  python3 tests/mutations/mutate.py --ids A,B       # the named mutants only (CI's sample)
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MUTANTS = Path(__file__).resolve().parent / "mutants.toml"
TLCONFORM = ROOT / "build" / "bin" / "tlconform"
COMMITTED_CARD = ROOT / "scorecards" / "tinygrad" / "scorecard.json"  # what a cell judged there (judged_less)
# the scorecard states that are no failure (harness/model/cell_state)
NOT_FAILED = {"passed", "expected_fail", "unsupported", "skipped", "not_applicable"}


class MutantError(Exception):
    """A mutant that cannot be planted as written (its `old` text is not in its file exactly once)."""


def load(path: Path) -> list[dict]:
    with path.open("rb") as f:
        mutants = tomllib.load(f).get("mutant", [])
    ids = set()
    for n, m in enumerate(mutants, 1):
        for key in ("id", "area", "what", "file", "old", "new"):
            if not isinstance(m.get(key), str) or not m[key]:
                raise MutantError(f"{path}: mutant {n} has no `{key}` (a non-empty string)")
        if m["id"] in ids: raise MutantError(f"{path}: mutant id {m['id']} is given twice")
        ids.add(m["id"])
        if not m.get("rows") and not m.get("tests"):
            raise MutantError(f"{path}: mutant {m['id']} names neither `rows` nor `tests`: nothing could kill it")
        text = (ROOT / m["file"]).read_text()
        count = text.count(m["old"])
        if count != 1:
            raise MutantError(f"{path}: mutant {m['id']}: its `old` text occurs {count} times in {m['file']}, not once "
                              "(the code moved: rewrite the mutant against the code as it is)")
    return mutants


def sh(command: list[str], quiet: bool = True, timeout: float | None = None) -> int:
    out = subprocess.DEVNULL if quiet else None
    return subprocess.run(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT if quiet else None, timeout=timeout).returncode


def build(everything: bool) -> None:
    """Reconfigures (the backend's Python is embedded at configure time) and builds tlconform, or
    every target when unit tests must run."""
    if sh(["cmake", "--preset", "default"]) != 0: raise RuntimeError("cmake --preset default failed")
    target = [] if everything else ["--target", "tlconform"]
    if sh(["cmake", "--build", "--preset", "default", *target]) != 0:
        raise RuntimeError("the build failed (run `cmake --build --preset default` to see why)")


def clean_env(features: tuple = ()) -> dict:
    """The default cells only (no ecosystem or slow rows), and the opt-in `features` named."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCHLENS_CONFORMANCE_")}
    return env | {f"TORCHLENS_CONFORMANCE_{f.upper()}": "1" for f in features}


def failing_cells(rows: list[str] | None, jobs: int, features: tuple = ()) -> list[str]:
    """Runs the rows (every default cell when None) with the opt-in `features` (a mutant's `features`,
    e.g. ["slow", "ecosystem"] for a tinygrad.llm row) and returns the cells that failed."""
    with tempfile.TemporaryDirectory(prefix="tl-mutant-") as tmp:
        card = Path(tmp) / "card.json"
        command = [str(TLCONFORM), "run", "--jobs", str(jobs), "--timeout", "300", "--out", str(card), "--format", "json"]
        for row in rows or []: command += ["--row", row]
        subprocess.run(command, cwd=ROOT, env=clean_env(features), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not card.exists(): return ["(the run wrote no scorecard)"]
        cells = json.loads(card.read_text())["cells"]
        return [f"{c['id']} ({c['state']})" for c in cells if c["state"] not in NOT_FAILED] + judged_less(cells)


def judged_less(cells: list) -> list[str]:
    """The passed cells whose checks judged fewer ops than on the committed card (CI's drift rule,
    harness/report/scorecard.cpp): a bug that weakens a check's truth, so an op goes unjudged,
    passes its cell but fails CI's card check, and is killed here as there."""
    committed = {c["id"]: c for c in json.loads(COMMITTED_CARD.read_text())["cells"]} if COMMITTED_CARD.exists() else {}
    found = []
    for cell in cells:
        was = committed.get(cell["id"])
        if cell["state"] != "passed" or not was or was["state"] != "passed": continue
        for check, before in was.get("coverage", {}).items():
            after = cell.get("coverage", {}).get(check)
            if after is None or after["checked"] < before["checked"] or after["of"] != before["of"] or (
                    before["checked"] == before["of"] and after["checked"] < after["of"]):
                now = "none recorded" if after is None else f"{after['checked']} of {after['of']}"
                found.append(f"{cell['id']} ({check} judged {now}, the card's {before['checked']} of {before['of']})")
    return found


def failing_tests(pattern: str) -> list[str]:
    result = subprocess.run(["ctest", "--preset", "default", "-R", pattern, "--output-on-failure"], cwd=ROOT,
                            env=clean_env(), capture_output=True, text=True)
    if "No tests were found" in result.stdout: raise MutantError(f"no test matches `{pattern}`")
    return [line.split(" - ", 1)[1].split(" (")[0] for line in result.stdout.splitlines()
            if " - " in line and any(f"({why})" in line for why in ("Failed", "Timeout", "SEGFAULT", "Subprocess aborted"))] or (
        ["(ctest failed)"] if result.returncode != 0 else [])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ids", help="comma-separated mutant ids (default: all)")
    parser.add_argument("--full", action="store_true", help="run every default cell against a mutant its rows do not kill")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", default=str(ROOT / "build" / "mutations" / "score.json"))
    args = parser.parse_args()
    try:
        mutants = load(MUTANTS)
    except (MutantError, OSError, tomllib.TOMLDecodeError) as e:
        print(f"mutate.py: {e}", file=sys.stderr)
        return 2
    if args.ids:
        wanted = args.ids.split(",")
        unknown = [i for i in wanted if i not in {m["id"] for m in mutants}]
        if unknown:
            print(f"mutate.py: no mutant {', '.join(unknown)} in {MUTANTS.relative_to(ROOT)}", file=sys.stderr)
            return 2
        mutants = [m for m in mutants if m["id"] in wanted]

    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    results, start = [], time.monotonic()
    built_everything = False
    try:
        for n, m in enumerate(mutants, 1):
            path = ROOT / m["file"]
            original = path.read_text()
            print(f"[{n}/{len(mutants)}] {m['id']} ({m['area']}): {m['what']}", flush=True)
            path.write_text(original.replace(m["old"], m["new"], 1))
            try:
                everything = bool(m.get("tests"))
                built_everything |= everything
                build(everything)
                killed_by = failing_tests(m["tests"]) if m.get("tests") else []
                if m.get("rows") and not killed_by: killed_by = failing_cells(m["rows"], args.jobs, tuple(m.get("features", ())))
                if not killed_by and args.full: killed_by = failing_cells(None, args.jobs)
            finally:
                path.write_text(original)
            verdict = "killed by " + ", ".join(killed_by[:4]) + (" ..." if len(killed_by) > 4 else "") if killed_by else \
                "SURVIVED" + ("" if args.full else " its rows (not run against every default cell: --full)")
            print(f"[{n}/{len(mutants)}] {m['id']}: {verdict} ({time.monotonic() - start:.0f} s elapsed)", flush=True)
            results.append({"id": m["id"], "area": m["area"], "killed": bool(killed_by), "killed_by": killed_by})
    except KeyboardInterrupt:
        print("mutate.py: interrupted; the mutated file is restored", file=sys.stderr)
        return 130
    finally:
        print("rebuilding the unmutated source ...", flush=True)
        build(built_everything)
    killed = sum(r["killed"] for r in results)
    score = {"killed": killed, "total": len(results), "full": args.full, "mutants": results}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps(score, indent=2) + "\n")
    tmp.replace(out)  # atomic
    print(f"mutation score: {killed}/{len(results)} killed; written to {out}")
    return 0 if killed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
