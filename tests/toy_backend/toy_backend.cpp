// The "toy" backend: a test-only second backend over toygrad (toygrad.py beside this file), a tiny
// eager pure-Python framework. It exists to show that the harness core is backend-neutral: it is an
// engine only (harness/backend/engine.h), and its rows go through the same judge, cells, `run`,
// `scorecard` and `doctor` as tinygrad's; everything it knows of toygrad lives here. Its live graph
// is honest: a replay job re-runs a toygrad op over its parents' saved payloads (one replaced when
// the judge perturbs it), and gradients come from toygrad's own backward.
#include <pybind11/eval.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>

#include "harness/backend/backend_registry.h"
#include "harness/backend/python_runtime.h"
#include "harness/model/errors.h"
#include "harness/model/live_graph.h"
#include "harness/model/refusal.h"
#include "harness/model/version_range.h"
#include "harness/roster/roster_python.h"

namespace tl::toy {
namespace {

namespace py = pybind11;

constexpr const char* kName = "toy";
// The one code the toy adds to the shared registry (the others it raises are shared codes).
constexpr RefusalCode kToyInputRequired{"toy_input_required"};

// Python because it drives Python: building a row, recording a forward, replaying ops. toygrad is
// not installed in the venv, so its directory goes on sys.path here (it reads no environment, so
// the backend has nothing to prepare before the interpreter starts).
constexpr const char* kGlue = R"PY(
import sys, textwrap
if TOY_DIR not in sys.path:
    sys.path.insert(0, TOY_DIR)
import toygrad
from toygrad import Tensor

def _toy_build(row):
    if row["seed"] is not None:
        raise ValueError("toygrad has no RNG: a toy row takes no seed")
    def tensor(spec):
        if spec["source"] == "python":
            return Tensor(spec["values"], spec["shape"], "float64").tolist()
        if spec["source"] != "list":
            raise ValueError(f"toygrad builds tensors from lists only, not source {spec['source']}")
        return Tensor(spec["values"], spec["shape"], spec["dtype"])
    scope = {"Tensor": Tensor, "toygrad": toygrad}
    if row["setup"]:
        exec(compile(row["setup"], row["forward_file"], "exec"), scope)
    for spec in row["tensors"]:
        scope[spec["name"]] = tensor(spec)
    inputs = tuple(tensor(spec) for spec in row["inputs"])
    params = ", ".join(spec["name"] for spec in row["inputs"])
    def define(name, source, line):
        source = source.strip()
        try:  # an expression, or a function body with `return`
            compile(source, "<forward>", "eval")
            body = "return (" + source + ")"
        except SyntaxError:
            body = source
        padding = "\n" * max(line - 2, 0)  # tracebacks cite the roster's lines (def just above)
        exec(compile(padding + f"def {name}({params}):\n" + textwrap.indent(body, "    ") + "\n", row["forward_file"], "exec"), scope)
        return scope[name]
    forward = define("forward", row["forward"], row["forward_line"])
    return forward, inputs, define("again", row["again"], row["again_line"]) if row["again"] else None

def _toy_outputs(returned):
    outputs = [returned] if isinstance(returned, Tensor) else list(returned) if isinstance(returned, (tuple, list)) else []
    return outputs if outputs and all(isinstance(t, Tensor) for t in outputs) else None

def _toy_capture(fn, args):
    # Every tensor an op makes while the forward runs, in the order toygrad ran them.
    made = []
    hook = made.append
    toygrad.add_hook(hook)
    try:
        returned = fn(*args)
    finally:
        toygrad.remove_hook(hook)
    outputs = _toy_outputs(returned)
    if outputs is None:
        return {"problem": f"the forward returned {type(returned).__name__}, not toygrad Tensors"}
    ops, index, counts = [], {}, {}
    def add(t, kind, constant_kind, framework_op):
        counts[framework_op] = counts.get(framework_op, 0) + 1
        index[id(t)] = len(ops)
        ops.append({"label": f"{framework_op}:{counts[framework_op] - 1}", "op": framework_op, "kind": kind,
                    "constant_kind": constant_kind, "dtype": t.dtype, "shape": list(t.shape), "values": list(t.data),
                    "parents": [index[id(p)] for p in t.parents]})
    # Inputs first, then tensors made before the forward that it read (closures), then its own ops.
    for t in args:
        if isinstance(t, Tensor) and id(t) not in index:
            add(t, "input", None, "input")
    mine = {id(t) for t in made}
    for t in [p for m in made for p in m.parents] + outputs:
        if id(t) not in index and id(t) not in mine:
            add(t, "constant", "closure", "closure")
    for t in made:
        add(t, "constant", "literal", t.op) if t.op == "const" else add(t, "compute", None, t.op)
    return {"ops": ops, "outputs": [index[id(t)] for t in outputs], "inputs": [index[id(t)] for t in args if isinstance(t, Tensor)],
            "kernels": len(made)}

def _toy_replay(ops, jobs):
    # Per job (op, replaced position or None, its values): the op re-run by toygrad over its parents'
    # saved values, one parent's replaced. Returns (values, None) or (None, the error).
    def leaf(op, values=None):
        return Tensor(op["values"] if values is None else values, op["shape"], op["dtype"])
    results = []
    for index, position, values in jobs:
        op = ops[index]
        parents = [leaf(ops[p]) for p in op["parents"]]
        if position is not None:
            parents[position] = leaf(ops[op["parents"][position]], values)
        try:
            results.append((toygrad.apply(op["op"], *parents).data, None))
        except Exception as error:  # the job's own failure, reported with it
            results.append((None, f"{type(error).__name__}: {error}"))
    return results

def _toy_rebuild(ops, outputs, loss, replacement):
    # The graph re-run from the saved leaves (and from `replacement`: op index -> values), and the loss.
    tensors = []
    for i, op in enumerate(ops):
        if op["kind"] != "compute" or i in replacement:
            tensors.append(Tensor(replacement.get(i, op["values"]), op["shape"], op["dtype"]))
        else:
            tensors.append(toygrad.apply(op["op"], *[tensors[p] for p in op["parents"]]))
    outs = [tensors[i] for i in outputs]
    if loss:
        value = eval(loss, {"outputs": outs, "toygrad": toygrad, "Tensor": Tensor})
    else:
        value = outs[0].sum()
        for out in outs[1:]:
            value = value + out.sum()
    return tensors, value

def _toy_grads(ops, outputs, loss):
    tensors, value = _toy_rebuild(ops, outputs, loss, {})
    value.backward()
    return [t.grad if t.grad is not None else [0.0] * t.numel() for t in tensors]

def _toy_losses(ops, outputs, loss, replacements):
    return [_toy_rebuild(ops, outputs, loss, r)[1].data[0] for r in replacements]

def _toy_snapshot(inputs):
    def state(t):
        return (t.dtype, t.shape, list(t.data), t.op, t.parents) if isinstance(t, Tensor) else ("python", repr(t))
    return {"ops": toygrad.ops_executed, "inputs": [state(t) for t in inputs], "hooks": toygrad.hooks()}

_TOY_PROBES = ["no_op_ran", "inputs_unchanged", "hooks_restored"]

def _toy_changes(before, after):
    changed = {}
    if after["ops"] != before["ops"]:
        changed["no_op_ran"] = f"{after['ops'] - before['ops']} toygrad op(s) ran"
    for i, (old, new) in enumerate(zip(before["inputs"], after["inputs"])):
        if old != new:
            changed["inputs_unchanged"] = f"input {i} changed"
    if after["hooks"] != before["hooks"]:
        changed["hooks_restored"] = f"toygrad has {len(after['hooks'])} hook(s), had {len(before['hooks'])}"
    return changed
)PY";

py::dict glue() {
  python_runtime();
  py::dict scope;
  scope["TOY_DIR"] = TL_TOY_DIR;
  py::exec(kGlue, scope);
  return scope;
}

[[noreturn]] void refuse(RefusalCode code, const std::string& detail) { throw BackendUnsupportedError(code, kName, detail); }

// What the toy cannot honour, refused before toygrad runs anything.
void refuse_unsupported(const TraceOptions& options, const py::tuple& args, const std::string& version) {
  const BackendSpec& spec = backends::spec(kName);
  if (!version_in_range(version, spec.supported_range))
    refuse(RefusalCode::BackendVersionUnsupported, "toygrad " + version + " is outside " + spec.supported_range);
  if (!options.other.empty())
    refuse(RefusalCode::TraceOptionUnsupported, "trace option '" + options.other.begin()->first + "' is not taken by the toy");
  const std::string& mode = options.capture.module_identity_mode;
  if (mode != "auto" && mode != "none") refuse(RefusalCode::ModuleIdentityModeUnsupported, "toygrad has no module metadata");
  if (options.random_seed) refuse(RefusalCode::ExplicitSeedUnsupported, "toygrad has no RNG to seed");
  const CapabilityRequests& asked = options.requests;
  const std::pair<bool, RefusalCode> requests[] = {{asked.backward_capture, RefusalCode::BackwardCaptureUnsupported},
                                                   {asked.fastlog, RefusalCode::FastlogUnsupported},
                                                   {asked.interventions, RefusalCode::InterventionsUnsupported},
                                                   {asked.rng_replay, RefusalCode::RngReplayUnsupported},
                                                   {asked.streaming, RefusalCode::StreamingUnsupported},
                                                   {asked.structure_only, RefusalCode::StructureOnlyCaptureUnsupported}};
  for (const auto& [requested, code] : requests) {
    if (requested) refuse(code, "the toy backend captures forwards only");
  }
  const py::object tensor = py::module_::import("toygrad").attr("Tensor");
  for (py::handle arg : args) {
    if (py::isinstance(arg, tensor)) return;
  }
  refuse(kToyInputRequired, "none of the " + std::to_string(args.size()) + " positional argument(s) is a toygrad Tensor");
}

Payload payload(const std::string& dtype, const std::vector<std::int64_t>& shape, const std::vector<double>& values) {
  return Payload::from_doubles(*dtype_from_name(dtype), shape, values);
}

// An op as the Python glue reads it: the trace's saved payload as values.
py::list ops_for_python(const Trace& trace) {
  py::list ops;
  for (const Op& op : trace.ops) {
    py::list parents;
    for (const ParentRef& parent : op.parents) parents.append(parent.op);
    py::dict entry;
    entry["op"] = op.framework_op;
    entry["kind"] = to_string(op.kind);
    entry["dtype"] = op.dtype.name;
    entry["shape"] = op.shape;
    entry["values"] = op.out->to_doubles();
    entry["parents"] = parents;
    ops.append(entry);
  }
  return ops;
}

// What a live toy trace keeps: the captured graph's shape (framework op and parents of each op), to
// check the trace against; the values themselves are the trace's own payloads.
class ToyLiveGraph : public LiveGraph {
 public:
  explicit ToyLiveGraph(const Trace& captured) {
    for (const Op& op : captured.ops) graph_.push_back({.framework_op = op.framework_op, .parents = op.parents});
  }

