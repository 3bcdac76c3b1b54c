// The state_afterwards check (issue 36.6): every tensor the row's objects hold after the capture is
// compared, name by name and bit for bit, with the eager twin's after one forward. Each way it can
// fail is made to fail here; no Python is started.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "harness/cells/checks.h"

namespace tl {
namespace {

const DType& float32() {
  static const DType dtype = *dtype_from_name("float32");
  return dtype;
}

std::vector<std::pair<std::string, Payload>> state(double running_mean, double num_batches) {
  static const DType int64 = *dtype_from_name("int64");
  return {{"bn.num_batches_tracked", Payload::from_doubles(int64, {1}, {num_batches})},
          {"bn.running_mean", Payload::from_doubles(float32(), {2}, {running_mean, 0.5})}};
}

Check check(std::vector<std::pair<std::string, Payload>> captured, std::vector<std::pair<std::string, Payload>> eager) {
  RowCapture capture;
  capture.state_after = std::move(captured);
  EagerRun twin;
  twin.state_after = std::move(eager);
  return check_state_afterwards(capture, twin);
}

TEST(StateAfterwards, EqualStatePasses) {
  const Check result = check(state(0.25, 1), state(0.25, 1));
  EXPECT_TRUE(result.passed) << result.detail;
  EXPECT_NE(result.detail.find("the 2 tensor(s)"), std::string::npos) << result.detail;
}

TEST(StateAfterwards, ARunningStatisticOneUlpOffFails) {
  const Check result = check(state(std::nextafter(0.25F, 1.0F), 1), state(0.25, 1));
  EXPECT_FALSE(result.passed);
  EXPECT_NE(result.detail.find("bn.running_mean"), std::string::npos) << result.detail;
}

TEST(StateAfterwards, ACounterNotAdvancedFails) {
  const Check result = check(state(0.25, 0), state(0.25, 1));
  EXPECT_FALSE(result.passed);
  EXPECT_NE(result.detail.find("bn.num_batches_tracked"), std::string::npos) << result.detail;
}

TEST(StateAfterwards, ATensorOnlyOneSideHoldsFails) {
  auto captured = state(0.25, 1);
  captured.emplace_back("block.cache_kv", Payload::from_doubles(float32(), {1}, {0.0}));
  const Check result = check(captured, state(0.25, 1));
  EXPECT_FALSE(result.passed);
  EXPECT_NE(result.detail.find("block.cache_kv"), std::string::npos) << result.detail;
}

TEST(StateAfterwards, ANanWithAnotherSignFails) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Check result = check(state(-nan, 1), state(nan, 1));
  EXPECT_FALSE(result.passed) << result.detail;
}

// A second call (the roster's `again:`, a later start_pos) writes state too: what the objects hold
// after it is compared as well, so a cache the second call leaves wrong fails model_afterwards even
// where its outputs agree.
TEST(ModelAfterwards, StateTheSecondCallLeavesWrongFails) {
  RowCapture capture;
  EagerRun twin;
  capture.outputs_after = twin.second_outputs = {Payload::from_doubles(float32(), {1}, {1.0})};
  capture.state_after_again = twin.state_after_again = state(0.25, 2);
  const Check passing = check_model_afterwards(capture, twin);
  EXPECT_TRUE(passing.passed) << passing.detail;
  EXPECT_NE(passing.detail.find("the 2 tensor(s) the objects hold after it"), std::string::npos) << passing.detail;
  capture.state_after_again = state(0.25, 1);
  const Check failing = check_model_afterwards(capture, twin);
  EXPECT_FALSE(failing.passed);
  EXPECT_NE(failing.detail.find("bn.num_batches_tracked after the second call differs"), std::string::npos) << failing.detail;
}

}  // namespace
}  // namespace tl
