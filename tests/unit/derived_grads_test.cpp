// Derived intermediate gradients: they match central finite differences, honour a given loss, and
// leave every user tensor's .grad as it was.
#include <gtest/gtest.h>
#include <pybind11/stl.h>

#include <limits>
#include <string>

#include "backends/tinygrad/protocol.h"
#include "harness/backend/backend_registry.h"
#include "harness/cells/checks.h"
#include "harness/cells/finite_differences.h"
#include "python_scope.h"
#include "trace_ops.h"

namespace tl {
namespace {

namespace py = pybind11;
using testing::first_op_named;
using testing::python_scope;

constexpr const char* kModel = R"PY(
from tinygrad import Tensor
w = Tensor([[0.5, -1.0, 0.25], [2.0, 0.25, -0.5]])
b = Tensor([0.1, -0.2, 0.3])
def f(x):
    h = (x.matmul(w) + b).tanh()
    return (h * h).sum(axis=1), h.exp().mean()
x = Tensor([[1.0, -0.5], [0.25, 2.0]])
)PY";

// kModel traced, with every float op's gradient of `loss` (the default loss when empty) derived.
struct DerivedModel {
  Trace trace;
  GradOptions options;
};

DerivedModel derived_model(const std::string& loss = "") {
  py::dict scope = python_scope(kModel);
  DerivedModel model{tl::tinygrad::trace(scope["f"], py::make_tuple(scope["x"])), {}};
  model.options.intermediate_grads = true;
  if (!loss.empty()) model.options.loss = loss;
  model.trace.derive_grads(model.options);
  return model;
}

TEST(DerivedGrads, MatchFiniteDifferencesForEveryKindOfOp) {
  auto [trace, options] = derived_model();
  for (const Op& op : trace.ops) EXPECT_EQ(op.grad.has_value(), op.dtype.is_float()) << op.label;
  const GradientCheck check = check_grads_against_finite_differences(trace, options);
  EXPECT_TRUE(check.passed) << check.detail;
  EXPECT_GE(check.compared, 6u);
  // d(sum of outputs)/d(output) is one everywhere.
  for (const Op* output : trace.output_ops()) {
    for (double g : output->grad->to_doubles()) EXPECT_FLOAT_EQ(g, 1.0) << output->label;
  }
}

// An output holding inf makes every difference of the default loss inf or nan: finite differences
// say so and compare nothing (nor claim to), whether or not autograd already checked the inputs; a
// given loss that leaves the inf out is still compared.
TEST(DerivedGrads, AnInfiniteOutputLeavesNoFiniteDifferenceToCompare) {
  py::dict scope = python_scope("from tinygrad import Tensor\nx = Tensor([1.0, 0.0, -2.0])\n");
  Trace trace = tl::tinygrad::trace(py::eval("lambda x: ((x * 2).exp(), 1 / x)", scope), py::make_tuple(scope["x"]));
  GradOptions options;
  options.intermediate_grads = true;
  trace.derive_grads(options);
  for (bool intermediates_only : {false, true}) {
    const GradientCheck check = check_grads_against_finite_differences(trace, options, intermediates_only);
    EXPECT_EQ(check.passed, intermediates_only) << check.detail;
    EXPECT_EQ(check.compared, 0u);
    EXPECT_NE(check.detail.find("an output holds inf or nan"), std::string::npos) << check.detail;
  }
  options.loss = "outputs[0].sum()";
  trace.derive_grads(options);
  const GradientCheck check = check_grads_against_finite_differences(trace, options);
  EXPECT_TRUE(check.passed) << check.detail;
  EXPECT_GT(check.compared, 0u);
}

TEST(DerivedGrads, AGivenLossIsUsed) {
  auto [trace, options] = derived_model("outputs[0].sum() * 3");
  for (double g : trace.output_ops()[0]->grad->to_doubles()) EXPECT_FLOAT_EQ(g, 3.0);
  for (double g : trace.output_ops()[1]->grad->to_doubles()) EXPECT_FLOAT_EQ(g, 0.0);
  EXPECT_TRUE(check_grads_against_finite_differences(trace, options).passed);
}

TEST(DerivedGrads, AWrongGradientIsCaught) {
  auto [trace, options] = derived_model();
  Op& input = trace.ops[trace.inputs[0]];
  input.grad = Payload::from_doubles(input.grad->dtype, input.grad->shape, std::vector<double>(input.grad->numel(), 7.0));
  const GradientCheck check = check_grads_against_finite_differences(trace, options);
  EXPECT_FALSE(check.passed);
  EXPECT_NE(check.detail.find(input.label), std::string::npos) << check.detail;
}

// Every intermediate gradient is checked against tinygrad's autograd (issue 36, item 4), one edge at a
// time, every op: the derivation passes, and one intermediate gradient 1% off (a bug that failed no
// cell before) fails, naming the op, whether or not the leaf route's sample holds it.
TEST(DerivedGrads, AnIntermediateGradientOnePercentOffFailsAgainstTheEdgesOwnAutograd) {
  auto [trace, options] = derived_model();
  const Check passing = check_intermediate_grads(trace, options);
  EXPECT_TRUE(passing.passed) << passing.detail;
  std::size_t intermediates = 0;
  for (const Op& op : trace.ops) intermediates += (op.kind == OpKind::Compute || op.kind == OpKind::View) && op.dtype.is_float();
  EXPECT_EQ(passing.detail.find(std::to_string(intermediates) + " of " + std::to_string(intermediates) + " intermediate"), 0u)
      << passing.detail;
  Op& inner = trace.ops[first_op_named(trace, "RECIPROCAL")];  // inside tanh
  std::vector<double> scaled = inner.grad->to_doubles();
  for (double& g : scaled) g *= 1.01;
  inner.grad = Payload::from_doubles(inner.grad->dtype, inner.grad->shape, scaled);
  const Check failing = check_intermediate_grads(trace, options);
  EXPECT_FALSE(failing.passed);
  EXPECT_NE(failing.detail.find(inner.label + "'s derived gradient differs from the framework's autograd one edge at a time"),
            std::string::npos)
      << failing.detail;
}

// Only an element where both sides are inf or nan goes unjudged: one derived element nan where the
// framework's is finite (a max's gradient 0/0 where tinygrad's is one-hot, held-out corpus 3) fails.
TEST(DerivedGrads, ANanWhereTheFrameworksGradientIsFiniteFails) {
  auto [trace, options] = derived_model();
  Op& inner = trace.ops[first_op_named(trace, "RECIPROCAL")];
  std::vector<double> values = inner.grad->to_doubles();
  values[0] = std::numeric_limits<double>::quiet_NaN();
  inner.grad = Payload::from_doubles(inner.grad->dtype, inner.grad->shape, values);
  const Check failing = check_intermediate_grads(trace, options);
  EXPECT_FALSE(failing.passed) << failing.detail;
  EXPECT_NE(failing.detail.find(inner.label + "'s derived gradient differs"), std::string::npos) << failing.detail;
}

// The induction starts at the outputs: an output's gradient is the loss's own, so one 1% off fails
// there (its readers' products alone would not show it).
TEST(DerivedGrads, AnOutputsGradientOnePercentOffFailsAgainstTheLossesOwn) {
  auto [trace, options] = derived_model();
  Op& output = trace.ops[trace.outputs[0]];
  std::vector<double> scaled = output.grad->to_doubles();
  for (double& g : scaled) g *= 1.01;
  output.grad = Payload::from_doubles(output.grad->dtype, output.grad->shape, scaled);
  const Check failing = check_intermediate_grads(trace, options);
  EXPECT_FALSE(failing.passed);
  EXPECT_NE(failing.detail.find(output.label + "'s derived gradient differs"), std::string::npos) << failing.detail;
}

// Through bfloat16 (8 significant bits) a float32-sized step is lost to rounding: the check must
// difference at the precision of the narrowest dtype on the path, and still catch a wrong gradient.
constexpr const char* kBfloat16 = R"PY(
from tinygrad import Tensor, dtypes
x = Tensor([1.0, 2.0, -0.75, 0.3])
returns_float32 = lambda x: x.cast(dtypes.bfloat16).exp().cast(dtypes.float32)
returns_bfloat16 = lambda x: (x.cast(dtypes.bfloat16) * 0.5).exp() * 3
def own_gradient(f):
    fresh = Tensor(x.tolist())
    return f(fresh).sum().gradient(fresh)[0].tolist()
)PY";