  // toygrad folds nothing and takes no value from an eager run: no node is constant or eager's.
  std::vector<CapturedNode> captured_graph(const Trace&) const override { return graph_; }

  // toygrad is eager: every job, whatever its kind, is the op re-run over its parents' payloads.
  ReplayRun replay(const Trace& trace, const std::vector<ReplayJob>& jobs) const override {
    ReplayRun run;
    with_python_errors([&] {
      py::list specs;
      for (const ReplayJob& job : jobs) {
        if (job.replacement)
          specs.append(py::make_tuple(job.op, job.replacement->position, job.replacement->payload.to_doubles()));
        else
          specs.append(py::make_tuple(job.op, py::none(), py::none()));
      }
      const py::list results = glue()["_toy_replay"](ops_for_python(trace), specs);
      for (std::size_t j = 0; j < jobs.size(); ++j) {
        const Op& op = trace.ops[jobs[j].op];
        const py::tuple result = results[j];
        if (!result[1].is_none()) {
          run.results.push_back({.value = std::nullopt, .error = result[1].cast<std::string>()});
          continue;
        }
        std::vector<double> values = result[0].cast<std::vector<double>>();
        std::vector<std::int64_t> shape = op.shape;
        if (jobs[j].limit && static_cast<std::int64_t>(values.size()) > *jobs[j].limit) values.resize(*jobs[j].limit);
        if (jobs[j].limit) shape = {static_cast<std::int64_t>(values.size())};  // the first elements, flattened
        run.results.push_back({.value = payload(op.dtype.name, shape, values)});
      }
    });
    return run;
  }

