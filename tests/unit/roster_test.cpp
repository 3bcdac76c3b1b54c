// The roster loader: the committed rosters load, and every malformed row is an error at file:line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "backends/tinygrad/protocol.h"
#include "harness/backend/backend_registry.h"
#include "harness/cells/conformance.h"
#include "harness/model/trace_options.h"
#include "harness/roster/roster.h"
#include "python_scope.h"
#include "tinygrad_rows.h"

namespace tl {
namespace {

class RosterFile : public ::testing::Test {
 protected:
  std::string write(const std::string& text) {
    path_ = std::filesystem::temp_directory_path() / ("roster_test_" + std::to_string(::getpid()) + "_" +
                                                      ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".yaml");
    std::ofstream(path_) << text;
    return path_.string();
  }
  void TearDown() override { std::filesystem::remove(path_); }

  // Expects loading `text` to fail at `line` with a message containing `needle`.
  void expect_error(const std::string& text, int line, const std::string& needle) {
    const std::string path = write(text);
    try {
      load_roster(path, testing::tinygrad_vocabulary());
      FAIL() << "no error for:\n" << text;
    } catch (const RosterError& error) {
      EXPECT_EQ(error.where().line, line) << error.what();
      EXPECT_NE(std::string(error.what()).find(needle), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find(path + ":" + std::to_string(line)), std::string::npos) << error.what();
    }
  }

  // Expects the committed file `relative` (under the source tree) to fail at `line` with `needle`.
  void expect_file_error(const std::string& relative, int line, const std::string& needle) {
    try {
      load_roster(std::string(TL_SOURCE_DIR) + "/" + relative, testing::tinygrad_vocabulary());
      FAIL() << "no error for " << relative;
    } catch (const RosterError& error) {
      EXPECT_EQ(error.where().line, line) << error.what();
      EXPECT_NE(std::string(error.what()).find(needle), std::string::npos) << error.what();
      EXPECT_EQ(error.where().file, relative) << error.what();
    }
  }

