// Capture vs eager tinygrad vs per-op realization, and replay validation and derived grads vs
// eager, on DEV=PYTHON. Ratios come from one run: compare the rows of the same depth.
//   build/bin/capture_bench --benchmark_out=build/bench.json --benchmark_out_format=json
#include <benchmark/benchmark.h>
#include <pybind11/embed.h>

#include "backends/registry.h"
#include "harness/python_runtime.h"

namespace py = pybind11;

namespace {

// A residual chain: `depth` steps of (h * w + b).relu() + h, so shared sub-graphs are included.
constexpr const char* kModels = R"PY(
from tinygrad import Tensor
from tinygrad.uop.ops import UOp
def make_chain(depth):
    weights = [Tensor([[0.5 + 0.01 * i, -0.25], [0.125, 0.75 - 0.01 * i]]) for i in range(depth)]
    biases = [Tensor([0.01 * i, -0.02]) for i in range(depth)]
    def forward(x):
        h = x
        for w, b in zip(weights, biases):
            h = (h.matmul(w) + b).relu() + h * 0.5
        return h
    return forward, Tensor([[1.0, -2.0], [0.5, 0.25]])

def per_op_realize(nodes):
    # The naive method: every recorded node realized on its own, one evaluation each.
    for node in nodes:
        Tensor(node).contiguous().realize()
)PY";

py::dict& scope() {
  static py::dict* models = [] {
    tl::require_tinygrad();
    auto* dict = new py::dict();  // lives for the process: the interpreter is never torn down here
    py::exec(kModels, *dict);
    return dict;
  }();
  return *models;
}

std::pair<py::object, py::object> chain(int depth) {
  const py::tuple made = scope()["make_chain"](depth);
  return {made[0], made[1]};
}

void BM_EagerForward(benchmark::State& state) {
  auto [forward, x] = chain(static_cast<int>(state.range(0)));
  for (auto _ : state) forward(x).attr("realize")();
}

void BM_Capture(benchmark::State& state) {
  auto [forward, x] = chain(static_cast<int>(state.range(0)));
  std::size_t ops = 0;
  for (auto _ : state) ops = tl::trace(forward, py::make_tuple(x)).size();
  state.counters["ops"] = static_cast<double>(ops);
  state.counters["s_per_op"] = benchmark::Counter(static_cast<double>(ops), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_PerOpRealize(benchmark::State& state) {
  auto [forward, x] = chain(static_cast<int>(state.range(0)));
  const tl::Trace trace = tl::trace(forward, py::make_tuple(x));
  for (auto _ : state) {
    // Rebuild the lazy graph each time, as a capture does, then realize node by node.
    const py::object out = forward(x);
    py::list graph;
    for (py::handle node : out.attr("uop").attr("toposort")()) {
      const std::string name = node.attr("op").attr("name").cast<std::string>();
      if (name != "DEVICE" && name != "UNIQUE" && node.attr("dtype").attr("name").cast<std::string>() != "weakint" &&
          !node.attr("_shape").is_none())
        graph.append(node);
    }
    scope()["per_op_realize"](graph);
  }
  state.counters["ops"] = static_cast<double>(trace.size());
}

void BM_ReplayValidation(benchmark::State& state) {
  auto [forward, x] = chain(static_cast<int>(state.range(0)));
  const tl::Trace trace = tl::trace(forward, py::make_tuple(x));
  std::vector<tl::Payload> outputs;
  for (const tl::Op* op : trace.output_ops()) outputs.push_back(*op->out);
  for (auto _ : state) {
    if (!trace.validate_forward_pass(outputs)) state.SkipWithError("validation did not pass");
  }
  state.counters["ops"] = static_cast<double>(trace.size());
}

void BM_DerivedGrads(benchmark::State& state) {
  auto [forward, x] = chain(static_cast<int>(state.range(0)));
  tl::Trace trace = tl::trace(forward, py::make_tuple(x));
  tl::GradOptions options;
  options.intermediate_grads = true;
  for (auto _ : state) trace.derive_grads(options);
  state.counters["ops"] = static_cast<double>(trace.size());
}

// DEV=PYTHON interprets every kernel: depths stay small, and each row runs a few iterations.
#define TL_DEPTHS ->Arg(2)->Arg(8)->Arg(32)->Unit(benchmark::kMillisecond)->MinTime(2.0)
BENCHMARK(BM_EagerForward) TL_DEPTHS;
BENCHMARK(BM_Capture) TL_DEPTHS;
BENCHMARK(BM_PerOpRealize) TL_DEPTHS;
BENCHMARK(BM_ReplayValidation) TL_DEPTHS;
BENCHMARK(BM_DerivedGrads) TL_DEPTHS;

}  // namespace

BENCHMARK_MAIN();
