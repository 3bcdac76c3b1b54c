// One cell model: the state table, `requires:` and `xfail:` as rows write them, and the reporters.
// Nothing here starts Python: the backend is a BackendSpec written in the test.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "harness/backend/backend_registry.h"
#include "harness/backend/python_runtime.h"
#include "harness/cells/conformance.h"
#include "harness/cells/families.h"
#include "harness/report/reporter.h"
#include "harness/report/scorecard.h"
#include "harness/roster/roster.h"
#include "harness/supervise/child_supervisor.h"

namespace tl {
namespace {

TEST(CellStates, EveryStateHasOneNameAndRoundTrips) {
  std::set<std::string> names;
  for (const CellStateInfo& state : cell_states()) {
    EXPECT_TRUE(names.insert(std::string(state.name)).second) << state.name;
    EXPECT_EQ(cell_state_from_string(state.name), state.state);
    EXPECT_EQ(to_string(state.state), state.name);
  }
  EXPECT_EQ(cell_state_from_string("pass"), std::nullopt);
}

TEST(CellStates, FailureAndRegressionAreData) {
  std::set<std::string> failing;
  for (const CellStateInfo& state : cell_states()) {
    if (state.is_failure) failing.insert(std::string(state.name));
  }
  EXPECT_EQ(failing, (std::set<std::string>{"failed", "refused", "unexpected_pass", "crashed", "timed_out", "harness_error"}));
  EXPECT_TRUE(is_regression(CellState::Passed, CellState::Failed));
  EXPECT_TRUE(is_regression(CellState::ExpectedFail, CellState::UnexpectedPass));
  EXPECT_FALSE(is_regression(CellState::Passed, CellState::Skipped));
  EXPECT_FALSE(is_regression(CellState::Skipped, CellState::Failed));  // it proved nothing before
  EXPECT_FALSE(is_regression(CellState::Unsupported, CellState::Crashed));
  // Issue 37.4: on the leg that writes the committed card (pinned), a row that stops being tested
  // is a regression too: an xfail added to a passing row, a requires: the pinned version fails.
  EXPECT_TRUE(is_regression(CellState::Passed, CellState::ExpectedFail, /*pinned_leg=*/true));
  EXPECT_TRUE(is_regression(CellState::Passed, CellState::Unsupported, true));
  EXPECT_TRUE(is_regression(CellState::ExpectedFail, CellState::Unsupported, true));
  EXPECT_TRUE(is_regression(CellState::Passed, CellState::Failed, true));
  EXPECT_FALSE(is_regression(CellState::Passed, CellState::ExpectedFail, false));  // another leg: drift
  EXPECT_FALSE(is_regression(CellState::Passed, CellState::Unsupported, false));
  EXPECT_FALSE(is_regression(CellState::Unsupported, CellState::Unsupported, true));  // the baseline had it
  EXPECT_FALSE(is_regression(CellState::ExpectedFail, CellState::Passed, true));
  EXPECT_FALSE(is_regression(CellState::Passed, CellState::Skipped, true));  // this run's features, not the row
  EXPECT_EQ(cell_exit_code(CellState::Passed), 0);
  EXPECT_EQ(cell_exit_code(CellState::ExpectedFail), 0);
  EXPECT_EQ(cell_exit_code(CellState::Skipped), 77);
  EXPECT_EQ(cell_exit_code(CellState::Unsupported), 77);
  EXPECT_EQ(cell_exit_code(CellState::UnexpectedPass), 1);
}

// A backend written here: one feature always on, one off, and framework "toyish" at 1.5.
BackendSpec test_backend() {
  return {
      .name = "test",
      .distribution = "toyish",
      .features = {{.name = "always"}, {.name = "opt_in", .enabled = [] { return false; }, .how_to_enable = "set TEST_OPT_IN=1"}},
      .probe = [] { return FrameworkProbe{.version = "1.5"}; }};
}

class RowKeys : public ::testing::Test {
 protected:
  RosterRow load(const std::string& keys) {
    path_ = std::filesystem::temp_directory_path() / ("cell_model_test_" + std::to_string(::getpid()) + ".yaml");
    std::ofstream(path_) << "rows:\n  - id: r\n    family: config_built\n    inputs: {x: [1.0]}\n    forward: x\n" << keys;
    return load_roster(path_.string(), roster_vocabulary(test_backend())).rows.at(0);
  }
  void expect_error(const std::string& keys, int line, const std::string& needle) {
    try {
      load(keys);
      FAIL() << "no error for " << keys;
    } catch (const RosterError& error) {
      EXPECT_EQ(error.where().line, line) << error.what();
      EXPECT_NE(std::string(error.what()).find(needle), std::string::npos) << error.what();
    }
  }
  void TearDown() override { std::filesystem::remove(path_); }
  std::filesystem::path path_;
};

TEST_F(RowKeys, RequiresNamesDeclaredFeaturesAndVersionRanges) {
  const RosterRow row = load("    requires: [always, 'toyish>=1.0,<2']\n    xfail: a known limit\n");
  ASSERT_EQ(row.requirements.size(), 2u);
  EXPECT_EQ(row.requirements[0].feature, "always");
  EXPECT_EQ(row.requirements[1].version_range, ">=1.0,<2");
  EXPECT_EQ(row.xfail, "a known limit");
  expect_error("    requires: [bf16]\n", 6, "neither a feature the test backend declares (always or opt_in)");
  expect_error("    requires: ['toyish>=one']\n", 6, "is not a version range");
  expect_error("    requires: bf16\n", 6, "requires must be a list");
  expect_error("    xfail: ''\n", 6, "xfail needs a reason");
  expect_error("    xfail: [a]\n", 6, "xfail");
}

// A range is read whole when the roster loads: a clause the first one would have short-circuited
// past, or a trailing comma, is this line's error, not a harness error in every later run.
TEST_F(RowKeys, AVersionRangeIsReadWholeAtLoadTime) {
  expect_error("    requires: ['toyish>=1.0,<']\n", 6, "clause '<' has no version after its operator");
  expect_error("    requires: ['toyish>=1.0,<2,']\n", 6, "empty clause (a trailing or doubled comma)");
  expect_error("    requires: ['toyish>=1.0,,<2']\n", 6, "empty clause");
  expect_error("    requires: ['toyish>=1.0,~2']\n", 6, "has no operator");
  expect_error("    requires: ['toyish>=1.']\n", 6, "cannot read version '1.'");
  // An empty list requires nothing.
  EXPECT_TRUE(load("    requires: []\n").requirements.empty());
}

TEST_F(RowKeys, AnUnknownFamilyOrCapabilityIsALoadTimeError) {
  path_ = std::filesystem::temp_directory_path() / ("cell_model_test_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(path_) << "rows:\n  - id: r\n    family: fuzzing\n    inputs: {x: [1.0]}\n    forward: x\n";
  EXPECT_THROW(load_roster(path_.string(), roster_vocabulary(test_backend())), RosterError);
  std::ofstream(path_) << "rows:\n  - id: r\n    family: capability\n    capability: flies\n    inputs: {x: [1.0]}\n"
                          "    forward: x\n";
  try {
    load_roster(path_.string(), roster_vocabulary(test_backend()));
    FAIL() << "an unknown capability flag loaded";
  } catch (const RosterError& error) {
    EXPECT_EQ(error.where().line, 4);
    for (const auto& [flag, proof] : capability_proofs())
      EXPECT_NE(std::string(error.what()).find(flag), std::string::npos) << error.what();
  }
  // every family a row may name has a cell
  for (const auto& [family, name] : kFamilyNames) EXPECT_TRUE(family_cells().contains(family)) << name;
}

TEST_F(RowKeys, AnUnmetRequirementSkipsOrIsUnsupported) {
  const BackendSpec backend = test_backend();
  EXPECT_EQ(unmet_requirement(backend, load("    requires: [always, 'toyish>=1.0,<2']\n")), std::nullopt);
  const auto off = unmet_requirement(backend, load("    requires: [opt_in]\n"));
  ASSERT_TRUE(off);
  EXPECT_EQ(off->state, CellState::Skipped);
  EXPECT_NE(off->message.find("set TEST_OPT_IN=1"), std::string::npos) << off->message;
  const auto later = unmet_requirement(backend, load("    requires: ['toyish>=2']\n"));
  ASSERT_TRUE(later);
  EXPECT_EQ(later->state, CellState::Unsupported);
  EXPECT_NE(later->message.find("installed: 1.5"), std::string::npos) << later->message;
  // The cell is decided without making the backend's protocol (this spec has none).
  EXPECT_EQ(run_cell(backend, load("    requires: [opt_in]\n")).state, CellState::Skipped);
}

TEST_F(RowKeys, XfailTurnsAFailureIntoExpectedAndAPassIntoAFailure) {
  const RosterRow row = load("    xfail: the backend cannot do it yet\n");
  CellResult result = CellResult::of(row);
  result.state = CellState::Failed;
  apply_xfail(row, result);
  EXPECT_EQ(result.state, CellState::ExpectedFail);
  result.state = CellState::Passed;
  apply_xfail(row, result);
  EXPECT_EQ(result.state, CellState::UnexpectedPass);
  EXPECT_NE(result.message.find("remove its xfail"), std::string::npos) << result.message;
  result.state = CellState::Crashed;  // a crash is not the known limit
  apply_xfail(row, result);
  EXPECT_EQ(result.state, CellState::Crashed);
}

// Two cells, one failing two checks with text a format must escape.
std::vector<CellResult> sample_cells() {
  CellResult passed{.id = "good", .family = "config_built", .roster = {"r.yaml", 3}, .state = CellState::Passed};
  passed.checks = {{"capture", true, "3 ops"}};
  CellResult failed{.id = "bad", .family = "refusal", .roster = {"r.yaml", 9}, .state = CellState::Failed};
  failed.checks = {{"refusal_code", false, "got <none> & | more"}, {"rng_unchanged", false, "seed moved"}};
  failed.message = "refusal_code: got <none> & | more";
  return {passed, failed};
}

std::string report(const std::string& format) {
  std::ostringstream out;
  const auto reporter = make_reporter(format, out);
  const std::vector<CellResult> cells = sample_cells();
  for (std::size_t i = 0; i < cells.size(); ++i) reporter->cell_finished(cells[i], 1.5, i + 1, cells.size());
  Scorecard card;
  card.backend = "test";
  card.summary = summarize(cells);
  reporter->run_finished(card, cells);
  return out.str();
}

TEST(Reporters, ConsoleListsEveryFailingCheck) {
  const std::string text = report("console");
  EXPECT_NE(text.find("[2/2] failed\tbad"), std::string::npos) << text;
  EXPECT_NE(text.find("FAIL refusal_code: got <none>"), std::string::npos) << text;
  EXPECT_NE(text.find("FAIL rng_unchanged: seed moved"), std::string::npos) << text;
  EXPECT_NE(text.find("summary: 2 cells, 1 failed, 1 passed"), std::string::npos) << text;
}

TEST(Reporters, JunitEscapesAndCountsFailures) {
  const std::string xml = report("junit");
  EXPECT_NE(xml.find(R"(<testsuite name="refusal" tests="1" failures="1" skipped="0">)"), std::string::npos) << xml;
  EXPECT_NE(xml.find("got &lt;none&gt; &amp; | more"), std::string::npos) << xml;
  EXPECT_EQ(xml.find("<none>"), std::string::npos) << xml;
  EXPECT_NE(xml.find(R"(<testcase classname="config_built" name="good" file="r.yaml" line="3" time="1.5"/>)"), std::string::npos)
      << xml;
}

TEST(Reporters, MarkdownKeepsEachCellOnOneTableRow) {
  const std::string text = report("markdown");
  EXPECT_NE(text.find("| bad | refusal | failed | r.yaml:9 | refusal\\_code: got &lt;none&gt; &amp; \\| more<br>rng\\_unchanged"),
            std::string::npos)
      << text;
}

// A cell whose message and output hold what a forward can print: markup, a script link, bytes that
// are not UTF-8, characters XML 1.0 has no place for, and a terminal escape sequence.
std::vector<CellResult> hostile_cells() {
  CellResult cell{.id = "hostile", .family = "config_built", .roster = {"r\xff\xfe.yaml", 4}, .state = CellState::Failed};
  cell.message =
      "<script>alert(1)</script> <img src=x onerror=alert(1)> [click](javascript:alert(1)) <javascript:alert(2)> "
      "\xff\xfe bytes \xEF\xBF\xBE\xEF\xBF\xBF noncharacters \x01 \x1b]0;pwned\x07 title";
  cell.checks = {{"output_matches", false, cell.message}};
  cell.output = "--- cell stdout ---\n\xff\xfe printed\n\x1b[2J";
  return {cell};
}

std::string hostile_report(const std::string& format) {
  std::ostringstream out;
  const auto reporter = make_reporter(format, out);
  const std::vector<CellResult> cells = hostile_cells();
  reporter->cell_finished(cells[0], 1.0, 1, 1);
  Scorecard card;
  card.backend = "test";
  card.summary = summarize(cells);
  reporter->run_finished(card, cells);
  return out.str();
}

TEST(Reporters, MarkdownRendersNoMarkupOrLinkFromAMessage) {
  const std::string text = hostile_report("markdown");
  for (const char* raw : {"<script", "<img", "](javascript:", "<javascript:", "\x1b", "\xff"})
    EXPECT_EQ(text.find(raw), std::string::npos) << raw << " in:\n" << text;
  EXPECT_NE(text.find("&lt;script&gt;"), std::string::npos) << text;
  EXPECT_NE(text.find("\\[click\\]\\(javascript:alert\\(1\\)\\)"), std::string::npos) << text;
}

TEST(Reporters, JunitIsWellFormedXmlWhateverAMessageHolds) {
  const std::string xml = hostile_report("junit");
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("cell_model_test_" + std::to_string(::getpid()) + ".xml");
  std::ofstream(file, std::ios::binary) << xml;
  // A real XML 1.0 parser (expat, through the venv's Python) reads it, or names the offending byte.
  const ChildOutcome parsed =
      run_child({configured_venv() + "/bin/python", "-c",
                 "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1]); print('parsed')", file.string()},
                std::chrono::seconds(60));
  std::filesystem::remove(file);
  EXPECT_EQ(parsed.exit_code, 0) << parsed.stderr_text << "\n" << xml;
  EXPECT_NE(parsed.stdout_text.find("parsed"), std::string::npos) << parsed.stderr_text;
}

TEST(Reporters, ConsoleAndJsonShowHostileTextWithoutActingOnIt) {
  const std::string text = hostile_report("console");
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(text.find('\x07'), std::string::npos) << text;
  EXPECT_NE(text.find("\\x1b]0;pwned\\x07 title"), std::string::npos) << text;
  const nlohmann::json card = nlohmann::json::parse(hostile_report("json"));  // valid UTF-8: it parses
  EXPECT_EQ(card["backend"], "test");
}

// The tinygrad backend's opt-in `slow` feature: off unless the run enables it, like `ecosystem`.
TEST(Features, TinygradDeclaresSlowAsAnOptIn) {
  const BackendSpec& tinygrad = backends::spec("tinygrad");
  EXPECT_TRUE(roster_vocabulary(tinygrad).features.contains("slow"));
  ::unsetenv("TORCHLENS_CONFORMANCE_SLOW");
  EXPECT_FALSE(tinygrad.feature_enabled("slow"));
  EXPECT_NE(tinygrad.feature_hint("slow").find("TORCHLENS_CONFORMANCE_SLOW=1"), std::string::npos);
  ::setenv("TORCHLENS_CONFORMANCE_SLOW", "1", 1);
  EXPECT_TRUE(tinygrad.feature_enabled("slow"));
  ::unsetenv("TORCHLENS_CONFORMANCE_SLOW");
}

TEST(Reporters, JsonIsTheCardAloneAndAnUnknownFormatIsNamed) {
  EXPECT_EQ(nlohmann::json::parse(report("json"))["backend"], "test");
  std::ostringstream out;
  try {
    make_reporter("yaml", out);
    FAIL() << "an unknown format made a reporter";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("console, json, junit, markdown"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace tl