  std::filesystem::path path_;
};

constexpr const char* kGoodRow = R"(rows:
  - id: small
    family: config_built
    inputs:
      x: [[1.0, 2.0], [3.0, 4.0]]
    forward: x + 1
)";

TEST_F(RosterFile, CommittedRostersLoad) {
  for (const char* file : {"config_built.yaml", "random_init.yaml"}) {
    const Roster roster = load_roster(std::string(TL_SOURCE_DIR) + "/rosters/tinygrad/" + file, testing::tinygrad_vocabulary());
    EXPECT_FALSE(roster.rows.empty()) << file;
    EXPECT_EQ(roster.file, std::string("rosters/tinygrad/") + file);
  }
}

TEST_F(RosterFile, ReadsAGoodRow) {
  const Roster roster = load_roster(write(kGoodRow), testing::tinygrad_vocabulary());
  ASSERT_EQ(roster.rows.size(), 1u);
  const RosterRow& row = roster.rows[0];
  EXPECT_EQ(row.id, "small");
  EXPECT_EQ(row.where.line, 2);
  EXPECT_EQ(row.inputs.at(0).shape, (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(row.inputs.at(0).values, (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(row.forward_where.line, 6);
}

// `again:` is the second call's forward, cited at its own line like `forward:`.
TEST_F(RosterFile, AgainIsTheSecondCallsForward) {
  const Roster roster = load_roster(write(R"(rows:
  - id: later
    family: config_built
    inputs:
      x: [1.0, 2.0]
    forward: x + 1
    again: x + 2
)"),
                                    testing::tinygrad_vocabulary());
  ASSERT_EQ(roster.rows.size(), 1u);
  EXPECT_EQ(roster.rows[0].again, "x + 2");
  EXPECT_EQ(roster.rows[0].again_where.line, 7);
  EXPECT_TRUE(load_roster(write(kGoodRow), testing::tinygrad_vocabulary()).rows[0].again.empty());
}

TEST_F(RosterFile, ArangeFillsAShape) {
  const Roster roster = load_roster(write(R"(rows:
  - id: filled
    family: config_built
    inputs:
      x: {shape: [2, 3], arange: {start: 1, step: 0.5}, dtype: float64}
    forward: x
)"),
                                    testing::tinygrad_vocabulary());
  EXPECT_EQ(roster.rows[0].inputs[0].values, (std::vector<double>{1, 1.5, 2, 2.5, 3, 3.5}));
  EXPECT_EQ(roster.rows[0].inputs[0].dtype, "float64");
}

TEST_F(RosterFile, UnknownKeyCitesItsLine) {
  expect_error("rows:\n  - id: a\n    family: config_built\n    inputs: {x: [1.0]}\n    forward: x\n    colour: red\n", 6,
               "unknown key 'colour'");
}

TEST_F(RosterFile, DuplicateIdCitesTheSecond) {
  expect_error(std::string(kGoodRow) + "  - id: small\n    family: config_built\n    inputs: {x: [1.0]}\n    forward: x\n", 7,
               "duplicate row id 'small'");
}

TEST_F(RosterFile, DuplicateKeyIsAnError) {
  expect_error("rows:\n  - id: a\n    id: b\n    family: config_built\n    inputs: {x: [1.0]}\n    forward: x\n", 3,
               "duplicate key 'id'");
}

TEST_F(RosterFile, BadValuesAreErrors) {
  expect_error("rows:\n  - id: a\n    family: zoo\n    inputs: {x: [1.0]}\n    forward: x\n", 3, "family 'zoo'");
  expect_error("rows:\n  - id: a\n    family: config_built\n    inputs: {x: [[1.0], [2.0, 3.0]]}\n    forward: x\n", 4, "ragged");
  expect_error("rows:\n  - id: a\n    family: config_built\n    inputs: {x: [one]}\n    forward: x\n", 4, "must be a number");
  expect_error("rows:\n  - id: a\n    family: config_built\n    inputs: {x: {values: [1.0], dtype: float8}}\n    forward: x\n", 4,
               "unknown dtype");
  expect_error("rows:\n  - id: Bad-Id\n    family: config_built\n    inputs: {x: [1.0]}\n    forward: x\n", 2,
               "lower_snake_case");
  expect_error("rows:\n  - id: a\n    family: random_init\n    inputs: {x: [1.0]}\n    forward: x\n", 2, "needs a 'seed'");
  expect_error(
      "rows:\n  - id: a\n    family: config_built\n    inputs: {x: {shape: [100000, 100000], arange: {start: 0}}}\n    forward: "
      "x\n",
      4, "inputs.x.shape must be an integer");
  // Absurd sizes are refused before anything is allocated.
  expect_error(
      "rows:\n  - id: a\n    family: config_built\n    inputs: {x: {shape: [1000, 1000, 1000, 1000], arange: {start: 0}}}\n    "
      "forward: x\n",
      4, "elements");
}

// An empty dimension makes no tensor free: a forward can reduce or broadcast over it into a tensor
// as large as the other dimensions say, so they are held to the element cap as if it were 1.
TEST_F(RosterFile, AnEmptyTensorIsHeldToTheCapByItsOtherDimensions) {
  expect_error(
      "rows:\n  - id: a\n    family: config_built\n    inputs:\n      x: {shape: [0, 768, 768], arange: {start: 0}}\n"
      "    forward: x.sum(axis=0)\n",
      5, "inputs.x.shape [0, 768, 768] would hold 589824 elements without its empty dimensions");
  expect_error(
      "rows:\n  - id: a\n    family: config_built\n    inputs:\n      x: {shape: [0, 65536, 9], uniform: {low: 0, high: 1, "
      "seed: 1}}\n    forward: x\n",
      5, "more than 65536");
  const Roster roster = load_roster(
      write("rows:\n  - id: a\n    family: config_built\n    inputs:\n      x: {shape: [2, 0, 256, 128], arange: {start: 0}}\n"
            "    forward: x\n"),
      testing::tinygrad_vocabulary());
  EXPECT_EQ(roster.rows.at(0).inputs.at(0).shape, (std::vector<std::int64_t>{2, 0, 256, 128}));
}

TEST_F(RosterFile, MissingPiecesAreErrors) {
  expect_error("rows:\n  - id: a\n    family: config_built\n    inputs: {x: [1.0]}\n", 2, "needs a 'forward'");
  expect_error("rows:\n  - id: a\n    family: config_built\n    forward: x\n", 2, "at least one entry under 'inputs'");
}

// Found by roster_fuzz: a complex key (`? bias: ...`) is a mapping, not a name.
TEST_F(RosterFile, ANonScalarKeyCitesItsLine) {
  expect_error("rows:\n  - id: a\n    family: config_built\n    ?  bias: [0.0]\n    inputs: {x: [1.0]}\n    forward: x\n", 4,
               "must be a single value");
}

// Issue 12.11: anchors referencing anchors (billion laughs) expand in every walk of the loader. Each
// seed is in fuzz/corpus/roster/; before the budget the first aborted with std::bad_alloc, the
// cycle overflowed the stack and the fan-out loaded 3 million values.
TEST_F(RosterFile, AliasBombUnderLayerArgsIsAnErrorAtTheArgsLine) {
  expect_file_error("fuzz/corpus/roster/regression-alias-bomb-args.yaml", 11, "layers.lin.args holds more than 4096 values");
}

TEST_F(RosterFile, AliasFanOutOfABigTensorIsAnError) {
  expect_file_error("fuzz/corpus/roster/regression-alias-fan-out.yaml", 38, "the roster expands to more than");
}

TEST_F(RosterFile, AliasCycleIsAnError) {
  expect_file_error("fuzz/corpus/roster/regression-alias-cycle.yaml", 6, "inputs.x has more than 32 dimensions");
}

// Aliases in tensor values expand too; the per-tensor element cap stops them (it did before).
TEST_F(RosterFile, AliasBombInTensorValuesStopsAtTheElementCap) {
  std::string text = "rows:\n  - id: a\n    family: config_built\n    inputs:\n      a: &a [1, 1, 1, 1, 1, 1, 1, 1]\n";
  std::string previous = "a";
  for (const char* name : {"b", "c", "d", "e", "f"}) {
    text += std::string("      ") + name + ": &" + name + " [";
    for (int i = 0; i < 8; ++i) text += (i ? ", *" : "*") + previous;
    text += "]\n";
    previous = name;
  }
  text += "    forward: a\n";
  expect_error(text, 10, "inputs.f has more than 65536 elements");
}

TEST_F(RosterFile, DeepNestingIsAnError) {
  const auto nested = [](int depth) { return std::string(depth, '[') + "1" + std::string(depth, ']'); };
  expect_error("rows:\n  - id: a\n    family: config_built\n    inputs: {x: " + nested(40) + "}\n    forward: x\n", 4,
               "inputs.x has more than 32 dimensions");
  std::string many_dims = "[1";
  for (int i = 0; i < 39; ++i) many_dims += ", 1";
  expect_error("rows:\n  - id: a\n    family: config_built\n    inputs: {x: {shape: " + many_dims +
                   "], arange: {start: 0}}}\n    forward: x\n",
               4, "inputs.x.shape has more than 32 dimensions");
  expect_error("rows:\n  - id: a\n    family: random_init\n    seed: 1\n    layers:\n      l: {type: Linear, args: " +
                   nested(20) + "}\n    inputs: {x: [1.0]}\n    forward: x\n",
               6, "layers.l.args is nested more than 16 levels deep");
  // Deeper than yaml-cpp parses: its own error, which named a "bad file".
  expect_error("rows:\n  - id: a\n    family: config_built\n    inputs: {x: " + nested(600) + "}\n    forward: x\n", 4,
               "levels deep");
}

// Issue 12.12: an id names files; 250 characters loaded and then failed with "File name too long".
TEST_F(RosterFile, IdsAreAtMostAHundredCharacters) {
  const std::string row = "\n    family: config_built\n    inputs: {x: [1.0]}\n    forward: x\n";
  expect_error("rows:\n  - id: " + std::string(250, 'a') + row, 2, "id is 250 characters long, more than 100");
  expect_error("rows:\n  - id: " + std::string(101, 'a') + row, 2, "more than 100");
  EXPECT_EQ(
      load_roster(write("rows:\n  - id: " + std::string(100, 'a') + row), testing::tinygrad_vocabulary()).rows.at(0).id.size(),
      100u);
}

// Issue 12.13: two files with the same id both loaded (each file was checked alone).
TEST_F(RosterFile, IdsAreUniqueAcrossFiles) {
  const std::string first = write(kGoodRow);
  const auto second = std::filesystem::path(first).replace_extension(".second.yaml");
  std::ofstream(second) << "rows:\n  - id: other\n    family: config_built\n    inputs: {x: [1.0]}\n    forward: x\n"
                        << "  - id: small\n    family: config_built\n    inputs: {x: [1.0]}\n    forward: x\n";
  try {
    load_rosters({first, second.string()}, testing::tinygrad_vocabulary());
    ADD_FAILURE() << "no error for the same id in two files";
  } catch (const RosterError& error) {
    EXPECT_EQ(error.where().file, second.string()) << error.what();
    EXPECT_EQ(error.where().line, 6) << error.what();
    EXPECT_NE(std::string(error.what()).find("duplicate row id 'small' (first at " + first + ":2)"), std::string::npos)
        << error.what();
  }
  EXPECT_EQ(load_rosters({first}, testing::tinygrad_vocabulary()).at(0).rows.size(), 1u);
  std::filesystem::remove(second);
}

TEST_F(RosterFile, CommittedRostersLoadTogether) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(TL_SOURCE_DIR) + "/rosters/tinygrad")) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  }
  EXPECT_EQ(load_rosters(files, testing::tinygrad_vocabulary()).size(), files.size());
}

// Issue 12.14: option values are checked when the roster loads, at the option's line; unknown
// option names still load (the backend must refuse them).
TEST_F(RosterFile, MalformedOptionValuesAreErrorsAtTheirLine) {
  const auto with_options = [](const std::string& options) {
    return "rows:\n  - id: a\n    family: config_built\n    inputs: {x: [1.0]}\n    options:\n      " + options +
           "\n    forward: x\n";
  };
  for (const char* seed : {"abc", "12abc", "-1", "1.5", "+3", "18446744073709551616"})
    expect_error(with_options(std::string("random_seed: '") + seed + "'"), 6, "random_seed takes an unsigned integer");
  expect_error(with_options("backward_capture: yes"), 6, "backward_capture takes true or false, not 'yes'");
  expect_error(with_options("intermediate_grads: 1"), 6, "intermediate_grads takes true or false");
  const Roster roster =
      load_roster(write(with_options("random_seed: 18446744073709551615\n      layers_to_save: all\n      fastlog: false")),
                  testing::tinygrad_vocabulary());
  EXPECT_EQ(roster.rows.at(0).options.other.at("layers_to_save"), "all");
  EXPECT_EQ(roster.rows.at(0).options.random_seed, "18446744073709551615");
}

// trace_options_from itself is strict: std::stoull took "12abc" as 12 and "-1" as 2^64 - 1.
TEST(TraceOptions, FromIsStrict) {
  for (const char* seed : {"12abc", "-1", "abc", "", " 7", "18446744073709551616"}) {
    EXPECT_THROW(trace_options_from({{"random_seed", seed}}), std::invalid_argument) << "'" << seed << "'";
  }
  EXPECT_THROW(trace_options_from({{"streaming", "True"}}), std::invalid_argument);
  const TraceOptions options = trace_options_from({{"random_seed", "42"}, {"streaming", "true"}, {"layers_to_save", "all"}});
  EXPECT_EQ(options.random_seed, "42");
  EXPECT_TRUE(options.requests.streaming);
  EXPECT_EQ(options.other.at("layers_to_save"), "all");
}

// Issue 12.14: integer tensors are not silently truncated or wrapped, bools are 0/1/true/false.
TEST_F(RosterFile, TensorValuesFitTheirDtype) {
  const auto with_input = [](const std::string& input) {
    return "rows:\n  - id: a\n    family: config_built\n    inputs:\n      x: " + input + "\n    forward: x\n";
  };
  expect_error(with_input("{values: [1.7, -2.5], dtype: int32}"), 5, "int32 values must be whole numbers");
  expect_error(with_input("{dtype: int32, values: [[1, 2], [3, 4.5]]}"), 5, "not 4.5");
  expect_error(with_input("{values: [1, 300], dtype: int8}"), 5, "int8 values must lie in [-128, 127], not 300");
  expect_error(with_input("{values: [-1], dtype: uint8}"), 5, "uint8 values must lie in [0, 255]");
  expect_error(with_input("{values: [0, 2], dtype: bool}"), 5, "bool values are 0, 1, true or false");
  expect_error(with_input("{values: [9007199254740993], dtype: int64}"), 5, "int64 values must lie in");  // read as 2^53
  expect_error(with_input("{values: [1e300], dtype: uint64}"), 5, "uint64 values must lie in [0, 9007199254740991]");
  expect_error(with_input("{shape: [3], arange: {start: 0, step: 0.5}, dtype: int32}"), 5, "element 1 is 0.5");
  expect_error(with_input("{values: [1.0], shape: [1]}"), 5,
               "needs either 'values', or 'shape' with one of 'arange' and 'uniform'");
  const Roster roster =
      load_roster(write("rows:\n  - id: a\n    family: config_built\n    inputs:\n      i: {values: [-128, 127], dtype: int8}\n"
                        "      u: {values: [0, 255], dtype: uint8}\n      b: {values: [true, false, 0, 1], dtype: bool}\n"
                        "      f: {values: [1.5, -2.5], dtype: float16}\n    forward: i\n"),
                  testing::tinygrad_vocabulary());
  EXPECT_EQ(roster.rows.at(0).inputs.at(2).values, (std::vector<double>{1, 0, 0, 1}));
}

// Issue 12.23: expect.validation and expect.outputs as the loader reads them.
TEST_F(RosterFile, ExpectValidationAndOutputs) {
  const auto with_expect = [](const std::string& expect) {
    return "rows:\n  - id: a\n    family: config_built\n    inputs: {x: [1.0]}\n    forward: x, x\n    expect:\n" + expect;
  };
  const Roster roster = load_roster(write(with_expect("      validation: unverified\n      outputs:\n        - {values: [1.0]}\n "
                                                      "       - {values: [[2, 3]], dtype: int32}\n")),
                                    testing::tinygrad_vocabulary());
  const Expectations& expect = roster.rows.at(0).expect;
  EXPECT_EQ(expect.validation, "unverified");
  ASSERT_EQ(expect.outputs.size(), 2u);
  EXPECT_EQ(expect.outputs[1].shape, (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(expect.outputs[1].where.line, 10);
  EXPECT_FALSE(expect.output);
  EXPECT_EQ(load_roster(write(kGoodRow), testing::tinygrad_vocabulary()).rows.at(0).expect.validation, "passed");

  expect_error(with_expect("      output: [1.0]\n      outputs: [{values: [1.0]}]\n"), 8,
               "'output' (the first output) or 'outputs'");
  expect_error(with_expect("      outputs: [{values: [1.0]}]\n      output: [1.0]\n"), 8, "not both");
  expect_error(with_expect("      outputs: [[1.0], [2.0]]\n"), 7, "expect.outputs[0] must be a mapping");
  expect_error(with_expect("      outputs: []\n"), 7, "one entry per output");
  expect_error(with_expect("      validation: failed\n"), 7, "passed (the default) or unverified");
  expect_error(
      "rows:\n  - id: a\n    family: refusal\n    inputs: {x: [1.0]}\n    forward: x\n    expect: {refusal: fastlog_unsupported, "
      "validation: passed}\n",
      6, "refusal rows do not check");
}

TEST_F(RosterFile, MalformedAndEmptyFiles) {
  expect_error("rows:\n  - id: [unclosed\n", 3, "malformed YAML");
  expect_error("", 1, "empty");
}

// Issue 12.23, run as cells against the real tinygrad: a row that expects `unverified` fails when
// validation passes, and every output listed under expect.outputs is compared. (A row that expects
// unverified and gets it is the toy backend's: tinygrad's validation leaves nothing unchecked.)
class ExpectCell : public ::testing::Test {
 protected:
  static CellResult run(const std::string& id) {
    static const Roster roster =
        load_roster(std::string(TL_SOURCE_DIR) + "/tests/unit/data/expect_rows.yaml", testing::tinygrad_vocabulary());
    for (const RosterRow& row : roster.rows) {
      if (row.id == id) return run_cell(backends::spec("tinygrad"), row);
    }
    throw std::runtime_error("no row " + id);
  }
  static const Check& check(const CellResult& result, const std::string& name) {
    for (const Check& candidate : result.checks) {
      if (candidate.name == name) return candidate;
    }
    throw std::runtime_error("no check " + name + " in " + result.to_json().dump());
  }
};

// A forward that computes nothing is checked whole by its ground truth (issue 21: `x.flip(())`).
TEST_F(ExpectCell, AnIdentityForwardPassesOnItsGroundTruth) {
  const CellResult result = run("identity_expects_passed");
  EXPECT_EQ(result.state, CellState::Passed) << result.to_json().dump(2);
  EXPECT_EQ(check(result, "replay_validation").detail.rfind("passed: 0 ops replayed", 0), 0u)
      << check(result, "replay_validation").detail;
}

TEST_F(ExpectCell, ExpectingUnverifiedFailsWhenValidationPasses) {
  const CellResult result = run("validates_but_expects_unverified");
  EXPECT_EQ(result.state, CellState::Failed) << result.to_json().dump(2);
  const Check& validation = check(result, "replay_validation");
  EXPECT_FALSE(validation.passed);
  EXPECT_NE(validation.detail.find("passed: "), std::string::npos) << validation.detail;
  EXPECT_NE(validation.detail.find("the row expects unverified"), std::string::npos) << validation.detail;
}

TEST_F(ExpectCell, EveryListedOutputIsCompared) {
  const CellResult right = run("two_outputs_right");
  EXPECT_EQ(right.state, CellState::Passed) << right.to_json().dump(2);
  EXPECT_TRUE(check(right, "expected_output").passed);

  const CellResult wrong = run("two_outputs_wrong_second");
  EXPECT_EQ(wrong.state, CellState::Failed) << wrong.to_json().dump(2);
  const Check& output = check(wrong, "expected_output");
  EXPECT_FALSE(output.passed);
  EXPECT_NE(output.detail.find("output 1: tests/unit/data/expect_rows.yaml:32"), std::string::npos) << output.detail;

  const CellResult short_list = run("two_outputs_listed_once");
  EXPECT_EQ(short_list.state, CellState::Failed) << short_list.to_json().dump(2);
  EXPECT_NE(check(short_list, "expected_output").detail.find("lists 1 output(s), the forward returned 2"), std::string::npos);
}

// Issue 22.12: each message names the row's own file:line, and the layer that could not be built.
TEST_F(ExpectCell, ARowWithoutExpectCitesItsOwnLine) {
  const CellResult result = run("differs_from_eager_without_expect");
  EXPECT_EQ(result.state, CellState::Failed) << result.to_json().dump(2);
  const std::string detail = check(result, "replay_validation").detail;
  EXPECT_NE(detail.find("(the row expects passed, tests/unit/data/expect_rows.yaml:51)"), std::string::npos) << detail;
}

TEST_F(ExpectCell, ATracebackThroughSetupCitesItsRosterLine) {
  const CellResult result = run("setup_raises");
  EXPECT_NE(result.state, CellState::Passed) << result.to_json().dump(2);
  EXPECT_NE(result.message.find("File \"tests/unit/data/expect_rows.yaml\", line 65"), std::string::npos) << result.message;
}

TEST_F(ExpectCell, ALayerThatCannotBeBuiltNamesItselfAndItsLine) {
  const CellResult result = run("layer_cannot_be_built");
  EXPECT_NE(result.state, CellState::Passed) << result.to_json().dump(2);
  EXPECT_NE(result.message.find("while building layer 'fc' (nn.Linear) of row 'layer_cannot_be_built' at "
                                "tests/unit/data/expect_rows.yaml:72"),
            std::string::npos)
      << result.message;
  EXPECT_NE(result.message.find("backends/tinygrad/python/tl_row_builder.py"), std::string::npos) << result.message;
}

TEST_F(ExpectCell, AFractionalExpectationIsNotTruncatedToAnIntegerOutput) {
  const CellResult result = run("integer_output_expected_fractional");
  EXPECT_EQ(result.state, CellState::Failed) << result.to_json().dump(2);
  EXPECT_FALSE(check(result, "expected_output").passed);
}

}  // namespace
}  // namespace tl

namespace tl {
namespace {

// The layers a tinygrad row may name are exactly the layer constructors tinygrad.nn exports: a
// class or function with a capitalised name defined in tinygrad.nn itself.
TEST(LayerVocabulary, IsEveryLayerTinygradNnExports) {
  const pybind11::dict scope = testing::python_scope(R"PY(
import tinygrad.nn as nn
exported = sorted(n for n, v in vars(nn).items()
                  if n[:1].isupper() and callable(v) and getattr(v, "__module__", "") == "tinygrad.nn")
)PY");
  std::set<std::string> exported;
  for (const auto& name : scope["exported"]) exported.insert(name.cast<std::string>());
  EXPECT_EQ(testing::tinygrad_vocabulary().layer_types, exported);
}

}  // namespace
}  // namespace tl