Trace bfloat16_trace(const py::dict& scope, const char* forward) {
  Trace trace = tl::tinygrad::trace(scope[forward], py::make_tuple(scope["x"]));
  GradOptions options;
  options.intermediate_grads = true;
  trace.derive_grads(options);
  return trace;
}

TEST(DerivedGrads, ThroughBfloat16MatchFiniteDifferencesAtThatPrecision) {
  py::dict scope = python_scope(kBfloat16);
  for (const char* forward : {"returns_float32", "returns_bfloat16"}) {
    const Trace trace = bfloat16_trace(scope, forward);
    // The derived gradient is tinygrad's own autograd (e.g. exp(1) in bfloat16 arithmetic: 2.71875).
    const auto own = scope["own_gradient"](scope[forward]).cast<std::vector<double>>();
    EXPECT_EQ(trace.ops[trace.inputs[0]].grad->to_doubles(), own) << forward;
    const GradientCheck check = check_grads_against_finite_differences(trace, GradOptions{});
    EXPECT_TRUE(check.passed) << forward << ": " << check.detail;
    EXPECT_GE(check.compared, 3u) << forward;
  }
}

TEST(DerivedGrads, AWrongGradientThroughBfloat16IsCaught) {
  py::dict scope = python_scope(kBfloat16);
  for (double factor : {1.5, -1.0}) {
    Trace trace = bfloat16_trace(scope, "returns_float32");
    Op& input = trace.ops[trace.inputs[0]];
    std::vector<double> values = input.grad->to_doubles();
    for (double& v : values) v *= factor;
    input.grad = Payload::from_doubles(input.grad->dtype, input.grad->shape, values);
    const GradientCheck check = check_grads_against_finite_differences(trace, GradOptions{});
    EXPECT_FALSE(check.passed) << "gradient scaled by " << factor << ": " << check.detail;
    EXPECT_NE(check.detail.find(input.label), std::string::npos) << check.detail;
  }
}

