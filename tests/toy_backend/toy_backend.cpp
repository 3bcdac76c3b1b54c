// The "toy" backend: a test-only second backend over toygrad (toygrad.py beside this file), a tiny
// eager pure-Python framework. It exists to show that the harness core is backend-neutral: its
// rows go through the same cells, `run`, `scorecard` and `doctor` as tinygrad's, and everything it
// knows lives here. Its live graph is honest: replay re-runs each toygrad op from its parents' saved
// payloads (and perturbs each parent), and gradients come from toygrad's own backward.
#include <pybind11/eval.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <unistd.h>

#include <filesystem>
#include <optional>

#include "harness/backend/backend_registry.h"
#include "harness/backend/python_runtime.h"
#include "harness/model/errors.h"
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
    source = row["forward"].strip()
    try:  # an expression, or a function body with `return`
        compile(source, "<forward>", "eval")
        body = "return (" + source + ")"
    except SyntaxError:
        body = source
    padding = "\n" * max(row["forward_line"] - 2, 0)  # tracebacks cite the roster's lines (def just above)
    params = ", ".join(spec["name"] for spec in row["inputs"])
    exec(compile(padding + f"def forward({params}):\n" + textwrap.indent(body, "    ") + "\n", row["forward_file"], "exec"), scope)
    return scope["forward"], inputs

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

def _toy_replay(ops):
    # Each compute op re-run from its parents' saved values, then once per parent perturbed.
    def leaf(op, values=None):
        return Tensor(op["values"] if values is None else values, op["shape"], op["dtype"])
    replays = {}
    for i, op in enumerate(ops):
        if op["kind"] != "compute":
            continue
        parents = [leaf(ops[p]) for p in op["parents"]]
        perturbed = []
        for position, p in enumerate(op["parents"]):
            moved = list(parents)
            moved[position] = leaf(ops[p], [v + abs(v) + 1.0 for v in ops[p]["values"]])
            perturbed.append(toygrad.apply(op["op"], *moved).data)
        replays[i] = {"plain": toygrad.apply(op["op"], *parents).data, "perturbed": perturbed}
    return replays

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

void decide(ValidationStatus& status, const Op& op, ValidationPhase phase, DecisionVerdict verdict, const std::string& reason) {
  status.decisions.push_back({.op = op.index, .label = op.label, .phase = phase, .verdict = verdict, .reason = reason});
  if (verdict == DecisionVerdict::Fail && status.message.empty())
    status.message = "op " + op.label + " (index " + std::to_string(op.index) + ") failed " + to_string(phase) + ": " + reason;
}

// What a live toy trace keeps: the captured graph's shape (framework op and parents of each op), to
// check the trace against; the values themselves are the trace's own payloads.
class ToyLiveGraph : public LiveGraph {
 public:
  explicit ToyLiveGraph(const Trace& captured) {
    for (const Op& op : captured.ops) nodes_.push_back({op.framework_op, op.parents});
  }

  ValidationStatus validate(const Trace& trace, const std::vector<Payload>& outputs) const override {
    ValidationStatus status;
    // Structure: the trace's ops are still the captured graph's, op for op.
    if (trace.ops.size() != nodes_.size()) {
      decide(status, Op{.label = "(graph)"}, ValidationPhase::Structure, DecisionVerdict::Fail,
             "the trace has " + std::to_string(trace.ops.size()) + " ops, the capture " + std::to_string(nodes_.size()));
    }
    for (std::size_t i = 0; i < trace.ops.size() && status.message.empty(); ++i) {
      const Op& op = trace.ops[i];
      if (op.index != i || nodes_[i].first != op.framework_op || nodes_[i].second != op.parents)
        decide(status, op, ValidationPhase::Structure, DecisionVerdict::Fail, "is not the captured op or has other parents");
    }
    for (std::size_t i = 0; i < trace.outputs.size() && status.message.empty(); ++i) {
      const Op& op = trace.ops[trace.outputs[i]];
      const Comparison comparison =
          i < outputs.size() ? compare(outputs[i], *op.out) : Comparison{false, "no ground-truth output given"};
      decide(status, op, ValidationPhase::GroundTruth, comparison.equal ? DecisionVerdict::Pass : DecisionVerdict::Fail,
             comparison.equal ? "equals the given output" : comparison.message);
    }
    if (status.message.empty()) {
      with_python_errors([&] {
        const py::dict replays = glue()["_toy_replay"](ops_for_python(trace));
        for (const Op& op : trace.ops) {
          if (op.kind != OpKind::Compute) continue;
          const py::dict replay = replays[py::int_(op.index)];
          const Payload plain = payload(op.dtype.name, op.shape, replay["plain"].cast<std::vector<double>>());
          const Comparison comparison = compare(*op.out, plain);
          decide(status, op, ValidationPhase::Replay, comparison.equal ? DecisionVerdict::Pass : DecisionVerdict::Fail,
                 comparison.equal ? "replayed from its parents' payloads" : "replay differs: " + comparison.message);
          ++status.replayed;
          const auto perturbed = replay["perturbed"].cast<std::vector<std::vector<double>>>();
          for (std::size_t position = 0; position < perturbed.size(); ++position) {
            const bool moved = compare(plain, payload(op.dtype.name, op.shape, perturbed[position])).equal == false;
            decide(status, op, ValidationPhase::Perturbation, moved ? DecisionVerdict::Pass : DecisionVerdict::Fail,
                   "perturbing parent " + std::to_string(position) +
                       (moved ? " changes the output" : " leaves the output as it was"));
          }
        }
      });
    }
    status.state = !status.message.empty() ? ValidationState::Failed
                   : status.replayed == 0  ? ValidationState::Unverified
                                           : ValidationState::Passed;
    if (status.state == ValidationState::Unverified) status.message = "no op was replayed";
    return status;
  }

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

