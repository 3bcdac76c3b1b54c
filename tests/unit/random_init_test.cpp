// Random-init equals eager: tracing default-init layers gives the eager output and leaves the same
// RNG state as one eager forward (eager output read first, then the counters).
#include <gtest/gtest.h>

#include "backends/tinygrad/protocol.h"
#include "harness/backend/backend_registry.h"
#include "harness/judge/protocol.h"
#include "harness/roster/roster.h"
#include "tinygrad_rows.h"

namespace tl {
namespace {

const RosterRow& row(const std::string& id) { return testing::tinygrad_row("rosters/tinygrad/random_init.yaml", id); }

void expect_capture_equals_eager(const std::string& id, bool draws_random_numbers) {
  const auto protocol = protocol_of(backends::spec("tinygrad"));
  const RowCapture capture = protocol->capture_row(row(id));
  const EagerRun eager = protocol->eager_row(row(id));
  ASSERT_EQ(eager.outputs.size(), capture.trace.outputs.size());
  const Comparison comparison = compare(eager.outputs[0], *capture.trace.output_ops()[0]->out);
  EXPECT_TRUE(comparison.equal) << comparison.message;
  EXPECT_EQ(capture.rng_state, eager.rng_state);
  // Layers that draw from the RNG leave a counter behind; the comparison then covers it.
  EXPECT_EQ(capture.rng_state.find("counter=") != std::string::npos, draws_random_numbers) << capture.rng_state;
  EXPECT_EQ(capture.observed_evaluations, 1);
  EXPECT_EQ(capture.trace.stats.evaluations, 1);
}

TEST(RandomInit, LinearEqualsEagerIncludingRngCounters) { expect_capture_equals_eager("linear_default_init", true); }
TEST(RandomInit, Conv2dEqualsEagerIncludingRngCounters) { expect_capture_equals_eager("conv2d_default_init", true); }
TEST(RandomInit, LayerNormEqualsEager) { expect_capture_equals_eager("layernorm_default_init", false); }

TEST(RandomInit, WeightsAreCutAsClosureConstants) {
  const auto protocol = protocol_of(backends::spec("tinygrad"));
  const RowCapture capture = protocol->capture_row(row("linear_default_init"));
  int closures = 0;
  for (const Op& op : capture.trace.ops) {
    EXPECT_NE(op.framework_op, "THREEFRY") << "the init graph must not be expanded: " << op.label;
    if (op.constant_kind == "closure") ++closures;
  }
  EXPECT_EQ(closures, 2);  // weight and bias, parentless
}

TEST(RandomInit, ADifferentSeedMakesTheComparisonFail) {
  // The comparison can fail: a different seed gives different weights and a different output.
  RosterRow other = row("linear_default_init");
  other.seed = *other.seed + 1;
  const auto protocol = protocol_of(backends::spec("tinygrad"));
  const RowCapture capture = protocol->capture_row(other);
  const EagerRun eager = protocol->eager_row(row("linear_default_init"));
  EXPECT_FALSE(compare(eager.outputs[0], *capture.trace.output_ops()[0]->out).equal);
}

}  // namespace
}  // namespace tl
