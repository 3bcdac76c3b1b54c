// NaN bits on tinygrad 0.13, DEV=PYTHON (README, "What a verdict means"). A NaN's sign follows the
// program that made it: the host's float arithmetic makes x86's default NaN, negative (0/0 is
// 0 * (1/0), inf - inf), while a NaN tinygrad folds at compile time or the emulator returns for a
// function outside its domain (sqrt, log of a negative) is positive, and a negation flips it. Within
// one program it is deterministic: a capture's output and eager's, a replay and its payload, an op's
// payload and its value alone hold the same NaN bits in float32, float16 and bfloat16, so those
// comparisons include them. Two programs for the same value need not (a NaN folded or computed;
// input gradients derived over the saved payloads and tinygrad's autograd on the eager twin), so
// the gradient check compares NaNs as values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "backends/tinygrad/protocol.h"
#include "harness/backend/backend_registry.h"
#include "harness/judge/protocol.h"
#include "harness/judge/replay_validation.h"
#include "harness/model/live_graph.h"
#include "python_scope.h"

namespace tl {
namespace {

namespace py = pybind11;
using testing::python_scope;

constexpr const char* kNans = R"PY(
from tinygrad import Tensor, dtypes

def inputs(dtype):  # two of each: tinygrad folds x / x to 1 and x - x to 0
    zeros = [0.0, 0.0, 1.0]
    infs = [float("inf"), -float("inf"), 1.0]
    return tuple(Tensor(values, dtype=dtype).realize() for values in (zeros, zeros, infs, infs, [-1.0, -2.0, 4.0]))

def nans(z, w, i, j, n):
    q = z / w      # 0/0 over buffers: the host's multiply of 0 by 1/0
    d = i - j      # inf - inf
    r = n.sqrt()   # sqrt of a negative: the emulator's own NaN
    return q, d, r, -q, (q + 1) * 2  # negated; carried through two more ops

def folded(dtype):  # 0/0 over constants: tinygrad folds it before any kernel runs
    return Tensor(0.0, dtype=dtype) / 0.0

def asin_gradient(x):  # asin's gradient at -300: 1 / sqrt(1 - x^2), the root of a negative
    return x.asin().sum().gradient(x)[0]
)PY";

const std::vector<std::string> kDtypes{"float32", "float16", "bfloat16"};

std::vector<Payload> read(BackendProtocol& protocol, const py::object& tensors) {
  std::vector<Payload> payloads;
  for (py::handle tensor : tensors) payloads.push_back(protocol.payload_of(tensor));
  return payloads;
}

bool negative(const Payload& payload, std::int64_t i) { return (payload.bits(i) >> (8 * payload.dtype.itemsize - 1)) != 0; }

// Within one program the NaN bits agree: capture and eager, replay and payload, payload and alone.
TEST(NanBits, OneProgramMakesTheSameNanBitsEveryTime) {
  py::dict scope = python_scope(kNans);
  const auto protocol = protocol_of(backends::spec("tinygrad"));
  for (const std::string& dtype : kDtypes) {
    const py::object args = scope["inputs"](py::module_::import("tinygrad").attr("dtypes").attr(dtype.c_str()));
    const Trace trace = tinygrad::trace(scope["nans"], args);
    const std::vector<Payload> eager = read(*protocol, scope["nans"](*args));
    ASSERT_EQ(eager.size(), trace.outputs.size());
    for (std::size_t k = 0; k < eager.size(); ++k) {
      const Payload& captured = *trace.ops[trace.outputs[k]].out;
      EXPECT_TRUE(std::isnan(captured.element(0)) && std::isnan(captured.element(1))) << dtype << " output " << k;
      const Comparison comparison = compare(eager[k], captured);
      EXPECT_TRUE(comparison.equal) << dtype << " output " << k << ": " << comparison.message;
    }
    const ValidationStatus status = validate(trace, eager);
    EXPECT_EQ(status.state, ValidationState::Passed) << dtype << ": " << status.message;
    std::vector<std::size_t> computed;
    for (const Op& op : trace.ops) {
      if (op.kind == OpKind::Compute) computed.push_back(op.index);
    }
    const std::vector<Payload> alone = trace.live->alone_values(trace, computed);
    for (std::size_t k = 0; k < computed.size(); ++k) {
      const Comparison comparison = compare(alone[k], *trace.ops[computed[k]].out);
      EXPECT_TRUE(comparison.equal) << dtype << " " << trace.ops[computed[k]].label << ": " << comparison.message;
    }
    // The signs on this x86-64 host, as the README gives them: the host's 0/0 and inf - inf are
    // negative, the emulator's sqrt(-1) positive, a negation flips, arithmetic carries the sign.
    std::vector<bool> signs;
    signs.reserve(eager.size());
    for (const Payload& output : eager) signs.push_back(negative(output, 0));
    EXPECT_EQ(signs, (std::vector<bool>{true, true, false, false, true})) << dtype;
  }
}

// So a NaN whose sign is not the one its program makes is a wrong payload: replay fails it.
TEST(NanBits, ANanWithAnotherSignFailsItsReplay) {
  py::dict scope = python_scope(kNans);
  const auto protocol = protocol_of(backends::spec("tinygrad"));
  for (const std::string& dtype : kDtypes) {
    const py::object args = scope["inputs"](py::module_::import("tinygrad").attr("dtypes").attr(dtype.c_str()));
    Trace trace = tinygrad::trace(scope["nans"], args);
    const std::vector<Payload> eager = read(*protocol, scope["nans"](*args));
    // 0/0 + 1: the ADD that is no output (inf - inf is one too), an intermediate NaN
    const auto is_output = [&](const Op& op) {
      return std::find(trace.outputs.begin(), trace.outputs.end(), op.index) != trace.outputs.end();
    };
    const auto found = std::find_if(trace.ops.begin(), trace.ops.end(),
                                    [&](const Op& op) { return op.framework_op == "ADD" && !is_output(op); });
    ASSERT_NE(found, trace.ops.end()) << dtype;
    Op& sum = *found;
    ASSERT_TRUE(std::isnan(sum.out->element(0))) << dtype;
    sum.out->set_bits(0, sum.out->bits(0) ^ (std::uint64_t{1} << (8 * sum.out->dtype.itemsize - 1)));
    const ValidationStatus status = validate(trace, eager);
    EXPECT_EQ(status.state, ValidationState::Failed) << dtype;
    EXPECT_NE(status.message.find("op " + sum.label), std::string::npos) << dtype << ": " << status.message;
    EXPECT_NE(status.message.find("failed replay"), std::string::npos) << dtype << ": " << status.message;
  }
}

// Two programs for one value: 0/0 folded is a positive NaN, computed over buffers a negative one.
TEST(NanBits, AFoldedNanAndAComputedOneDiffer) {
  py::dict scope = python_scope(kNans);
  const auto protocol = protocol_of(backends::spec("tinygrad"));
  for (const std::string& dtype : kDtypes) {
    const py::object tinygrad_dtype = py::module_::import("tinygrad").attr("dtypes").attr(dtype.c_str());
    const Payload folded = protocol->payload_of(scope["folded"](tinygrad_dtype));
    const Payload computed = protocol->payload_of(scope["nans"](*scope["inputs"](tinygrad_dtype))[py::int_(0)]);
    ASSERT_TRUE(std::isnan(folded.element(0)) && std::isnan(computed.element(0))) << dtype;
    EXPECT_FALSE(negative(folded, 0)) << dtype << ": " << folded.element_text(0);
    EXPECT_TRUE(negative(computed, 0)) << dtype << ": " << computed.element_text(0);
  }
}

// Input gradients derived over the saved payloads and tinygrad's autograd on a twin are two
// programs: the same NaN, another sign. So the gradient check compares them as values.
TEST(NanBits, DerivedInputGradientsAndAutogradAreTwoPrograms) {
  py::dict scope = python_scope(kNans);
  const auto protocol = protocol_of(backends::spec("tinygrad"));
  const char* values =
      "Tensor([-300.0, -299.5, -2.5, -1.0, -0.0, 0.0, 0.5, 1.0, 2.5, 299.5, 300.0, float('inf'), -float('inf'), float('nan')])";
  const py::object x = py::eval(values, scope);
  Trace trace = tinygrad::trace(py::eval("lambda x: x.asin()", scope), py::make_tuple(x));
  trace.derive_grads({.intermediate_grads = true});
  const Payload derived = *trace.ops[trace.inputs[0]].grad;
  const Payload autograd = protocol->payload_of(scope["asin_gradient"](py::eval(values, scope)));
  ASSERT_TRUE(std::isnan(derived.element(0)) && std::isnan(autograd.element(0)));
  EXPECT_NE(negative(derived, 0), negative(autograd, 0)) << derived.element_text(0) << " vs " << autograd.element_text(0);
  EXPECT_FALSE(compare(autograd, derived).equal);
  EXPECT_TRUE(compare_values(autograd, derived).equal) << compare_values(autograd, derived).message;
}

}  // namespace
}  // namespace tl