  // toygrad is eager: an op realized alone is its replay from its parents' payloads.
  // toygrad computes every op from its parents' values: all are chained.
  std::vector<std::size_t> chained_ops(const Trace& trace) const override {
    std::vector<std::size_t> ops;
    for (const Op& op : trace.ops) {
      if (op.kind == OpKind::Compute) ops.push_back(op.index);
    }
    return ops;
  }

  std::vector<Payload> alone_values(const Trace& trace, const std::vector<std::size_t>& ops) const override {
    std::vector<Payload> result;
    with_python_errors([&] {
      const py::dict replays = glue()["_toy_replay"](ops_for_python(trace));
      for (std::size_t index : ops) {
        const Op& op = trace.ops[index];
        result.push_back(replays.contains(py::int_(index))
                             ? payload(op.dtype.name, op.shape, replays[py::int_(index)]["plain"].cast<std::vector<double>>())
                             : *op.out);
      }
    });
    return result;
  }

 private:
  std::vector<std::pair<std::string, std::vector<ParentRef>>> nodes_;
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
    const py::tuple built = fixture.glue["_toy_build"](spec);
    fixture.forward = built[0];
    fixture.inputs = built[1];
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

class ToyProtocol : public BackendProtocol {
 public:
  std::string name() const override { return kName; }

  Trace trace_row(const RosterRow& row) override {
    const Fixture fixture = build_row(row);
    return trace_as(kName, fixture.forward, fixture.inputs, row.options);
  }

  RowCapture capture_row(const RosterRow& row) override {
    const Fixture fixture = build_row(row);
    // Probes outside the trace's own account: calls of the forward, and toygrad's op counter.
    py::object calls;
    py::object counted;
    long long ops_before = 0;
    with_python_errors([&] {
      calls = py::list();
      py::dict scope;
      scope["calls"] = calls;
      scope["forward"] = fixture.forward;
      py::exec("def counted(*args):\n    calls.append(1)\n    return forward(*args)\n", scope);
      counted = scope["counted"];
      ops_before = fixture.glue["toygrad"].attr("ops_executed").cast<long long>();
    });
    RowCapture result;
    result.trace = trace_as(kName, counted, fixture.inputs, row.options);
    with_python_errors([&] {
      result.observed_evaluations = static_cast<int>(py::len(calls));
      result.observed_kernels = fixture.glue["toygrad"].attr("ops_executed").cast<long long>() - ops_before;
      result.outputs_after = outputs_of(fixture.glue, fixture.forward(*fixture.inputs));
    });
    result.rng_state = "toygrad has no RNG";
    return result;
  }

  EagerRun eager_row(const RosterRow& row) override {
    const Fixture fixture = build_row(row);
    EagerRun result;
    with_python_errors([&] {
      result.outputs = outputs_of(fixture.glue, fixture.forward(*fixture.inputs));
      result.second_outputs = outputs_of(fixture.glue, fixture.forward(*fixture.inputs));
    });
    result.rng_state = "toygrad has no RNG";
    result.input_grads_error = "the toy backend asks no autograd of its own: finite differences check its inputs";
    return result;
  }

  RefusalAttempt refuse_row(const RosterRow& row) override {
    const Fixture fixture = build_row(row);
    // Requests on an audit-only trace capture and reload first; the probes cover the request.
    std::optional<Trace> loaded;
    if (row.request != "trace") {
      const auto directory =
          std::filesystem::temp_directory_path() / ("tl-" + row.id + "-" + std::to_string(::getpid()) + ".tlspec");
      trace_as(kName, fixture.forward, fixture.inputs, row.options).save(directory.string());
      loaded = Trace::load(directory.string());
      std::filesystem::remove_all(directory);
    }
    RefusalAttempt attempt;
    py::object before;
    with_python_errors([&] { before = fixture.glue["_toy_snapshot"](fixture.inputs); });
    try {
      if (row.request == "validate_loaded") {
        std::vector<Payload> outputs;
        for (const Op* op : loaded->output_ops()) outputs.push_back(*op->out);
        attempt.message = std::string("the audit-only trace was validated: ") + to_string(loaded->validate(outputs).state);
      } else if (row.request == "derive_grads_loaded") {
        GradOptions grads;
        grads.intermediate_grads = true;
        loaded->derive_grads(grads);
        attempt.message = "gradients were derived on the audit-only trace";
      } else {
        attempt.message = "not refused: captured " +
                          std::to_string(trace_as(kName, fixture.forward, fixture.inputs, row.options).size()) + " ops";
      }
    } catch (const BackendUnsupportedError& error) {
      attempt.refused = true;
      attempt.code = std::string(error.code_name());
      attempt.message = error.what();
    } catch (const PythonError& error) {
      attempt.message = std::string("raised ") + error.what() + " instead of a refusal\n" + error.traceback();
    }
    with_python_errors([&] {
      const py::dict changed = fixture.glue["_toy_changes"](before, fixture.glue["_toy_snapshot"](fixture.inputs));
      for (py::handle probe : fixture.glue["_TOY_PROBES"]) attempt.probes.push_back(probe.cast<std::string>());
      for (auto [probe, what] : changed) attempt.changed.emplace_back(probe.cast<std::string>(), what.cast<std::string>());
    });
    return attempt;
  }

 protected:
  Trace capture(const py::object& fn, const py::tuple& args, const TraceOptions& options) override {
    return toy::capture(fn, args, options);
  }
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
    .make_protocol = [] { return std::unique_ptr<BackendProtocol>(new ToyProtocol()); },
});

}  // namespace
}  // namespace tl::toy
