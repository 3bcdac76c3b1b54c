// Capture vs eager tinygrad, vs the bare floor and vs per-op realization; replay validation and
// derived grads vs eager; peak memory of a capture vs its payload bytes. All on DEV=PYTHON, warm
// (tinygrad's caches filled by a first call). Ratios come from rows of one run (bench/README.md).
//   build/bin/capture_bench --benchmark_out=build/bench.json --benchmark_out_format=json
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <pybind11/embed.h>

#include <fstream>
#include <functional>
#include <map>
#include <string>

#include "backends/tinygrad/protocol.h"
#include "backends/tinygrad/python_modules.h"
#include "backends/tinygrad/runtime.h"
#include "harness/backend/backend_registry.h"
#include "harness/backend/python_runtime.h"
#include "harness/judge/replay_validation.h"

namespace py = pybind11;

namespace {

constexpr const char* kModels = R"PY(
import numpy as np
from tinygrad import Tensor, nn, dtypes
from tinygrad.uop.ops import UOp, Ops
from tinygrad.callify import transform_to_call
from tinygrad.schedule import create_linear_with_vars
from tinygrad.engine.realize import run_linear
from tinygrad.helpers import Context

def fixed(*shape, scale=0.1):
    n = int(np.prod(shape))
    return Tensor(((np.arange(n, dtype=np.float32) % 7) - 3).reshape(shape) * scale)

def tutorial():
    weight = Tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6], [-0.7, 0.8, 0.9], [1.0, -1.1, 1.2]])
    bias = Tensor([0.0, 0.1, -0.1])
    return (lambda x: (x.matmul(weight) + bias).relu()), Tensor([[-1.0, -0.5, 0.25, 1.0], [0.5, 1.5, -2.0, 0.75]])

def mlp_softmax():
    w1, b1, w2, b2, w3, b3 = fixed(8, 32), fixed(32), fixed(32, 32, scale=0.05), fixed(32), fixed(32, 4), fixed(4)
    def forward(x):
        h = (x.matmul(w1) + b1).relu()
        h = (h.matmul(w2) + b2).relu()
        return (h.matmul(w3) + b3).softmax()
    return forward, fixed(2, 8)

def conv_net():
    c1, c2, head = nn.Conv2d(1, 4, 3, padding=1), nn.Conv2d(4, 4, 3, padding=1), nn.Linear(4, 3)
    c1.weight, c1.bias, c2.weight, c2.bias = fixed(4, 1, 3, 3), fixed(4), fixed(4, 4, 3, 3), fixed(4)
    head.weight, head.bias = fixed(3, 4), fixed(3)
    return (lambda x: head(c2(c1(x).relu()).relu().mean(axis=(2, 3)))), fixed(1, 1, 6, 6)

# The issue 21 matmul: 64x64 @ 64x64, uniform in [-2, 2] (numpy seed 0), a 64-term sum per element.
def matmul64():
    rng = np.random.default_rng(0)
    w = Tensor(rng.uniform(-2, 2, (64, 64)).astype(np.float32))
    return (lambda x: (x @ w).relu()), Tensor(rng.uniform(-2, 2, (64, 64)).astype(np.float32))

# A residual chain: `depth` steps of (h @ w + b).relu() + h * 0.5, so shared sub-graphs are included;
# about 17 recorded ops per step.
def chain(depth):
    weights = [Tensor([[0.5 + 0.01 * i, -0.25], [0.125, 0.75 - 0.01 * i]]) for i in range(depth)]
    biases = [Tensor([0.01 * i, -0.02]) for i in range(depth)]
    def forward(x):
        h = x
        for w, b in zip(weights, biases):
            h = (h.matmul(w) + b).relu() + h * 0.5
        return h
    return forward, Tensor([[1.0, -2.0], [0.5, 0.25]])

# A pure elementwise chain (issue 15): `n` steps alternating x * 1.001 + 0.001 and x.relu() - 0.0005
# on a 1x3 tensor, about 2.5 recorded ops per step; eager fuses the whole chain into one kernel.
def elementwise(n):
    def forward(x):
        for i in range(n):
            x = (x * 1.001 + 0.001) if i % 2 else x.relu() - 0.0005
        return x
    return forward, Tensor([[1.0, -2.0, 3.0]])

