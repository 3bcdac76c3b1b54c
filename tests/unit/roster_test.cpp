// The roster loader: the committed rosters load, and every malformed row is an error at file:line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "harness/roster.h"

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
      load_roster(path);
      FAIL() << "no error for:\n" << text;
    } catch (const RosterError& error) {
      EXPECT_EQ(error.where().line, line) << error.what();
      EXPECT_NE(std::string(error.what()).find(needle), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find(path + ":" + std::to_string(line)), std::string::npos) << error.what();
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
    const Roster roster = load_roster(std::string(TL_SOURCE_DIR) + "/rosters/tinygrad/" + file);
    EXPECT_FALSE(roster.rows.empty()) << file;
    EXPECT_EQ(roster.file, std::string("rosters/tinygrad/") + file);
  }
}

TEST_F(RosterFile, ReadsAGoodRow) {
  const Roster roster = load_roster(write(kGoodRow));
  ASSERT_EQ(roster.rows.size(), 1u);
  const RosterRow& row = roster.rows[0];
  EXPECT_EQ(row.id, "small");
  EXPECT_EQ(row.where.line, 2);
  EXPECT_EQ(row.inputs.at(0).shape, (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(row.inputs.at(0).values, (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(row.forward_where.line, 6);
}

TEST_F(RosterFile, ArangeFillsAShape) {
  const Roster roster = load_roster(write(R"(rows:
  - id: filled
    family: config_built
    inputs:
      x: {shape: [2, 3], arange: {start: 1, step: 0.5}, dtype: float64}
    forward: x
)"));
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

TEST_F(RosterFile, MissingPiecesAreErrors) {
  expect_error("rows:\n  - id: a\n    family: config_built\n    inputs: {x: [1.0]}\n", 2, "needs a 'forward'");
  expect_error("rows:\n  - id: a\n    family: config_built\n    forward: x\n", 2, "at least one entry under 'inputs'");
}

// Found by roster_fuzz: a complex key (`? bias: ...`) is a mapping, not a name.
TEST_F(RosterFile, ANonScalarKeyCitesItsLine) {
  expect_error("rows:\n  - id: a\n    family: config_built\n    ?  bias: [0.0]\n    inputs: {x: [1.0]}\n    forward: x\n", 4,
               "must be a single value");
}

TEST_F(RosterFile, MalformedAndEmptyFiles) {
  expect_error("rows:\n  - id: [unclosed\n", 3, "malformed YAML");
  expect_error("", 1, "empty");
}

}  // namespace
}  // namespace tl
