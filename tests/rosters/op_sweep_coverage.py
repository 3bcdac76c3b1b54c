"""The op sweep covers tinygrad as installed: every public Tensor method is covered by a row or
excluded with a reason, every name the sweep names exists, and every tinygrad.nn layer has a row.
Run by CTest (rosters.op_sweep_covers_tinygrad) with the project venv's Python."""
import inspect
import os
import pathlib
import sys

os.environ.setdefault("DEV", "PYTHON")
root = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(root / "rosters" / "tinygrad" / "op_sweep"))

from tinygrad import Tensor, nn  # noqa: E402

import generate  # noqa: E402

covers, excluded, layers = generate.covered()
problems = []
public = {name for name in dir(Tensor) if not name.startswith("_")}
for name in sorted(public - covers - set(excluded)):
  problems.append(f"Tensor.{name} is neither covered by a sweep row nor excluded with a reason (ops.yaml)")
for name in sorted((covers | set(excluded)) - {n for n in covers | set(excluded) if hasattr(Tensor, n)}):
  problems.append(f"ops.yaml names Tensor.{name}, which the installed tinygrad does not have")
for name in sorted(covers & set(excluded)):
  problems.append(f"Tensor.{name} is both covered and excluded")
for name, reason in excluded.items():
  if not isinstance(reason, str) or len(reason.split()) < 3: problems.append(f"the exclusion of {name} gives no reason")
# the layers: nn's own capitalized classes and constructors (Conv1d is a function returning a Conv2d)
exported = {name for name, value in vars(nn).items() if name[0].isupper() and (inspect.isclass(value) or inspect.isfunction(value))
            and getattr(value, "__module__", "").startswith("tinygrad.nn")}
for name in sorted(exported - layers): problems.append(f"tinygrad.nn.{name} has no sweep row (ops.yaml layers)")
for name in sorted(layers - exported): problems.append(f"ops.yaml names tinygrad.nn.{name}, which tinygrad does not export")
if problems:
  print("\n".join(problems))
  sys.exit(1)
print(f"{len(covers)} Tensor names covered, {len(excluded)} excluded with reasons, {len(layers)} nn layers covered")