  std::optional<std::string> unchanged_reason(const Trace&, const Op&, const Op&) const override { return std::nullopt; }

  void derive_grads(Trace& trace, const GradOptions& options) const override {
    with_python_errors([&] {
      const auto grads =
          glue()["_toy_grads"](ops_for_python(trace), trace.outputs, options.loss).cast<std::vector<std::vector<double>>>();
      for (Op& op : trace.ops) op.grad = payload(op.dtype.name, op.shape, grads[op.index]);
    });
  }

  std::vector<double> losses(const Trace& trace, const GradOptions& options,
                             const std::vector<std::map<std::size_t, Payload>>& replacements) const override {
    std::vector<double> result;
    with_python_errors([&] {
      py::list sets;
      for (const auto& replacement : replacements) {
        py::dict values;
        for (const auto& [index, value] : replacement) values[py::int_(index)] = value.to_doubles();
        sets.append(values);
      }
      result = glue()["_toy_losses"](ops_for_python(trace), trace.outputs, options.loss, sets).cast<std::vector<double>>();
    });
    return result;
  }

  // toygrad computes every op from its parents' values: all are chained.
  std::vector<JudgedOp> judged_ops(const Trace& trace) const override {
    std::vector<JudgedOp> ops;
    for (const Op& op : trace.ops) {
      if (op.kind == OpKind::Compute) ops.push_back({.op = op.index});
    }
    return ops;
  }

