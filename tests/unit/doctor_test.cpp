// Doctor rows with a malformed scorecard: every other row still prints, and the
// backend_scorecard:tinygrad row is `failed` with the reason (never an exception, never a hang).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>

#include "backends/tinygrad/protocol.h"
#include "backends/tinygrad/runtime.h"
#include "harness/backend/backend_registry.h"
#include "harness/backend/python_runtime.h"
#include "harness/report/doctor.h"

namespace tl {
namespace {

namespace fs = std::filesystem;

class DoctorScorecard : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    try {
      // Started and probed here, on the main thread, which holds the interpreter: the rows below,
      // computed on another thread, only read what the probe found.
      python_runtime();
      tinygrad::tinygrad_runtime();
    } catch (const std::exception&) {
    }
  }
  void SetUp() override {
    directory_ = fs::path(::testing::TempDir()) / ("doctor_test_" + std::to_string(::getpid()));
    fs::remove_all(directory_);
    fs::create_directories(directory_);
  }
  void TearDown() override { fs::remove_all(directory_); }

  // The rows for the scorecard at `path`; a doctor that blocks on a FIFO is unblocked after a while
  // (by opening the FIFO's other end) and reported as a failure.
  std::vector<DoctorRow> rows_for(const fs::path& path) const {
    auto rows = std::async(std::launch::async, [&] { return doctor_rows(backends::spec("tinygrad"), path.string()); });
    if (rows.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
      const int writer = ::open(path.c_str(), O_WRONLY | O_NONBLOCK);
      if (writer >= 0) ::close(writer);
      rows.wait();
      ADD_FAILURE() << "the doctor hung on " << path;
    }
    return rows.get();
  }

  // Every row is there, and the scorecard row failed naming the file and the reason.
  void expect_failed_row(const fs::path& path, const std::string& reason) const {
    std::vector<DoctorRow> rows;
    try {
      rows = rows_for(path);
    } catch (const std::exception& error) {
      FAIL() << path << ": the doctor threw: " << error.what();
    }
    std::set<std::string> names;
    for (const DoctorRow& row : rows) names.insert(row.name);
    for (const char* name : {"venv", "python", "tinygrad", "device", "dep:nlohmann_json", "backend_scorecard:tinygrad"})
      EXPECT_TRUE(names.contains(name)) << path << ": no " << name << " row";
    ASSERT_FALSE(rows.empty());
    const DoctorRow& row = rows.back();
    ASSERT_EQ(row.name, "backend_scorecard:tinygrad");
    EXPECT_EQ(row.status, DoctorStatus::Failed) << row.value;
    EXPECT_NE(row.value.find(path.string()), std::string::npos) << row.value;
    EXPECT_NE(row.value.find(reason), std::string::npos) << row.value;
    EXPECT_FALSE(row.hint.empty());
  }

  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(directory_ / name) << text;
    return directory_ / name;
  }

  fs::path directory_;
};

TEST_F(DoctorScorecard, AMalformedScorecardFailsItsRowOnly) {
  expect_failed_row(write("summary.json", R"({"summary": 5})"), "has no 'schema_version'");
  expect_failed_row(write("array.json", "[]"), "must be a JSON object");
  nlohmann::json card = nlohmann::json::parse(std::ifstream(std::string(TL_SOURCE_DIR) + "/scorecards/tinygrad/scorecard.json"));
  card["summary"] = 5;
  expect_failed_row(write("summary5.json", card.dump()), "summary must be an object");
  card["summary"] = nlohmann::json::object();
  card["cells"][0]["state"] = "great";
  expect_failed_row(write("state.json", card.dump()), "has state 'great'");
  // Deep enough that copying it recursively overflowed the stack.
  expect_failed_row(
      write("deep.json", R"({"summary": {"by_family": )" + std::string(1000000, '[') + std::string(1000000, ']') + "}}"),
      "nests deeper than 64 levels");
  expect_failed_row(write("text.json", "not json"), "is not JSON");
  const fs::path fifo = directory_ / "fifo.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_failed_row(fifo, "is not a regular file");
}

TEST_F(DoctorScorecard, AMissingScorecardIsMissing) {
  const std::vector<DoctorRow> rows = rows_for(directory_ / "absent.json");
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows.back().status, DoctorStatus::Missing);
}

}  // namespace
}  // namespace tl