// At a real size, a gradient that is a view of another target's (a 32x32 matmul's 32x32x32 product:
// its sum's gradient broadcast) is derived on the host, and one that eager's schedule realizes for an
// input (the gradient of the input's reshape) is read from there: each is exactly the values it is
// a view of (the input's gradient is autograd's, bit for bit: the cells check it).
TEST(DerivedGrads, ViewsOfGradientsAtARealSizeAreTheValuesTheyView) {
  py::dict scope = python_scope(R"PY(
import numpy as np
from tinygrad import Tensor
rng = np.random.default_rng(0)
w = Tensor(rng.uniform(-2, 2, (32, 32)).astype(np.float32))
x = Tensor(rng.uniform(-2, 2, (32, 32)).astype(np.float32))
)PY");
  Trace trace = tl::tinygrad::trace(py::eval("lambda x: (x @ w).relu()", scope), py::make_tuple(scope["x"]));
  GradOptions options;
  options.intermediate_grads = true;
  trace.derive_grads(options);
  const Op& product = trace.ops[first_op_named(trace, "MUL")];
  const Op& sum = trace.ops[first_op_named(trace, "REDUCE")];
  ASSERT_EQ(product.shape, (std::vector<std::int64_t>{32, 32, 32}));
  ASSERT_TRUE(product.grad && sum.grad);
  const std::vector<double> broadcast = product.grad->to_doubles(), summed = sum.grad->to_doubles();
  for (std::size_t i = 0; i < broadcast.size(); ++i) ASSERT_EQ(broadcast[i], summed[i / 32]) << "element " << i;
  const Op& input = *trace.input_ops().at(0);
  const Op& reshaped = trace.ops[trace.ops[product.parents.at(0).op].parents.at(0).op];  // x reshaped to 32x1x32
  ASSERT_EQ(reshaped.framework_op, "RESHAPE");
  ASSERT_EQ(reshaped.parents.at(0).op, input.index);
  EXPECT_EQ(reshaped.grad->bytes, input.grad->bytes);
}

TEST(DerivedGrads, UserTensorsKeepTheirGrad) {
  py::dict scope = python_scope(std::string(kModel) + "\nw.requires_grad = True\nx.requires_grad = True\n");
  Trace trace = tl::tinygrad::trace(scope["f"], py::make_tuple(scope["x"]));
  GradOptions options;
  options.intermediate_grads = true;
  trace.derive_grads(options);
  EXPECT_TRUE(py::eval("w.grad is None and x.grad is None and b.grad is None", scope).cast<bool>());
  // And a user backward afterwards still works on the user's own graph.
  py::exec("out = f(x)\n(out[0].sum() + out[1]).backward()\n", scope);
  EXPECT_FALSE(py::eval("w.grad is None", scope).cast<bool>());
}

}  // namespace
}  // namespace tl
