"""The mutation suite's own checks (tests/mutations/mutate.py): every committed mutant can be planted,
and a mutant that cannot (its code moved, a field missing, nothing to kill it) is an error naming it."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "mutations"))

import mutate  # noqa: E402


def test_every_committed_mutant_plants_into_the_code_as_it_is():
    mutants = mutate.load(mutate.MUTANTS)
    assert len(mutants) >= 15
    assert len({m["area"] for m in mutants}) >= 10


def write(tmp_path, body):
    path = tmp_path / "mutants.toml"
    path.write_text(body)
    return path


MUTANT = '''
[[mutant]]
id = "m1"
area = "a"
what = "w"
file = "tests/mutations/mutate.py"
old = """{old}"""
new = "x"
{killers}
'''


def test_a_mutant_whose_code_moved_is_an_error_naming_it(tmp_path):
    path = write(tmp_path, MUTANT.format(old="this text is in no file", killers='rows = ["tutorial_mlp"]'))
    with pytest.raises(mutate.MutantError, match="mutant m1: its `old` text occurs 0 times"):
        mutate.load(path)


def test_a_mutant_nothing_could_kill_is_an_error(tmp_path):
    path = write(tmp_path, MUTANT.format(old="def load(", killers=""))
    with pytest.raises(mutate.MutantError, match="names neither `rows` nor `tests`"):
        mutate.load(path)
