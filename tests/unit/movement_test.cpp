// Host-side movement ops: each kind against hand-computed values, misfits refused, and a wrong
// view payload in a real trace caught by replay validation (which re-runs views in tinygrad).
#include "harness/model/movement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "backends/tinygrad/protocol.h"
#include "harness/backend/backend_registry.h"
#include "harness/judge/replay_validation.h"
#include "python_scope.h"
#include "tutorial.h"

namespace tl {
namespace {

Payload iota(std::vector<std::int64_t> shape) {
  Payload p{*dtype_from_name("int32"), std::move(shape), {}};
  std::vector<double> values(static_cast<std::size_t>(p.numel()));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i);
  return Payload::from_doubles(p.dtype, p.shape, values);
}

std::vector<double> values(const Payload& p) { return p.to_doubles(); }

Movement move(Movement::Kind kind) { return Movement{kind, {}, {}, {}, {}}; }

TEST(Movement, ReshapeKeepsTheBytes) {
  Movement m = move(Movement::Kind::Reshape);
  m.shape = {3, 2};
  const Payload out = apply_movement(iota({2, 3}), m);
  EXPECT_EQ(out.shape, (std::vector<std::int64_t>{3, 2}));
  EXPECT_EQ(values(out), (std::vector<double>{0, 1, 2, 3, 4, 5}));
}

TEST(Movement, PermuteTransposes) {
  Movement m = move(Movement::Kind::Permute);
  m.order = {1, 0};
  const Payload out = apply_movement(iota({2, 3}), m);
  EXPECT_EQ(out.shape, (std::vector<std::int64_t>{3, 2}));
  EXPECT_EQ(values(out), (std::vector<double>{0, 3, 1, 4, 2, 5}));
}

TEST(Movement, ExpandRepeatsSizeOneAxes) {
  Movement m = move(Movement::Kind::Expand);
  m.shape = {2, 3};
  EXPECT_EQ(values(apply_movement(iota({1, 3}), m)), (std::vector<double>{0, 1, 2, 0, 1, 2}));
}

TEST(Movement, PadFillsZeros) {
  Movement m = move(Movement::Kind::Pad);
  m.ranges = {{1, 0}, {0, 1}};
  Payload in = iota({1, 2});
  in = Payload::from_doubles(in.dtype, in.shape, {7, 8});
  const Payload out = apply_movement(in, m);
  EXPECT_EQ(out.shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(values(out), (std::vector<double>{0, 0, 0, 7, 8, 0}));
}

TEST(Movement, ShrinkTakesARange) {
  Movement m = move(Movement::Kind::Shrink);
  m.ranges = {{1, 2}, {1, 3}};
  EXPECT_EQ(values(apply_movement(iota({2, 3}), m)), (std::vector<double>{4, 5}));
}

TEST(Movement, FlipReversesFlaggedAxes) {
  Movement m = move(Movement::Kind::Flip);
  m.flipped = {false, true};
  EXPECT_EQ(values(apply_movement(iota({2, 3}), m)), (std::vector<double>{2, 1, 0, 5, 4, 3}));
}

TEST(Movement, MisfitsAreRefused) {
  Movement reshape = move(Movement::Kind::Reshape);
  reshape.shape = {4};
  EXPECT_THROW(apply_movement(iota({2, 3}), reshape), std::invalid_argument);
  Movement permute = move(Movement::Kind::Permute);
  permute.order = {0, 0};
  EXPECT_THROW(apply_movement(iota({2, 3}), permute), std::invalid_argument);
  Movement expand = move(Movement::Kind::Expand);
  expand.shape = {4, 3};
  EXPECT_THROW(apply_movement(iota({2, 3}), expand), std::invalid_argument);
  Movement shrink = move(Movement::Kind::Shrink);
  shrink.ranges = {{0, 3}, {0, 1}};
  EXPECT_THROW(apply_movement(iota({2, 3}), shrink), std::invalid_argument);
}

// The capture derives view payloads on the host; replay re-runs the view in tinygrad, so a wrong
// host view fails validation naming the view.
TEST(Movement, AWrongViewPayloadFailsReplayValidation) {
  namespace py = pybind11;
  py::dict scope = testing::python_scope(testing::kTutorialSetup);
  Trace trace = tl::tinygrad::trace(scope["mlp"], py::make_tuple(scope["x"]));
  std::vector<Payload> outputs;
  for (const Op* op : trace.output_ops()) outputs.push_back(*op->out);
  ASSERT_EQ(validate(trace, outputs).state, ValidationState::Passed);
  Op* permute = nullptr;
  for (Op& op : trace.ops) {
    if (op.framework_op == "PERMUTE") permute = &op;
  }
  ASSERT_NE(permute, nullptr);
  ASSERT_GT(permute->out->numel(), 1);
  const auto item = static_cast<std::ptrdiff_t>(permute->out->dtype.itemsize);
  std::swap_ranges(permute->out->bytes.begin(), permute->out->bytes.begin() + item, permute->out->bytes.end() - item);
  const ValidationStatus status = validate(trace, outputs);
  EXPECT_EQ(status.state, ValidationState::Failed);
  EXPECT_NE(status.message.find(permute->label), std::string::npos) << status.message;
}

}  // namespace
}  // namespace tl
