# The out-of-range leg (ci/leg.sh) from Python: tl.trace refuses with backend_version_unsupported
# before the forward runs, the input or the seed changes. On an in-range tinygrad it exits 1.
import tlconform as tl  # first: it sets DEV=PYTHON for tinygrad
from tinygrad import Tensor

x = Tensor([[1.0, -2.0], [0.5, 3.0]]).realize()
before, seed = x.numpy().tobytes(), Tensor._seed
ran = []
try:
    tl.trace(lambda t: ran.append(1) or t * 2, x, backend="tinygrad")
except tl.errors.BackendUnsupportedError as error:
    same = x.numpy().tobytes() == before and Tensor._seed == seed and not ran
    print(f"python: refused {error.code}; forward ran: {bool(ran)}; input and seed unchanged: {same}")
    raise SystemExit(0 if error.code == "backend_version_unsupported" and same else 1)
raise SystemExit("python: the capture was not refused")
