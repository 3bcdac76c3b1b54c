"""The type stub python/tlconform/_core.pyi names exactly what the compiled _core has: every public
class with its public members, and every function."""

from __future__ import annotations

import ast
from pathlib import Path

import tlconform
from tlconform import _core

STUB = Path(__file__).resolve().parents[2] / "python" / "tlconform" / "_core.pyi"


def stub_names() -> dict[str, set[str]]:
    """Top-level name -> its members (an empty set for functions and variables)."""
    names: dict[str, set[str]] = {}
    for node in ast.parse(STUB.read_text()).body:
        if isinstance(node, ast.ClassDef):
            # pybind11 gives every class an __init__ (one that raises where none is bound): not compared.
            names[node.name] = {
                item.name if isinstance(item, ast.FunctionDef) else item.target.id
                for item in node.body
                if isinstance(item, (ast.FunctionDef, ast.AnnAssign))
            } - {"__init__"}
        elif isinstance(node, ast.FunctionDef):
            names[node.name] = set()
        elif isinstance(node, ast.AnnAssign):
            names[node.target.id] = set()
    return names


def public(names) -> set[str]:
    return {name for name in names if not name.startswith("_") or name in {"__version__", "__len__", "__iter__",
                                                                          "__getitem__", "__contains__", "__array__"}}


def module_names() -> dict[str, set[str]]:
    found = {}
    for name in public(dir(_core)):
        value = getattr(_core, name)
        found[name] = public(vars(value)) if isinstance(value, type) else set()
    return found


def test_stub_matches_the_module():
    assert stub_names() == module_names()


def test_the_package_is_typed():
    assert (Path(tlconform.__file__).parent / "py.typed").exists()
