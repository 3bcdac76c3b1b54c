// One judge for every backend: tinygrad's traces and the toy's, validated by the same rules, decide
// alike. The same rows (alike_rows.yaml) run through each backend's engine: a trace that computes
// nothing, a chain that replays, and the chain with an intermediate payload corrupted, a wrong
// ground truth and a rewired parent. Each scenario's state, phase of the first failure and wording
// are held to the same expectation for both backends (only op labels and counts are the backend's).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "harness/backend/backend_registry.h"
#include "harness/cells/families.h"
#include "harness/judge/protocol.h"
#include "harness/judge/replay_validation.h"
#include "harness/roster/roster.h"

namespace tl {
namespace {

const RosterRow& alike_row(const std::string& backend, const std::string& id) {
  static std::map<std::string, Roster> rosters;
  auto found = rosters.find(backend);
  if (found == rosters.end()) {
    const std::string path = std::string(TL_SOURCE_DIR) + "/tests/toy_backend/alike_rows.yaml";
    found = rosters.emplace(backend, load_roster(path, roster_vocabulary(backends::spec(backend)))).first;
  }
  for (const RosterRow& row : found->second.rows) {
    if (row.id == id) return row;
  }
  throw std::runtime_error("no row " + id);
}

std::vector<Payload> own_outputs(const Trace& trace) {
  std::vector<Payload> outputs;
  for (const Op* op : trace.output_ops()) outputs.push_back(*op->out);
  return outputs;
}

std::size_t computing_ops(const Trace& trace) {
  return static_cast<std::size_t>(std::count_if(
      trace.ops.begin(), trace.ops.end(), [](const Op& op) { return op.kind == OpKind::Compute || op.kind == OpKind::View; }));
}

// The first compute op that is not an output: corrupting it fails its own replay first.
Op& first_intermediate(Trace& trace) {
  for (Op& op : trace.ops) {
    if (op.kind == OpKind::Compute && std::find(trace.outputs.begin(), trace.outputs.end(), op.index) == trace.outputs.end())
      return op;
  }
  throw std::runtime_error("no intermediate compute op");
}

class JudgeAlike : public ::testing::TestWithParam<std::string> {
 protected:
  RowCapture capture(const std::string& id) {
    return protocol_of(backends::spec(GetParam()))->capture_row(alike_row(GetParam(), id));
  }
};

// Nothing computes: the ground truth checks all there is, and the trace passes (the toy said
// unverified here before it was judged by the harness).
TEST_P(JudgeAlike, ATraceThatComputesNothingPassesOnItsGroundTruth) {
  const RowCapture captured = capture("alike_identity");
  ASSERT_EQ(computing_ops(captured.trace), 0u);
  const ValidationStatus status = validate(captured.trace, own_outputs(captured.trace));
  EXPECT_EQ(status.state, ValidationState::Passed) << status.message;
  EXPECT_EQ(status.replayed, 0u);
  EXPECT_EQ(status.message, "");
  ASSERT_EQ(status.decisions.size(), 1u);
  EXPECT_EQ(status.decisions[0].phase, ValidationPhase::GroundTruth);
  EXPECT_EQ(status.decisions[0].reason, "equals the given output");
}

TEST_P(JudgeAlike, AChainReplaysEveryComputingOpAndPasses) {
  const RowCapture captured = capture("alike_chain");
  const ValidationStatus status = validate(captured.trace, own_outputs(captured.trace));
  EXPECT_EQ(status.state, ValidationState::Passed) << status.message;
  EXPECT_EQ(status.replayed, computing_ops(captured.trace));
  std::size_t perturbed = 0;
  for (const Decision& decision : status.decisions) {
    EXPECT_NE(decision.verdict, DecisionVerdict::Fail) << decision.label << ": " << decision.reason;
    if (decision.phase == ValidationPhase::Perturbation && decision.verdict == DecisionVerdict::Pass) {
      ++perturbed;
      EXPECT_NE(decision.reason.find(" changes the output"), std::string::npos) << decision.reason;
    }
  }
  EXPECT_GT(perturbed, 0u);
}

TEST_P(JudgeAlike, ACorruptedIntermediateFailsItsReplayNamingIt) {
  RowCapture captured = capture("alike_chain");
  const std::vector<Payload> outputs = own_outputs(captured.trace);
  Op& victim = first_intermediate(captured.trace);
  victim.out->bytes[0] ^= 1;  // the last bit of element 0
  const ValidationStatus status = validate(captured.trace, outputs);
  EXPECT_EQ(status.state, ValidationState::Failed);
  EXPECT_EQ(status.message.rfind("op " + victim.label + " (index " + std::to_string(victim.index) +
                                     ") failed replay: replay differs from the saved payload: element 0 is ",
                                 0),
            0u)
      << status.message;
}

TEST_P(JudgeAlike, AWrongGroundTruthFailsBeforeAnyReplay) {
  const RowCapture captured = capture("alike_chain");
  std::vector<Payload> outputs = own_outputs(captured.trace);
  outputs[0].bytes[0] ^= 1;
  const ValidationStatus status = validate(captured.trace, outputs);
  EXPECT_EQ(status.state, ValidationState::Failed);
  EXPECT_NE(status.message.find("failed ground_truth: element 0 is "), std::string::npos) << status.message;
  EXPECT_EQ(status.replayed, 0u);
}

TEST_P(JudgeAlike, ARewiredParentFailsTheStructure) {
  RowCapture captured = capture("alike_chain");
  const std::vector<Payload> outputs = own_outputs(captured.trace);
  Op& victim = first_intermediate(captured.trace);
  victim.parents[0].position += 1;
  const ValidationStatus status = validate(captured.trace, outputs);
  EXPECT_EQ(status.state, ValidationState::Failed);
  EXPECT_NE(status.message.find("op " + victim.label), std::string::npos) << status.message;
  EXPECT_NE(status.message.find("failed structure: has parents ["), std::string::npos) << status.message;
  EXPECT_EQ(status.replayed, 0u);
}

INSTANTIATE_TEST_SUITE_P(Backends, JudgeAlike, ::testing::Values("tinygrad", "toy"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace tl