  // toygrad's autograd cannot take an intermediate as a leaf, nor differentiate one op alone: finite
  // differences check those.
  std::vector<std::optional<Payload>> edge_gradients(const Trace& /*trace*/, const GradOptions& /*options*/,
                                                     const std::vector<std::size_t>& ops) const override {
    return std::vector<std::optional<Payload>>(ops.size());
  }
  std::vector<std::optional<Payload>> leaf_gradients(const Trace& /*trace*/, const GradOptions& /*options*/,
                                                     const std::vector<std::size_t>& ops) const override {
    return std::vector<std::optional<Payload>>(ops.size());
  }

  // toygrad is eager: an op realized alone is its replay over its parents' payloads.
  std::vector<Payload> alone_values(const Trace& trace, const std::vector<std::size_t>& ops) const override {
    std::vector<ReplayJob> jobs;
    jobs.reserve(ops.size());
    for (std::size_t index : ops) jobs.push_back({.op = index});
    ReplayRun run = replay(trace, jobs);
    std::vector<Payload> values;
    for (std::size_t k = 0; k < ops.size(); ++k) {
      if (!run.results[k].value) throw std::runtime_error(trace.ops[ops[k]].label + " alone: " + run.results[k].error);
      values.push_back(std::move(*run.results[k].value));
    }
    return values;
  }