# A default-init two-layer MLP (seeded nn.Linear layers, not yet realized): a capture reads their
# lazily random weights, as a user's first trace of a new model does. A builder, not a model: a
# capture (like an eager forward) realizes the weights, so each iteration builds a fresh one.
def default_init_mlp():
    def build():
        Tensor.manual_seed(5)
        l1, l2 = nn.Linear(64, 64), nn.Linear(64, 32)
        return lambda x: l2(l1(x).gelu()).softmax()
    return build, Tensor(np.arange(512, dtype=np.float32).reshape(8, 64) * 0.01 - 2.0)

# Issue 35's deep MLP stack: `depth` layers (h @ W + b).gelu(), W 32x32 and b realized, batch 4,
# ending h.sum(-1).softmax().
def mlp_stack(depth):
    Tensor.manual_seed(11)
    weights = [Tensor.randn(32, 32).realize() for _ in range(depth)]
    biases = [Tensor.randn(32).realize() for _ in range(depth)]
    def forward(x):
        h = x
        for w, b in zip(weights, biases):
            h = (h @ w + b).gelu()
        return h.sum(-1).softmax()
    return forward, Tensor.randn(4, 32).realize()

# A whole tinygrad.llm Transformer of `depth` blocks (width 32, 4 heads over 2 KV heads, realized
# seeded weights) over 8 tokens: embedding, blocks, output norm, logits (no sampling).
def llm(depth):
    from tinygrad.llm.model import Transformer, TransformerConfig
    Tensor.manual_seed(11)
    config = TransformerConfig(num_blocks=depth, dim=32, hidden_dim=64, n_heads=4, n_kv_heads=2, norm_eps=1e-5, vocab_size=64,
                               head_dim=8, rope_theta=10000.0, rope_dim=8, v_head_dim=8, max_context=16)
    model = Transformer(config)
    for p in nn.state.get_parameters(model): p.realize()
    def forward(tokens):
        x = model.token_embd(tokens).float()
        for block in model.blk: x = block(x, 0)
        return model.output(model.output_norm(x))
    return forward, Tensor([[1, 7, 12, 3, 30, 41, 5, 63]])

# Issue 35's mul-add chain: `depth` steps of a * 1.0001 + 0.0001 over 256 floats (tinygrad folds
# nothing here: each step reads the last).
def muladd(depth):
    def forward(a):
        for _ in range(depth):
            a = a * 1.0001 + 0.0001
        return a
    return forward, fixed(256, scale=0.01)

# For memory: elementwise steps over a wide vector, so payload bytes dominate the graph's own size.
def wide(depth):
    def forward(x):
        h = x
        for i in range(depth):
            h = (h * 0.5 + 0.1 * i).relu() + h.sin()
        return h
    return forward, fixed(16384, scale=0.01)

MOVEMENT = {Ops.RESHAPE, Ops.EXPAND, Ops.PAD, Ops.SHRINK, Ops.PERMUTE, Ops.FLIP}
def recorded_nodes(out, views):
    return [n for n in out.uop.toposort() if n.dtype.scalar() not in (dtypes.void, dtypes.weakint)
            and (views or n.op not in MOVEMENT)]

# The bare floor: the forward, then the one tinygrad evaluation a capture runs (the same requests,
# from backends/tinygrad/python/tl_evaluation.py) of every node it materializes (views are derived on
# the host), with no graph walk or payload copies; `views` also materializes them.
def bare_floor(forward, x, views=False):
    import tl_evaluation
    out = forward(x)
    nodes = recorded_nodes(out, True)
    tl_evaluation.capture(nodes, [views or n.op not in MOVEMENT for n in nodes], [out.uop], lambda applied: None)

# Fills tinygrad's caches before a row is timed. Compiled programs are cached by their AST, not by
# the linearizer's order, so compiling under TUPLE_ORDER=0 warms the same entries: the default order
# costs minutes for one deep fused kernel (an elementwise chain's eager forward), 2 s with this one.
def warm(forward, x):
    with Context(TUPLE_ORDER=0):
        forward(x).realize()

# The naive method: every recorded node realized on its own, one evaluation each.
def per_op_realize(forward, x):
    for node in recorded_nodes(forward(x), True):
        Tensor(node).contiguous().realize()
)PY";

