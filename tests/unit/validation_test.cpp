// Replay validation can pass and can fail: corrupted payloads, rewired parents, dropped ops, a wrong
// ground truth and a perturbed rebuild that is not the op's own evaluation each fail, naming the op;
// an unchanged perturbation is unverified with its reason, never silently passed.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "backends/tinygrad/protocol.h"
#include "harness/backend/backend_registry.h"
#include "harness/judge/protocol.h"
#include "harness/judge/replay_validation.h"
#include "harness/model/live_graph.h"
#include "harness/model/refusal.h"
#include "python_scope.h"
#include "trace_ops.h"
#include "tutorial.h"

namespace tl {
namespace {

namespace py = pybind11;
using testing::first_op_named;
using testing::python_scope;

constexpr const char* kTutorial = testing::kTutorialSetup;

Trace tutorial_trace() {
  py::dict scope = python_scope(kTutorial);
  return tl::tinygrad::trace(scope["mlp"], py::make_tuple(scope["x"]));
}

std::vector<Payload> own_outputs(const Trace& trace) {
  std::vector<Payload> outputs;
  for (const Op* op : trace.output_ops()) outputs.push_back(*op->out);
  return outputs;
}

// Phases, verdicts and states are closed enums whose names are what `validate` prints and saves.
TEST(Validation, EnumNamesRoundTripThroughOneTable) {
  for (ValidationPhase phase :
       {ValidationPhase::Structure, ValidationPhase::GroundTruth, ValidationPhase::Replay, ValidationPhase::Perturbation}) {
    EXPECT_EQ(validation_phase_from_string(to_string(phase)), phase) << to_string(phase);
  }
  for (DecisionVerdict verdict : {DecisionVerdict::Pass, DecisionVerdict::Fail, DecisionVerdict::Unverified}) {
    EXPECT_EQ(decision_verdict_from_string(to_string(verdict)), verdict) << to_string(verdict);
  }
  for (ValidationState state :
       {ValidationState::Passed, ValidationState::Failed, ValidationState::Unverified, ValidationState::Unavailable}) {
    EXPECT_EQ(validation_state_from_string(to_string(state)), state) << to_string(state);
  }
  EXPECT_STREQ(to_string(ValidationPhase::GroundTruth), "ground_truth");
  EXPECT_EQ(validation_phase_from_string("replay "), std::nullopt);
  EXPECT_EQ(decision_verdict_from_string("passed"), std::nullopt);
  ValidationStatus status;
  status.decisions.push_back(
      {.op = 3, .label = "add:0", .phase = ValidationPhase::Perturbation, .verdict = DecisionVerdict::Unverified, .reason = "r"});
  const nlohmann::json decision = status.to_json()["decisions"][0];
  EXPECT_EQ(decision["phase"], "perturbation");
  EXPECT_EQ(decision["decision"], "unverified");
}

TEST(Validation, TheSpecTutorialPassesThroughBothDoors) {
  py::dict scope = python_scope(kTutorial);
  const Trace trace = tl::tinygrad::trace(scope["mlp"], py::make_tuple(scope["x"]));
  // Ground truth from a fresh eager forward, as the tutorial passes [mlp(x)].
  const py::object eager = py::eval("mlp(x)", scope);
  Payload truth = *trace.output_ops()[0]->out;
  const py::list values = eager.attr("flatten")().attr("tolist")();
  std::vector<double> numbers;
  for (py::handle v : values) numbers.push_back(v.cast<double>());
  truth = Payload::from_doubles(truth.dtype, truth.shape, numbers);
  EXPECT_TRUE(validate_forward_pass(trace, {truth}));
  const auto protocol = protocol_of(backends::spec("tinygrad"));
  const ValidationStatus status = protocol->validate(trace, {truth});
  EXPECT_EQ(status.state, ValidationState::Passed) << status.message;
  EXPECT_GT(status.replayed, 10u);
  bool saw_perturbation = false;
  for (const Decision& decision : status.decisions)
    saw_perturbation |= decision.phase == ValidationPhase::Perturbation && decision.verdict == DecisionVerdict::Pass;
  EXPECT_TRUE(saw_perturbation);
}

TEST(Validation, CorruptedPayloadFailsNamingTheOp) {
  Trace trace = tutorial_trace();
  const std::size_t reduce = first_op_named(trace, "REDUCE");
  trace.ops[reduce].out->bytes[0] ^= 0x40;
  const ValidationStatus status = validate(trace, own_outputs(trace));
  EXPECT_EQ(status.state, ValidationState::Failed);
  // The corrupted op's own replay fails first (its consumers may fail too, later in order).
  EXPECT_NE(status.message.find(trace.ops[reduce].label), std::string::npos) << status.message;
  EXPECT_FALSE(validate_forward_pass(trace, own_outputs(trace)));
}

TEST(Validation, RewiredParentFails) {
  Trace trace = tutorial_trace();
  const std::size_t mul = first_op_named(trace, "MUL");
  Op& op = trace.ops[mul];
  ASSERT_EQ(op.parents.size(), 2u);
  op.parents[0].op = op.parents[1].op;  // both operands now read the weight's expand: same shape, wrong source
  const ValidationStatus status = validate(trace, own_outputs(trace));
  EXPECT_EQ(status.state, ValidationState::Failed);
  EXPECT_NE(status.message.find(op.label), std::string::npos) << status.message;
}

TEST(Validation, DroppedOpFails) {
  Trace trace = tutorial_trace();
  const std::vector<Payload> outputs = own_outputs(trace);
  trace.ops.erase(trace.ops.begin() + 3);
  const ValidationStatus status = validate(trace, outputs);
  EXPECT_EQ(status.state, ValidationState::Failed);
  EXPECT_NE(status.message.find("index 3"), std::string::npos) << status.message;
  EXPECT_NE(status.message.find("missing"), std::string::npos) << status.message;
}

TEST(Validation, WrongGroundTruthFailsNamingTheOutput) {
  const Trace trace = tutorial_trace();
  std::vector<Payload> wrong = own_outputs(trace);
  wrong[0] = Payload::from_doubles(wrong[0].dtype, wrong[0].shape, std::vector<double>(6, 0.5));
  const ValidationStatus status = validate(trace, wrong);
  EXPECT_EQ(status.state, ValidationState::Failed);
  EXPECT_NE(status.message.find("relu.where:0"), std::string::npos) << status.message;
  EXPECT_NE(status.message.find("ground_truth"), std::string::npos) << status.message;
}

// Locally flat functions (saturated tanh and sigmoid at -300) are correct traces: perturbation
// replaces each parent over a wide range, so the edges are verified and the trace passes.
TEST(Validation, FlatFunctionsAtThreeHundredPass) {
  py::dict scope = python_scope("from tinygrad import Tensor\nx = Tensor([-300.0, -299.0, -298.0, -297.0])\n");
  for (const char* forward : {"lambda x: x.tanh()", "lambda x: x.sigmoid()", "lambda x: x.gelu()", "lambda x: x.erf()"}) {
    const Trace trace = tl::tinygrad::trace(py::eval(forward, scope), py::make_tuple(scope["x"]));
    const ValidationStatus status = validate(trace, own_outputs(trace));
    EXPECT_EQ(status.state, ValidationState::Passed) << forward << ": " << status.message;
    EXPECT_TRUE(validate_forward_pass(trace, own_outputs(trace))) << forward;
  }
}

// Comparisons and casts change under a wide replacement: the comparison's edge from x and the
// cast's are verified; an edge no try can move (y stays below every x) is unverified, saying why,
// and the trace passes.
TEST(Validation, ComparisonsAndCastsAreVerified) {
  py::dict scope = python_scope("from tinygrad import Tensor\nx = Tensor([100.0, 200.0])\ny = Tensor([1.0, 2.0])\n");
  const Trace trace =
      tl::tinygrad::trace(py::eval("lambda x, y: (x < y).where(x, y).half()", scope), py::make_tuple(scope["x"], scope["y"]));
  const ValidationStatus status = validate(trace, own_outputs(trace));
  EXPECT_EQ(status.state, ValidationState::Passed) << status.message;
  std::set<std::string> verified;
  for (const Decision& d : status.decisions) {
    if (d.phase != ValidationPhase::Perturbation) continue;
    EXPECT_NE(d.verdict, DecisionVerdict::Fail) << d.label << ": " << d.reason;
    if (d.verdict == DecisionVerdict::Pass) verified.insert(d.label.substr(0, d.label.find('.')));
    if (d.verdict == DecisionVerdict::Unverified) {
      EXPECT_NE(d.reason.find("never changed the output: "), std::string::npos);
    }
  }
  EXPECT_EQ(verified, (std::set<std::string>{"half", "lt", "where"}));
}

// A small bias added to huge activations cannot move the sum: that edge is unverified with its
// reason, never failed, and the trace passes. The same add at ordinary magnitudes with a rewired
// parent fails.
TEST(Validation, AnAbsorbedAddIsUnverifiedNotFailed) {
  py::dict scope = python_scope("from tinygrad import Tensor\nx = Tensor([3e9, -4e9])\nb = Tensor([0.25, 0.5])\n");
  Trace trace = tl::tinygrad::trace(py::eval("lambda x, b: x * 2 + b", scope), py::make_tuple(scope["x"], scope["b"]));
  ValidationStatus status = validate(trace, own_outputs(trace));
  bool absorbed = false;
  for (const Decision& d : status.decisions)
    absorbed |= d.verdict == DecisionVerdict::Unverified && d.reason.find("never changed the output") != std::string::npos;
  EXPECT_TRUE(absorbed);
  EXPECT_EQ(status.state, ValidationState::Passed) << status.message;

  py::dict small =
      python_scope("from tinygrad import Tensor\nx = Tensor([3.0, -4.0])\nb = Tensor([0.25, 0.5])\nc = Tensor([7.0, 8.0])\n");
  trace =
      tl::tinygrad::trace(py::eval("lambda x, b, c: x * 2 + b + c", small), py::make_tuple(small["x"], small["b"], small["c"]));
  status = validate(trace, own_outputs(trace));
  for (const Decision& d : status.decisions) EXPECT_NE(d.verdict, DecisionVerdict::Unverified) << d.label << ": " << d.reason;
  const std::size_t add = first_op_named(trace, "ADD");
  Op& op = trace.ops[add];
  op.parents[1].op = op.parents[0].op;  // the add now reads one operand twice: the replay must notice
  EXPECT_EQ(validate(trace, own_outputs(trace)).state, ValidationState::Failed);
}

// The real tinygrad engine with a planted rebuild bug: a perturbed local job reads the parent's
// saved payload instead of the tried one, so every perturbation looks unchanged.
class ReplacementIgnored : public LiveGraph {
 public:
  explicit ReplacementIgnored(std::shared_ptr<LiveGraph> real) : real_(std::move(real)) {}
  std::vector<CapturedNode> captured_graph(const Trace& t) const override { return real_->captured_graph(t); }
  ReplayRun replay(const Trace& t, const std::vector<ReplayJob>& jobs) const override {
    std::vector<ReplayJob> planted = jobs;
    for (ReplayJob& job : planted) {
      if (job.kind == ReplayKind::Local) job.replacement.reset();
    }
    return real_->replay(t, planted);
  }
  std::optional<std::string> unchanged_reason(const Trace& t, const Op& op, const Op& parent) const override {
    return real_->unchanged_reason(t, op, parent);
  }
  void derive_grads(Trace& t, const GradOptions& o) const override { real_->derive_grads(t, o); }
  std::vector<double> losses(const Trace& t, const GradOptions& o,
                             const std::vector<std::map<std::size_t, Payload>>& r) const override {
    return real_->losses(t, o, r);
  }
  std::vector<std::optional<Payload>> leaf_gradients(const Trace& t, const GradOptions& o,
                                                     const std::vector<std::size_t>& ops) const override {
    return real_->leaf_gradients(t, o, ops);
  }
  std::vector<std::optional<Payload>> edge_gradients(const Trace& t, const GradOptions& o,
                                                     const std::vector<std::size_t>& ops) const override {
    return real_->edge_gradients(t, o, ops);
  }
  std::vector<Payload> alone_values(const Trace& t, const std::vector<std::size_t>& ops) const override {
    return real_->alone_values(t, ops);
  }
  std::vector<JudgedOp> judged_ops(const Trace& t) const override { return real_->judged_ops(t); }