 private:
  std::vector<CapturedNode> graph_;
};

std::string toygrad_version() {
  std::string version;
  with_python_errors([&] { version = glue()["toygrad"].attr("__version__").cast<std::string>(); });
  return version;
}

struct Fixture {
  py::dict glue;
  py::object forward;
  py::tuple inputs;
  py::object again;
};

// The row's tensors and forward, built afresh.
Fixture build_row(const RosterRow& row) {
  python_runtime();  // before the fixture's (empty) Python objects exist
  Fixture fixture;
  with_python_errors([&] {
    fixture.glue = glue();
    py::dict spec;
    spec["seed"] = row.seed ? py::object(py::int_(*row.seed)) : py::object(py::none());
    spec["tensors"] = tensor_values_list(row.tensors);
    spec["inputs"] = tensor_values_list(row.inputs);
    spec["setup"] = row.setup;
    spec["forward"] = row.forward;
    spec["forward_file"] = py::bytes(row.forward_where.file);
    spec["forward_line"] = row.forward_where.line;
    spec["again"] = row.again;
    spec["again_line"] = row.again_where.line;
    const py::tuple built = fixture.glue["_toy_build"](spec);
    fixture.forward = built[0];
    fixture.inputs = built[1];
    fixture.again = built[2];
  });
  return fixture;
}

Trace capture(const py::object& fn, const py::tuple& args, const TraceOptions& options) {
  Trace trace;
  trace.backend = kName;
  trace.framework_version = toygrad_version();
  trace.device = "python";
  trace.options = options;
  with_python_errors([&] { refuse_unsupported(options, args, trace.framework_version); });
  with_python_errors([&] {
    const py::dict captured = glue()["_toy_capture"](fn, args);
    if (captured.contains("problem")) refuse(RefusalCode::TensorOutputRequired, captured["problem"].cast<std::string>());
    for (py::handle entry : captured["ops"]) {
      Op op{.index = trace.ops.size(),
            .label = entry["label"].cast<std::string>(),
            .framework_op = entry["op"].cast<std::string>(),
            .dtype = *dtype_from_name(entry["dtype"].cast<std::string>()),
            .shape = entry["shape"].cast<std::vector<std::int64_t>>()};
      const std::string kind = entry["kind"].cast<std::string>();
      op.kind = kind == "input" ? OpKind::Input : kind == "constant" ? OpKind::Constant : OpKind::Compute;
      if (!entry["constant_kind"].is_none()) op.constant_kind = entry["constant_kind"].cast<std::string>();
      std::size_t position = 0;
      for (py::handle parent : entry["parents"]) op.parents.push_back({parent.cast<std::size_t>(), position++});
      op.out = payload(op.dtype.name, op.shape, entry["values"].cast<std::vector<double>>());
      trace.ops.push_back(std::move(op));
    }
    trace.outputs = captured["outputs"].cast<std::vector<std::size_t>>();
    trace.inputs = captured["inputs"].cast<std::vector<std::size_t>>();
    trace.stats = {.evaluations = 1, .kernels = captured["kernels"].cast<int>()};  // the forward ran once
  });
  trace.live = std::make_shared<ToyLiveGraph>(trace);
  return trace;
}

// A forward's returned toygrad Tensors as payloads.
std::vector<Payload> outputs_of(const py::dict& glue, const py::object& returned) {
  const py::object outputs = glue["_toy_outputs"](returned);
  if (outputs.is_none()) throw std::runtime_error("the eager forward returned no toygrad Tensors");
  std::vector<Payload> payloads;
  for (py::handle out : outputs) {
    payloads.push_back(payload(out.attr("dtype").cast<std::string>(), out.attr("shape").cast<std::vector<std::int64_t>>(),
                               out.attr("data").cast<std::vector<double>>()));
  }
  return payloads;
}

// Calls of the forward counted (toygrad is eager: one call is one evaluation), and toygrad's own
// op counter.
class ToyWatch : public EvaluationWatch {
 public:
  ToyWatch() {
    with_python_errors([&] { ops_before_ = glue()["toygrad"].attr("ops_executed").cast<long long>(); });
  }

  py::object watched(const py::object& forward) override {
    py::object counted;
    with_python_errors([&] {
      py::dict scope;
      scope["calls"] = calls_;
      scope["forward"] = forward;
      py::exec("def counted(*args):\n    calls.append(1)\n    return forward(*args)\n", scope);
      counted = scope["counted"];
    });
    return counted;
  }

  EvaluationCount stop() override {
    EvaluationCount count;
    with_python_errors([&] {
      count.evaluations = static_cast<int>(py::len(calls_));
      count.kernels = glue()["toygrad"].attr("ops_executed").cast<long long>() - ops_before_;
    });
    return count;
  }

 private:
  py::list calls_;
  long long ops_before_ = 0;
};

// toygrad's op counter, the inputs' values and its hooks, around a row's objects.
class ToyStateProbe : public StateProbe {
 public:
  explicit ToyStateProbe(const RowObjects& objects) : inputs_(objects.inputs) {
    with_python_errors([&] { before_ = glue()["_toy_snapshot"](inputs_); });
  }

  std::vector<std::string> names() const override {
    std::vector<std::string> names;
    with_python_errors([&] { names = glue()["_TOY_PROBES"].cast<std::vector<std::string>>(); });
    return names;
  }

  std::vector<std::pair<std::string, std::string>> changed() override {
    std::vector<std::pair<std::string, std::string>> changed;
    with_python_errors([&] {
      const py::dict scope = glue();
      const py::dict found = scope["_toy_changes"](before_, scope["_toy_snapshot"](inputs_));
      for (auto [probe, what] : found) changed.emplace_back(probe.cast<std::string>(), what.cast<std::string>());
    });
    return changed;
  }

