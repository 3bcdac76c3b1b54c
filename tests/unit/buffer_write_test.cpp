// A forward that writes into a buffer (tinygrad.llm's KV cache: AFTER(buffer, STORE(view, value)))
// is one op over the buffer and the written value: its payload equals eager, the buffer's is its
// content before the write, replay re-runs the
// write and catches a wrong value in either region, and derived gradients split between the
// written region (the value) and the rest (the buffer).
#include <gtest/gtest.h>

#include "backends/tinygrad/protocol.h"
#include "harness/backend/backend_registry.h"
#include "harness/cells/finite_differences.h"
#include "harness/judge/replay_validation.h"
#include "python_scope.h"

namespace tl {
namespace {

namespace py = pybind11;
using testing::python_scope;

// The write lands at an offset (columns 1..2 of 4) of a buffer with content, so both the value and
// the untouched columns reach the output.
constexpr const char* kCacheWrite = R"PY(
from tinygrad import Tensor
cache = Tensor([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]).contiguous().realize()
w = Tensor([[0.5, -1.0], [2.0, 0.25]])
def f(x):
    written = Tensor(cache.uop.after(cache[:, 1:3].uop.store(x.matmul(w).tanh().uop)))
    return (written * written).sum(axis=1)
x = Tensor([[0.3, -0.2], [0.1, 0.4]])
expected = Tensor([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])
expected = expected[:, 0:1].cat(x.matmul(w).tanh(), expected[:, 3:4], dim=1).flatten().tolist()
)PY";

struct CacheWrite {
  py::dict scope;
  Trace trace;
  std::size_t write = 0;
};

CacheWrite capture_cache_write() {
  CacheWrite capture{python_scope(kCacheWrite), {}, 0};
  capture.trace = tl::tinygrad::trace(capture.scope["f"], py::make_tuple(capture.scope["x"]));
  for (const Op& op : capture.trace.ops) {
    if (op.framework_op == "AFTER") capture.write = op.index;
  }
  return capture;
}

std::vector<Payload> own_outputs(const Trace& trace) {
  std::vector<Payload> outputs;
  for (const Op* op : trace.output_ops()) outputs.push_back(*op->out);
  return outputs;
}

TEST(BufferWrite, IsOneOpOverTheBufferAndTheWrittenValue) {
  const CacheWrite capture = capture_cache_write();
  const Op& write = capture.trace.ops[capture.write];
  ASSERT_EQ(write.framework_op, "AFTER");
  ASSERT_EQ(write.parents.size(), 2u);
  const Op& buffer = capture.trace.ops[write.parents[0].op];
  const Op& value = capture.trace.ops[write.parents[1].op];
  EXPECT_EQ(buffer.shape, (std::vector<std::int64_t>{2, 4}));
  // The buffer's op is what the forward started from, read before the evaluation wrote into it.
  EXPECT_EQ(buffer.out->to_doubles(), (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(value.shape, (std::vector<std::int64_t>{2, 2}));
  std::vector<double> expected;
  for (py::handle v : capture.scope["expected"]) expected.push_back(v.cast<double>());
  const std::vector<double> got = write.out->to_doubles();
  const std::vector<double> stored = value.out->to_doubles();  // tanh(x @ w), the STORE's value
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], expected[i], 1e-6) << "element " << i;
    if (i % 4 == 1 || i % 4 == 2) {
      EXPECT_EQ(stored[(i / 4) * 2 + i % 4 - 1], got[i]) << "element " << i;
    }
  }
}

TEST(BufferWrite, ReplayPassesAndCatchesAWrongValueInEitherRegion) {
  const CacheWrite capture = capture_cache_write();
  const ValidationStatus clean = validate(capture.trace, own_outputs(capture.trace));
  EXPECT_EQ(clean.state, ValidationState::Passed) << clean.message;
  for (const std::int64_t element : {1, 3}) {  // written (column 1), untouched (column 3)
    CacheWrite tampered = capture_cache_write();
    Payload& out = *tampered.trace.ops[tampered.write].out;
    std::vector<double> values = out.to_doubles();
    values[static_cast<std::size_t>(element)] += 0.5;
    out = Payload::from_doubles(out.dtype, out.shape, values);
    const ValidationStatus status = validate(tampered.trace, own_outputs(tampered.trace));
    EXPECT_EQ(status.state, ValidationState::Failed) << "element " << element;
    EXPECT_NE(status.message.find(tampered.trace.ops[tampered.write].label), std::string::npos) << status.message;
  }
}

TEST(BufferWrite, GradientsSplitBetweenTheWrittenRegionAndTheRest) {
  CacheWrite capture = capture_cache_write();
  GradOptions options;
  options.intermediate_grads = true;
  capture.trace.derive_grads(options);
  const Op& write = capture.trace.ops[capture.write];
  const Op& buffer = capture.trace.ops[write.parents[0].op];
  const Op& value = capture.trace.ops[write.parents[1].op];
  ASSERT_TRUE(value.grad && buffer.grad);
  ASSERT_EQ(value.grad->shape, value.shape) << "tinygrad's own STORE rule gives the whole buffer's shape";
  // loss = sum(written^2): d/dwritten = 2 written, which the value sees in columns 1..2 and the
  // buffer in columns 0 and 3 only.
  const std::vector<double> written = write.out->to_doubles();
  const std::vector<double> value_grad = value.grad->to_doubles();
  const std::vector<double> buffer_grad = buffer.grad->to_doubles();
  for (std::size_t row = 0; row < 2; ++row) {
    for (std::size_t column = 0; column < 4; ++column) {
      const double upstream = 2.0 * written[row * 4 + column];
      const bool in_write = column == 1 || column == 2;
      EXPECT_NEAR(buffer_grad[row * 4 + column], in_write ? 0.0 : upstream, 1e-5) << row << "," << column;
      if (in_write) {
        EXPECT_NEAR(value_grad[row * 2 + column - 1], upstream, 1e-5) << row << "," << column;
      }
    }
  }
  const GradientCheck check = check_grads_against_finite_differences(capture.trace, options);
  EXPECT_TRUE(check.passed) << check.detail;
}

}  // namespace
}  // namespace tl
