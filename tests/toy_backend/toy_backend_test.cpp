// The harness core is backend-neutral: tlconform_toy (the CLI's objects unchanged, plus the test-only
// toy backend, without tinygrad) runs the toy's rows through the same cells, `run`, `scorecard`,
// `doctor` and `list` as users run tlconform. Wrong expectations must fail, at the check they aim at.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "cli_support.h"

namespace tl {
namespace {

using test::scratch;
using test::source_path;
using test::tlconform;

const std::string kRows = source_path("tests/toy_backend/rows.yaml");

nlohmann::json read_card(const std::string& path) { return nlohmann::json::parse(std::ifstream(path)); }

std::map<std::string, nlohmann::json> cells_by_id(const nlohmann::json& card) {
  std::map<std::string, nlohmann::json> cells;
  for (const auto& cell : card.at("cells")) cells[cell.at("id")] = cell;
  return cells;
}

std::map<std::string, std::string> capability_states(const nlohmann::json& card) {
  std::map<std::string, std::string> states;
  for (const auto& capability : card.at("capabilities")) states[capability.at("name")] = capability.at("state");
  return states;
}

// What every card of rows.yaml must show, whichever command wrote it.
void expect_toy_card(const nlohmann::json& card, const std::string& context) {
  EXPECT_EQ(card.at("backend"), "toy") << context;
  EXPECT_EQ(card.at("spec").at("distribution"), "toygrad") << context;
  EXPECT_EQ(card.at("provenance").at("framework_version_seen"), "1.0.0") << context;
  auto cells = cells_by_id(card);
  ASSERT_EQ(cells.size(), 6u) << context;
  for (const auto& [id, cell] : cells) {
    EXPECT_EQ(cell.at("state"), "passed") << id << ": " << cell.dump() << "\n" << context;
    EXPECT_FALSE(cell.contains("failed_checks")) << id << ": " << cell.dump();
  }
  // The config_built cells ran every check a tinygrad row runs.
  const std::vector<std::string> row_checks{
      "capture",           "structure",        "one_evaluation",       "outputs_equal_eager", "rng_state_equal_eager",
      "state_afterwards",  "model_afterwards", "payloads_equal_alone", "expected_output",     "constant_kinds",
      "replay_validation", "derived_grads",    "tlspec_round_trip"};
  EXPECT_EQ(cells["toy_mlp"].at("checks"), row_checks);
  EXPECT_EQ(cells["toy_mlp"].at("ops"), 6);       // x, w, b, matmul, add, relu
  EXPECT_EQ(cells["toy_literals"].at("ops"), 9);  // x, 3 consts, mul, add, relu, sum, mul
  EXPECT_EQ(cells["toy_identity"].at("ops"), 1);
  EXPECT_EQ(cells["toy_validation_replay"].at("checks"), (std::vector<std::string>{"validation_passes", "validation_can_fail"}));
  EXPECT_EQ(cells["toy_refuse_unknown_option"].at("refusal_code"), "trace_option_unsupported");
  EXPECT_EQ(cells["toy_refuse_plain_input"].at("refusal_code"), "toy_input_required");
  EXPECT_EQ(cells["toy_refuse_plain_input"].at("checks"),
            (std::vector<std::string>{"refusal_code", "no_op_ran", "inputs_unchanged", "hooks_restored"}));
  // Capability states computed from the cells, as for tinygrad.
  const auto states = capability_states(card);
  EXPECT_EQ(states.at("has_validation_replay"), "supported");
  EXPECT_EQ(states.at("intermediate_derived_grads"), "supported");
  EXPECT_EQ(states.at("Trace options outside `module_identity_mode`, `grad_options`"), "unsupported");
  EXPECT_EQ(states.at("No positional toygrad Tensor input"), "unsupported");
  EXPECT_EQ(card.at("summary").at("total"), 6);
}

TEST(ToyBackend, RunPassesEveryCellAndWritesTheScorecard) {
  const std::string out = scratch("toy_run.json");
  const ChildOutcome outcome = tlconform({"run", "--backend", "toy", "--roster", kRows, "--out", out});
  ASSERT_EQ(outcome.exit_code, 0) << outcome.stdout_text << outcome.stderr_text;
  EXPECT_NE(outcome.stdout_text.find("passed\ttoy_mlp\ttests/toy_backend/rows.yaml:4"), std::string::npos) << outcome.stdout_text;
  EXPECT_NE(outcome.stdout_text.find("summary: 6 cells, 6 passed"), std::string::npos) << outcome.stdout_text;
  expect_toy_card(read_card(out), outcome.stdout_text);
}

TEST(ToyBackend, WrongExpectationsFailAtTheirCheck) {
  const std::string out = scratch("toy_wrong.json");
  const ChildOutcome outcome =
      tlconform({"run", "--backend", "toy", "--roster", source_path("tests/toy_backend/wrong_rows.yaml"), "--out", out});
  EXPECT_EQ(outcome.exit_code, 1) << outcome.stdout_text << outcome.stderr_text;
  auto cells = cells_by_id(read_card(out));
  ASSERT_EQ(cells.size(), 4u) << outcome.stdout_text;
  const std::map<std::string, std::vector<std::string>> failed_at{{"toy_wrong_output", {"expected_output"}},
                                                                  {"toy_wrong_validation", {"replay_validation"}},
                                                                  {"toy_wrong_code", {"refusal_code"}},
                                                                  {"toy_not_refused", {"refusal_code", "no_op_ran"}}};
  for (const auto& [id, checks] : failed_at) {
    EXPECT_EQ(cells[id].at("state"), "failed") << id << ": " << cells[id].dump();
    EXPECT_EQ(cells[id].value("failed_checks", nlohmann::json::array()), checks) << cells[id].dump();
  }
  // The messages say what differed.
  EXPECT_NE(outcome.stdout_text.find("expected_output: output 0: tests/toy_backend/wrong_rows.yaml:14"), std::string::npos)
      << outcome.stdout_text;
  EXPECT_NE(outcome.stdout_text.find("replay_validation: passed: 0 ops replayed"), std::string::npos) << outcome.stdout_text;
  EXPECT_NE(outcome.stdout_text.find("refusal_code: refused with trace_option_unsupported, expected explicit_seed_unsupported"),
            std::string::npos)
      << outcome.stdout_text;
  // A refusal row that nothing refuses: the forward ran, and the probe says so.
  EXPECT_NE(outcome.stdout_text.find("refusal_code: the request was not refused: it captured 3 ops"), std::string::npos)
      << outcome.stdout_text;
}

TEST(ToyBackend, ScorecardCommandRunsTheSameCells) {
  const std::string out = scratch("toy_scorecard.json");
  const ChildOutcome outcome = tlconform({"scorecard", "--backend", "toy", "--roster", kRows, "--out", out});
  ASSERT_EQ(outcome.exit_code, 0) << outcome.stdout_text << outcome.stderr_text;
  expect_toy_card(read_card(out), outcome.stdout_text);
}

TEST(ToyBackend, DoctorShowsToygradAndTheToyScorecard) {
  const std::string card = scratch("toy_doctor_card.json");
  const ChildOutcome run = tlconform({"run", "--backend", "toy", "--roster", kRows, "--out", card});
  ASSERT_EQ(run.exit_code, 0) << run.stdout_text << run.stderr_text;
  const ChildOutcome doctor = tlconform({"doctor", "--backend", "toy", "--scorecard", card, "--json"});
  EXPECT_EQ(doctor.exit_code, 0) << doctor.stdout_text << doctor.stderr_text;
  std::map<std::string, nlohmann::json> rows;
  for (const auto& row : nlohmann::json::parse(doctor.stdout_text)) rows[row.at("name")] = row;
  ASSERT_TRUE(rows.contains("toygrad")) << doctor.stdout_text;
  EXPECT_EQ(rows["toygrad"].at("status"), "ok");
  EXPECT_NE(rows["toygrad"].at("value").get<std::string>().find("1.0.0 in range >=1.0,<2"), std::string::npos);
  ASSERT_TRUE(rows.contains("backend_scorecard:toy")) << doctor.stdout_text;
  EXPECT_EQ(rows["backend_scorecard:toy"].at("status"), "ok") << rows["backend_scorecard:toy"].dump();
  const std::string value = rows["backend_scorecard:toy"].at("value");
  for (const char* part : {"capability 1/1", "config_built 3/3", "refusal 2/2", "capabilities: 2 supported, 2 unsupported",
                           "installed toygrad 1.0.0 matches"}) {
    EXPECT_NE(value.find(part), std::string::npos) << part << " not in: " << value;
  }
}

TEST(ToyBackend, ListShowsTheToyRowsWithoutPython) {
  const ChildOutcome outcome = tlconform({"list", "--backend", "toy", "--roster", kRows});
  ASSERT_EQ(outcome.exit_code, 0) << outcome.stdout_text << outcome.stderr_text;
  EXPECT_EQ(outcome.stdout_text,
            "toy_mlp\tconfig_built\ttests/toy_backend/rows.yaml:4\n"
            "toy_literals\tconfig_built\ttests/toy_backend/rows.yaml:17\n"
            "toy_identity\tconfig_built\ttests/toy_backend/rows.yaml:29\n"
            "toy_validation_replay\tcapability\ttests/toy_backend/rows.yaml:38\n"
            "toy_refuse_unknown_option\trefusal\ttests/toy_backend/rows.yaml:48\n"
            "toy_refuse_plain_input\trefusal\ttests/toy_backend/rows.yaml:55\n");
}

TEST(ToyBackend, ValidateShowsEveryReplayDecision) {
  const ChildOutcome outcome = tlconform({"validate", "--backend", "toy", "--roster", kRows, "--row", "toy_mlp", "--json"});
  ASSERT_EQ(outcome.exit_code, 0) << outcome.stdout_text << outcome.stderr_text;
  const nlohmann::json status = nlohmann::json::parse(outcome.stdout_text);
  EXPECT_EQ(status.at("state"), "passed") << outcome.stdout_text;
  EXPECT_EQ(status.at("replayed"), 3) << outcome.stdout_text;  // matmul, add, relu
}

}  // namespace
}  // namespace tl