 private:
  py::tuple inputs_;
  py::object before_;
};

class ToyEngine : public Engine {
 public:
  std::string name() const override { return kName; }

  void refuse_unsupported_version() override {
    const BackendSpec& spec = backends::spec(kName);
    const std::string version = toygrad_version();
    if (!version_in_range(version, spec.supported_range))
      refuse(RefusalCode::BackendVersionUnsupported, "toygrad " + version + " is outside " + spec.supported_range);
  }

  RowObjects build_row(const RosterRow& row) override {
    Fixture fixture = toy::build_row(row);
    return {std::move(fixture.forward), std::move(fixture.inputs), std::move(fixture.again)};
  }

  Trace capture(const py::object& fn, const py::tuple& args, const TraceOptions& options) override {
    return toy::capture(fn, args, options);
  }

  std::unique_ptr<EvaluationWatch> watch_evaluations() override { return std::make_unique<ToyWatch>(); }

  std::string rng_state() override { return "toygrad has no RNG"; }

  // toygrad's objects hold no state a forward writes.
  std::vector<std::pair<std::string, Payload>> held_state(const RowObjects&) override { return {}; }

  std::vector<Payload> run_eagerly(const RowObjects& objects) override {
    std::vector<Payload> outputs;
    with_python_errors([&] { outputs = outputs_of(glue(), objects.forward(*objects.inputs)); });
    return outputs;
  }

  InputGradients input_gradients(const RowObjects&) override {
    return {.by_position = {}, .error = "the toy backend asks no autograd of its own: finite differences check its inputs"};
  }

  std::unique_ptr<StateProbe> probe_state(const RowObjects& objects) override { return std::make_unique<ToyStateProbe>(objects); }
};

FrameworkProbe probe() {
  FrameworkProbe found;
  const BackendSpec& spec = backends::spec(kName);
  try {
    found.version = toygrad_version();
  } catch (const std::exception& error) {
    found.rows.push_back({"toygrad", DoctorStatus::Failed, error.what(), "toygrad.py belongs in " TL_TOY_DIR});
    return found;
  }
  const bool in_range = version_in_range(found.version, spec.supported_range);
  found.rows.push_back({"toygrad", in_range ? DoctorStatus::Ok : DoctorStatus::Failed,
                        found.version + (in_range ? " in range " : " out of range ") + spec.supported_range + " (" TL_TOY_DIR ")",
                        in_range ? "" : "restore tests/toy_backend/toygrad.py"});
  return found;
}

[[maybe_unused]] const bool registered = backends::register_backend({
    .name = kName,
    .distribution = "toygrad",
    .supported_range = ">=1.0,<2",
    .pinned_version = "1.0.0",
    .install_extra = "",
    .maturity = "preview",
    .materialization = "eager",
    .device = "python",
    .capabilities = {{.name = "has_validation_replay",
                      .is_flag = true,
                      .declared_supported = true,
                      .notes = "each toygrad op re-run from its parents' payloads, plus parent perturbation",
                      .cells = {"toy_validation_replay"}},
                     {.name = "intermediate_derived_grads",
                      .is_flag = true,
                      .declared_supported = true,
                      .notes = "toygrad's backward, checked by the derived_grads check of the config_built cells",
                      .cells = {"toy_mlp", "toy_literals"}},
                     {.name = "Trace options outside `module_identity_mode`, `grad_options`",
                      .refusal = "trace_option_unsupported",
                      .cells = {"toy_refuse_unknown_option"}},
                     {.name = "No positional toygrad Tensor input",
                      .refusal = "toy_input_required",
                      .cells = {"toy_refuse_plain_input"}}},
    .refusals = {{.code = kToyInputRequired,
                  .meaning = "no positional argument is a toygrad Tensor",
                  .belongs_to = "capture",
                  .instead = "pass at least one toygrad Tensor positionally",
                  .backend = kName}},
    .layer_types = {},
    .features = {},
    .prepare_interpreter = nullptr,
    .probe = probe,
    .make_engine = [] { return std::unique_ptr<Engine>(new ToyEngine()); },
});

}  // namespace
}  // namespace tl::toy