py::dict& scope() {
  static py::dict* models = [] {
    tl::tinygrad::require_tinygrad();
    auto* dict = new py::dict();                    // lives for the process: the interpreter is never torn down here
    tl::tinygrad::backend_module("tl_evaluation");  // installs the backend's modules for bare_floor
    py::exec(kModels, *dict);
    return dict;
  }();
  return *models;
}

struct Model {
  py::object forward, x;
};

Model make(const std::string& name, int depth) {
  const py::tuple made = depth > 0 ? scope()[name.c_str()](depth) : scope()[name.c_str()]();
  return {made[0], made[1]};
}

std::size_t payload_bytes(const tl::Trace& trace) {
  std::size_t bytes = 0;
  for (const tl::Op& op : trace.ops) bytes += op.out ? op.out->bytes.size() : 0;
  return bytes;
}

// Linux: "5" to clear_refs resets the peak resident size, so VmHWM is the peak since then.
long status_kib(const std::string& field) {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.starts_with(field + ":")) return std::stol(line.substr(field.size() + 1));
  }
  return -1;
}

using Body = std::function<void(benchmark::State&, const Model&)>;

const std::map<std::string, Body>& bodies() {
  static const std::map<std::string, Body> table = {
      {"EagerForward",
       [](benchmark::State& state, const Model& m) {
         for (auto _ : state) m.forward(m.x).attr("realize")();
       }},
      {"Capture",
       [](benchmark::State& state, const Model& m) {
         std::size_t ops =
             tl::tinygrad::trace(m.forward, py::make_tuple(m.x)).size();  // warm: the capture's own kernels compiled
         for (auto _ : state) ops = tl::tinygrad::trace(m.forward, py::make_tuple(m.x)).size();
         state.counters["ops"] = static_cast<double>(ops);
         state.counters["s_per_op"] = benchmark::Counter(
             static_cast<double>(ops), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
       }},
      {"BareFloor",
       [](benchmark::State& state, const Model& m) {
         scope()["bare_floor"](m.forward, m.x);  // warm, as every row: its own kernels compiled
         for (auto _ : state) scope()["bare_floor"](m.forward, m.x);
       }},
      {"BareFloorWithViews",
       [](benchmark::State& state, const Model& m) {
         scope()["bare_floor"](m.forward, m.x, true);
         for (auto _ : state) scope()["bare_floor"](m.forward, m.x, true);
       }},
      {"PerOpRealize",
       [](benchmark::State& state, const Model& m) {
         scope()["per_op_realize"](m.forward, m.x);
         for (auto _ : state) scope()["per_op_realize"](m.forward, m.x);
       }},
      {"ReplayValidation",
       [](benchmark::State& state, const Model& m) {
         const tl::Trace trace = tl::tinygrad::trace(m.forward, py::make_tuple(m.x));
         std::vector<tl::Payload> outputs;
         for (const tl::Op* op : trace.output_ops()) outputs.push_back(*op->out);
         if (!validate_forward_pass(trace, outputs)) state.SkipWithError("validation did not pass");
         for (auto _ : state) {
           if (!validate_forward_pass(trace, outputs)) state.SkipWithError("validation did not pass");
         }
         state.counters["ops"] = static_cast<double>(trace.size());
       }},
      {"DerivedGrads",
       [](benchmark::State& state, const Model& m) {
         tl::Trace trace = tl::tinygrad::trace(m.forward, py::make_tuple(m.x));
         tl::GradOptions options;
         options.intermediate_grads = true;
         trace.derive_grads(options);
         for (auto _ : state) trace.derive_grads(options);
         state.counters["ops"] = static_cast<double>(trace.size());
       }},
      {"CaptureMemory",
       [](benchmark::State& state, const Model& m) {
         tl::tinygrad::trace(m.forward, py::make_tuple(m.x));  // warm: tinygrad's caches are part of the baseline
         double growth = 0;
         double bytes = 0;
         for (auto _ : state) {
           py::module_::import("gc").attr("collect")();
           malloc_trim(0);  // freed heap pages go back to the system, so reuse cannot hide growth
           std::ofstream("/proc/self/clear_refs") << "5";
           const long baseline = status_kib("VmRSS");
           const tl::Trace trace = tl::tinygrad::trace(m.forward, py::make_tuple(m.x));
           growth = static_cast<double>(status_kib("VmHWM") - baseline) * 1024.0;
           bytes = static_cast<double>(payload_bytes(trace));
         }
         state.counters["payload_bytes"] = bytes;
         state.counters["peak_growth_bytes"] = growth;
         state.counters["growth_per_payload_byte"] = growth / bytes;
       }},
  };
  return table;
}

void add(const std::string& kind, const std::string& model, int depth = 0) {
  const std::string name = kind + "/" + model + (depth > 0 ? ":" + std::to_string(depth) : "");
  benchmark::RegisterBenchmark(name.c_str(),
                               [kind, model, depth](benchmark::State& state) {
                                 const Model m = make(model, depth);
                                 scope()["warm"](m.forward, m.x);  // tinygrad's caches filled outside the timing
                                 bodies().at(kind)(state, m);
                               })
      ->Unit(benchmark::kMillisecond)
      ->MinTime(1.0);
}

// Rows over a fresh model per iteration (built untimed): m.forward is the model's builder.
void add_fresh(const std::string& kind, const std::string& model) {
  const std::string name = kind + "/" + model;
  benchmark::RegisterBenchmark(name.c_str(),
                               [kind, model](benchmark::State& state) {
                                 const Model m = make(model, 0);
                                 const bool capture = kind == "CaptureFresh";
                                 const auto run = [&](const py::object& forward) {
                                   if (capture) return tl::tinygrad::trace(forward, py::make_tuple(m.x)).size();
                                   forward(m.x).attr("realize")();
                                   return std::size_t{0};
                                 };
                                 run(m.forward());  // warm: tinygrad's caches and the kernels compiled
                                 std::size_t ops = 0;
                                 for (auto _ : state) {
                                   state.PauseTiming();
                                   const py::object forward = m.forward();
                                   state.ResumeTiming();
                                   ops = run(forward);
                                 }
                                 if (capture) state.counters["ops"] = static_cast<double>(ops);
                               })
      ->Unit(benchmark::kMillisecond)
      ->MinTime(1.0);
}

}  // namespace

