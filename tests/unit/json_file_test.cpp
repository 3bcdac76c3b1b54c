// Reading user files (harness/json_file.h): regular files only, never blocking on a FIFO, within a
// byte budget, and JSON within a nesting-depth budget, every failure an InputFileError naming the
// file. No Python is needed.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "harness/io/json_file.h"

namespace tl {
namespace {

namespace fs = std::filesystem;

class JsonFile : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::path(::testing::TempDir()) / ("json_file_" + std::to_string(::getpid()));
    fs::remove_all(directory_);
    fs::create_directories(directory_);
  }
  void TearDown() override { fs::remove_all(directory_); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(directory_ / name, std::ios::binary) << text;
    return (directory_ / name).string();
  }
  static InputFileError::Kind failure(const std::function<void()>& read, const std::string& needle) {
    try {
      read();
    } catch (const InputFileError& error) {
      EXPECT_NE(std::string(error.what()).find(needle), std::string::npos) << error.what();
      return error.kind();
    }
    ADD_FAILURE() << "no InputFileError (expected: " << needle << ")";
    return InputFileError::Kind::Unreadable;
  }

  fs::path directory_;
};

TEST_F(JsonFile, ReadsARegularFileOrASymlinkToOne) {
  const std::string path = write("card.json", R"({"a": [1, {"b": null}]})");
  EXPECT_EQ(read_json_file(path)["a"][1], nlohmann::json({{"b", nullptr}}));
  fs::create_symlink(path, directory_ / "link.json");
  EXPECT_EQ(read_json_file((directory_ / "link.json").string())["a"][0], 1);
}

TEST_F(JsonFile, RefusesWhatIsNotARegularFile) {
  const fs::path fifo = directory_ / "fifo.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Opened without blocking: no writer needed for the refusal to come at once.
  EXPECT_EQ(failure([&] { read_json_file(fifo.string()); }, fifo.string() + ": is not a regular file"),
            InputFileError::Kind::NotRegular);
  EXPECT_EQ(failure([&] { read_json_file(directory_.string()); }, "is not a regular file"), InputFileError::Kind::NotRegular);
  EXPECT_EQ(failure([&] { read_json_file((directory_ / "absent.json").string()); }, "absent.json: cannot be opened"),
            InputFileError::Kind::Missing);
}

TEST_F(JsonFile, KeepsToTheByteBudget) {
  const std::string path = write("big.json", "[" + std::string(100, ' ') + "]");
  EXPECT_EQ(failure([&] { read_json_file(path, 50); }, "big.json: is 102 bytes, more than the 50"),
            InputFileError::Kind::TooLarge);
  EXPECT_TRUE(read_json_file(path, 102).is_array());
}

TEST_F(JsonFile, KeepsToTheDepthBudget) {
  const auto nested = [](int depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  EXPECT_NO_THROW(parse_json(nested(kMaxJsonDepth), "t"));
  EXPECT_EQ(failure([&] { parse_json(nested(kMaxJsonDepth + 1), "t"); }, "t: nests deeper than 64 levels"),
            InputFileError::Kind::TooDeep);
  std::string objects;
  for (int i = 0; i < 65; ++i) objects += "{\"a\":";
  objects += "1" + std::string(65, '}');
  EXPECT_EQ(failure([&] { parse_json(objects, "t"); }, "nests deeper"), InputFileError::Kind::TooDeep);
  // A million levels: refused at level 65, long before anything recurses over it.
  const std::string path = write("deep.json", nested(1000000));
  EXPECT_EQ(failure([&] { read_json_file(path); }, "deep.json: nests deeper than 64 levels"), InputFileError::Kind::TooDeep);
  EXPECT_EQ(failure([&] { parse_json("{not json", "t"); }, "t: is not JSON"), InputFileError::Kind::NotJson);
}

TEST(JsonExcerpt, ShortensAndNamesKinds) {
  EXPECT_EQ(json_excerpt(nlohmann::json(5)), "5");
  EXPECT_EQ(json_excerpt(nlohmann::json::array()), "a JSON array");
  // The cut at 37 characters falls inside the two bytes of the \u00e9.
  const std::string shown = json_excerpt(nlohmann::json(std::string(35, 'a') + "\xc3\xa9" + std::string(10, 'b')));
  EXPECT_LE(shown.size(), 40u);
  EXPECT_NO_THROW(nlohmann::json(shown).dump());  // never cut inside a UTF-8 character
}

}  // namespace
}  // namespace tl