 private:
  std::shared_ptr<LiveGraph> real_;
};

// Perturbation can fail: a perturbed rebuild that is not tinygrad's own evaluation of the op over
// the same payloads (here, one that ignores the tried payload) fails, naming the op and the parent;
// before, every such edge was merely unverified and the trace passed.
TEST(Validation, APerturbedRebuildThatIgnoresTheTriedPayloadFails) {
  py::dict scope = python_scope("from tinygrad import Tensor\nx = Tensor([3.0, -4.0])\ny = Tensor([0.25, 0.5])\n");
  Trace trace = tl::tinygrad::trace(py::eval("lambda x, y: (x * y).exp() + x", scope), py::make_tuple(scope["x"], scope["y"]));
  ASSERT_EQ(validate(trace, own_outputs(trace)).state, ValidationState::Passed);
  trace.live = std::make_shared<ReplacementIgnored>(trace.live);
  const ValidationStatus status = validate(trace, own_outputs(trace));
  EXPECT_EQ(status.state, ValidationState::Failed);
  EXPECT_NE(status.message.find("failed perturbation: with "), std::string::npos) << status.message;
  EXPECT_NE(status.message.find("is not the framework's own evaluation of the op"), std::string::npos) << status.message;
}

// Two parents swapped in a saved trace (same shapes, so only the wiring is wrong) fail.
TEST(Validation, SwappedParentsFail) {
  py::dict scope = python_scope("from tinygrad import Tensor\nx = Tensor([3.0, -4.0])\ny = Tensor([0.25, 0.5])\n");
  Trace trace = tl::tinygrad::trace(py::eval("lambda x, y: x - y", scope), py::make_tuple(scope["x"], scope["y"]));
  ASSERT_EQ(validate(trace, own_outputs(trace)).state, ValidationState::Passed);
  for (Op& op : trace.ops) {
    if (op.parents.size() != 2) continue;
    std::swap(op.parents[0].op, op.parents[1].op);
    const ValidationStatus status = validate(trace, own_outputs(trace));
    EXPECT_EQ(status.state, ValidationState::Failed) << op.label;
    EXPECT_NE(status.message.find(op.label), std::string::npos) << status.message;
    std::swap(op.parents[0].op, op.parents[1].op);
  }
}

// Replay reproduces the capture's kernels, so a reduction is judged bit for bit: a 64x64 matmul
// (64-term sums) and a 1,000-term sum pass, and one ulp off in one element fails either.
TEST(Validation, RealSizedReductionsReplayExactlyAndOneUlpFails) {
  py::dict scope = python_scope(R"PY(
import numpy as np
from tinygrad import Tensor
rng = np.random.default_rng(0)
x = Tensor(rng.uniform(-2, 2, (64, 64)).astype(np.float32))
y = Tensor(rng.uniform(-2, 2, (64, 64)).astype(np.float32))
v = Tensor(rng.uniform(-2, 2, (1000,)).astype(np.float32))
)PY");
  const std::vector<std::pair<const char*, py::tuple>> forwards = {
      {"lambda x, y: x @ y", py::make_tuple(scope["x"], scope["y"])},
      {"lambda v: v.sum()", py::make_tuple(scope["v"])},
  };
  for (const auto& [forward, inputs] : forwards) {
    Trace trace = tl::tinygrad::trace(py::eval(forward, scope), inputs);
    ASSERT_EQ(validate(trace, own_outputs(trace)).state, ValidationState::Passed) << forward;
    const std::vector<Payload> truth = own_outputs(trace);
    const std::size_t reduce = first_op_named(trace, "REDUCE");
    trace.ops[reduce].out->bytes[0] ^= 0x01;  // the lowest mantissa bit of element 0: one ulp
    const ValidationStatus status = validate(trace, truth);
    EXPECT_EQ(status.state, ValidationState::Failed) << forward;
    EXPECT_NE(status.message.find(trace.ops[reduce].label), std::string::npos) << status.message;
  }
}

// An output's payload is eager's. Where eager's kernel sums in the order the op's parents were
// computed in, the op replays over its parents' payloads; where it does not, it replays as eager
// computed it, with every other such op, as eager's schedule split them: a 1,024-term sum of a repeat,
// which eager reads through the repeat (the output is a reshape of the sum, which eager realized), and
// three softmaxes whose reductions eager's schedule shares. One ulp off still fails.
TEST(Validation, AnOutputSummedInAnotherOrderReplaysAsEagerComputedIt) {
  py::dict scope = python_scope(R"PY(
import numpy as np
from tinygrad import Tensor
x = Tensor(np.random.default_rng(0).uniform(-2, 2, (8, 16)).astype(np.float32))
l = Tensor(np.random.default_rng(1).uniform(-2, 2, (1000,)).astype(np.float32))
)PY");
  for (const char* forward :
       {"lambda x, l: x.reshape(-1).repeat(8).sum()", "lambda x, l: (x.softmax(-1), x.log_softmax(-1), l.softmax(0))"}) {
    Trace trace = tl::tinygrad::trace(py::eval(forward, scope), py::make_tuple(scope["x"], scope["l"]));
    const std::vector<Payload> truth = own_outputs(trace);
    const ValidationStatus status = validate(trace, truth);
    ASSERT_EQ(status.state, ValidationState::Passed) << forward << ": " << status.message;
    std::optional<std::size_t> as_eager;
    for (const Decision& d : status.decisions) {
      if (d.phase == ValidationPhase::Replay && d.reason.find("as eager computed it") != std::string::npos) as_eager = d.op;
    }
    ASSERT_TRUE(as_eager) << forward;
    trace.ops[*as_eager].out->bytes[0] ^= 0x01;
    const ValidationStatus wrong = validate(trace, truth);
    EXPECT_EQ(wrong.state, ValidationState::Failed) << forward;
    EXPECT_NE(wrong.message.find(trace.ops[*as_eager].label), std::string::npos) << wrong.message;
  }
}

// A broadcast is replayed on the host (numpy's broadcast_to of its parent's payload): a 64x64x64
// expand of a matmul passes so, and one element changed deep inside it fails, naming it.
TEST(Validation, ABroadcastReplaysOnTheHostAndAChangedElementFails) {
  py::dict scope = python_scope(R"PY(
import numpy as np
from tinygrad import Tensor
rng = np.random.default_rng(0)
x = Tensor(rng.uniform(-2, 2, (64, 64)).astype(np.float32))
y = Tensor(rng.uniform(-2, 2, (64, 64)).astype(np.float32))
)PY");
  Trace trace = tl::tinygrad::trace(py::eval("lambda x, y: x @ y", scope), py::make_tuple(scope["x"], scope["y"]));
  const std::size_t expand = first_op_named(trace, "EXPAND");
  const ValidationStatus status = validate(trace, own_outputs(trace));
  ASSERT_EQ(status.state, ValidationState::Passed) << status.message;
  bool on_host = false;
  for (const Decision& d : status.decisions)
    on_host |= d.op == expand && d.phase == ValidationPhase::Replay && d.reason.find("numpy") != std::string::npos;
  EXPECT_TRUE(on_host);
  Payload& payload = *trace.ops[expand].out;
  payload.bytes[payload.bytes.size() / 2 + 5] ^= 0x01;  // one element, past the first 1,024 any check samples
  const ValidationStatus changed = validate(trace, own_outputs(trace));
  EXPECT_EQ(changed.state, ValidationState::Failed);
  EXPECT_NE(changed.message.find(trace.ops[expand].label), std::string::npos) << changed.message;
}

// 64-bit integers replay as integers of their width: near 2^63 (where a double steps by 1,024) an
// intermediate one off in its last bit fails its replay, for int64 and uint64 alike.
TEST(Validation, ASixtyFourBitIntegerOneLowBitOffFailsItsReplay) {
  py::dict scope = python_scope(R"PY(
from tinygrad import Tensor, dtypes
signed = Tensor([2**62 + 7, -(2**63) + 9, 5], dtype=dtypes.int64)
unsigned = Tensor([2**63 + 7, 2**64 - 9, 5], dtype=dtypes.uint64)
)PY");
  for (const char* input : {"signed", "unsigned"}) {
    Trace trace = tl::tinygrad::trace(py::eval("lambda x: (x + 3) * 1 + 2", scope), py::make_tuple(scope[input]));
    ASSERT_EQ(validate(trace, own_outputs(trace)).state, ValidationState::Passed) << input;
    Op& intermediate = trace.ops[first_op_named(trace, "ADD")];  // x + 3
    Payload& payload = *intermediate.out;
    const double widened = payload.element(0);
    payload.bytes[0] ^= 0x01;  // element 0's last bit
    ASSERT_EQ(payload.element(0), widened) << input << ": widened to double, the change is invisible";
    const ValidationStatus status = validate(trace, own_outputs(trace));
    EXPECT_EQ(status.state, ValidationState::Failed) << input;
    EXPECT_NE(status.message.find("op " + intermediate.label), std::string::npos) << status.message;
    EXPECT_NE(status.message.find("failed replay"), std::string::npos) << status.message;
  }
}

// A sum over an empty slice is a zero whatever the slice would hold: perturbing the empty parent
// cannot change anything, so that edge is unverified (saying why) and the trace still passes.
TEST(Validation, AnEmptyParentIsUnverifiedWithItsReason) {
  py::dict scope = python_scope("from tinygrad import Tensor\nx = Tensor([[1.0, 2.0], [3.0, 4.0]])\n");
  const Trace trace =
      tl::tinygrad::trace(py::eval("lambda x: x + x[:, 0:0].sum(axis=1, keepdim=True)", scope), py::make_tuple(scope["x"]));
  const ValidationStatus status = validate(trace, own_outputs(trace));
  EXPECT_EQ(status.state, ValidationState::Passed) << status.message;
  bool empty_unverified = false;
  for (const Decision& d : status.decisions) {
    EXPECT_NE(d.verdict, DecisionVerdict::Fail) << d.reason;
    empty_unverified |= d.verdict == DecisionVerdict::Unverified && d.reason.find("empty") != std::string::npos;
  }
  EXPECT_TRUE(empty_unverified);
}

// A forward that computes nothing (`x.flip(())`, a cumulative sum over an empty axis, `x` itself)
// has nothing to replay: its ground truth checks the whole trace, so it passes on its own outputs
// and fails on any other.
TEST(Validation, AForwardThatComputesNothingIsCheckedByItsGroundTruth) {
  py::dict scope = python_scope(
      "import numpy as np\nfrom tinygrad import Tensor\nx = Tensor([1.0, 2.0, 3.0])\nz = Tensor(np.zeros((0,), np.float32))\n");
  for (const auto& [forward, input] :
       {std::pair{"lambda x: x.flip(())", "x"}, {"lambda x: x.cumsum(0)", "z"}, {"lambda x: x", "x"}}) {
    const Trace trace = tl::tinygrad::trace(py::eval(forward, scope), py::make_tuple(scope[input]));
    const ValidationStatus status = validate(trace, own_outputs(trace));
    EXPECT_EQ(status.replayed, 0u) << forward;
    EXPECT_EQ(status.state, ValidationState::Passed) << forward << ": " << status.message;
    EXPECT_TRUE(validate_forward_pass(trace, own_outputs(trace))) << forward;
  }
  const Trace trace = tl::tinygrad::trace(py::eval("lambda x: x.flip(())", scope), py::make_tuple(scope["x"]));
  std::vector<Payload> wrong = own_outputs(trace);
  wrong[0].bytes[0] ^= 0x01;
  const ValidationStatus status = validate(trace, wrong);
  EXPECT_EQ(status.state, ValidationState::Failed);
  EXPECT_NE(status.message.find("ground_truth"), std::string::npos) << status.message;
}

TEST(Validation, AuditOnlyTraceRefusesBeforeDoingAnything) {
  Trace trace = tutorial_trace();
  const std::string directory = ::testing::TempDir() + "/audit.tlspec";
  trace.save(directory);
  Trace loaded = Trace::load(directory);
  EXPECT_FALSE(loaded.has_live_payloads());
  try {
    validate(loaded, own_outputs(loaded));
    FAIL() << "validated an audit-only trace";
  } catch (const BackendUnsupportedError& error) {
    EXPECT_EQ(error.code_name(), "live_payloads_required");
  }
  GradOptions options;
  options.intermediate_grads = true;
  try {
    loaded.derive_grads(options);
    FAIL() << "derived grads on an audit-only trace";
  } catch (const BackendUnsupportedError& error) {
    EXPECT_EQ(error.code_name(), "live_payloads_required");
  }
  for (const Op& op : loaded.ops) EXPECT_FALSE(op.grad.has_value());
}

}  // namespace
}  // namespace tl