// Residual chain depths give about 24, 75, 262, 1,027 and 2,013 recorded ops; elementwise chains of
// 10 to 800 steps give about 35 to 2,010. The naive per-op method grows quadratically (each node's
// evaluation re-schedules its whole past), so it stops near 262 ops.
int main(int argc, char** argv) {
  for (const char* kind : {"EagerForward", "Capture", "BareFloor", "BareFloorWithViews", "ReplayValidation", "DerivedGrads"}) {
    for (const char* model : {"tutorial", "mlp_softmax", "conv_net", "matmul64"}) add(kind, model);
    for (int depth : {1, 4, 15, 60, 118}) add(kind, "chain", depth);
  }
  for (const char* kind : {"EagerForward", "Capture", "BareFloor", "ReplayValidation", "DerivedGrads"}) {
    for (int steps : {10, 50, 100, 200, 500}) add(kind, "elementwise", steps);
  }
  for (int steps : {400, 800}) add("Capture", "elementwise", steps);  // the 1,000 and 2,000 op points
  for (const char* model : {"tutorial", "mlp_softmax", "conv_net"}) add("PerOpRealize", model);
  for (int depth : {1, 4, 15}) add("PerOpRealize", "chain", depth);
  for (int steps : {10, 30, 100}) add("PerOpRealize", "elementwise", steps);
  add("CaptureMemory", "wide", 4);
  for (const char* kind : {"EagerForwardFresh", "CaptureFresh"}) add_fresh(kind, "default_init_mlp");
  // Issue 35: capture, validation and grads against eager as depth grows, each depth's rows side by
  // side, the largest last (a run cut short still has the smaller ones whole).
  const auto issue35 = [](const char* model, int depth) {
    for (const char* kind : {"EagerForward", "Capture", "ReplayValidation", "DerivedGrads"}) add(kind, model, depth);
  };
  const auto chain_of_steps = [](int steps) {
    for (const char* kind : {"EagerForward", "Capture", "CaptureMemory"}) add(kind, "muladd", steps);
  };
  for (int depth : {1, 2, 4, 8, 16}) issue35("mlp_stack", depth);
  chain_of_steps(100);
  chain_of_steps(400);
  for (int depth : {1, 2, 4}) issue35("llm", depth);
  issue35("mlp_stack", 32);
  chain_of_steps(1600);
  issue35("llm", 8);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
