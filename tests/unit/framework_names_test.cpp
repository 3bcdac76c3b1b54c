// harness/ names no framework: no string literal of its code (every message it prints, every name it
// looks up) names a registered backend or its framework; comments may cite one as an example. The
// scan itself is tested on text with a framework named in a literal and in comments.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "harness/backend/backend_registry.h"

namespace tl {
namespace {

struct Literal {
  int line = 0;
  std::string text;
};

// The string literals of C++ source `code` (plain, escaped and raw), skipping comments and
// character literals.
std::vector<Literal> string_literals(const std::string& code) {
  std::vector<Literal> literals;
  int line = 1;
  std::size_t i = 0;
  auto advance_to = [&](std::size_t end) {
    for (; i < end && i < code.size(); ++i) line += code[i] == '\n' ? 1 : 0;
  };
  while (i < code.size()) {
    if (code.compare(i, 2, "//") == 0) {
      advance_to(code.find('\n', i) == std::string::npos ? code.size() : code.find('\n', i));
    } else if (code.compare(i, 2, "/*") == 0) {
      const std::size_t end = code.find("*/", i + 2);
      advance_to(end == std::string::npos ? code.size() : end + 2);
    } else if (code.compare(i, 2, "R\"") == 0 && (i == 0 || !std::isalnum(static_cast<unsigned char>(code[i - 1])))) {
      const std::size_t open = code.find('(', i + 2);
      const std::string close = ")" + code.substr(i + 2, open - i - 2) + "\"";
      const std::size_t end = code.find(close, open);
      literals.push_back({line, code.substr(open + 1, end - open - 1)});
      advance_to(end + close.size());
    } else if (code[i] == '"' || code[i] == '\'') {
      const char quote = code[i];
      const int start = line;
      std::string text;
      for (++i; i < code.size() && code[i] != quote; ++i) {
        if (code[i] == '\\') ++i;
        if (i < code.size()) text += code[i];
      }
      ++i;
      if (quote == '"') literals.push_back({start, text});
    } else {
      advance_to(i + 1);
    }
  }
  return literals;
}

// Whether `text` holds `name` as a word (letters, digits and underscores around it do not count).
bool names(const std::string& text, const std::string& name) {
  std::string lower = text;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t at = lower.find(name); at != std::string::npos; at = lower.find(name, at + 1)) {
    const bool starts = at == 0 || !word_char(lower[at - 1]);
    const bool ends = at + name.size() == lower.size() || !word_char(lower[at + name.size()]);
    if (starts && ends) return true;
  }
  return false;
}

// Every registered backend's name and framework, lower case.
std::vector<std::string> framework_names() {
  std::vector<std::string> found;
  for (const BackendSpec* spec : backends::all()) {
    for (std::string name : {spec->name, spec->distribution}) {
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (std::find(found.begin(), found.end(), name) == found.end()) found.push_back(name);
    }
  }
  return found;
}

TEST(FrameworkNames, TheScanFindsAFrameworkInALiteralNotInAComment) {
  const std::string code =
      "// tinygrad in a comment\n"
      "/* tinygrad in a block\n comment */ const char* quiet = \"a framework's autograd\";\n"
      "const char* loud = \"differs from tinygrad's autograd\";\n"
      "const char* raw = R\"x(TinyGrad (raw))x\";\n"
      "char c = '\"'; const char* after = \"tinygrads\";\n";
  const std::vector<Literal> literals = string_literals(code);
  ASSERT_EQ(literals.size(), 4u);
  EXPECT_FALSE(names(literals[0].text, "tinygrad"));
  EXPECT_TRUE(names(literals[1].text, "tinygrad"));
  EXPECT_EQ(literals[1].line, 4);
  EXPECT_TRUE(names(literals[2].text, "tinygrad"));
  EXPECT_FALSE(names(literals[3].text, "tinygrad"));  // another word
}

TEST(FrameworkNames, HarnessLiteralsNameNoRegisteredFramework) {
  const std::vector<std::string> frameworks = framework_names();
  ASSERT_FALSE(frameworks.empty());
  std::vector<std::string> found;
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(TL_SOURCE_DIR) + "/harness")) {
    const std::string extension = entry.path().extension().string();
    if (extension != ".cpp" && extension != ".h") continue;
    ++files;
    std::ostringstream code;
    code << std::ifstream(entry.path()).rdbuf();
    for (const Literal& literal : string_literals(code.str())) {
      for (const std::string& framework : frameworks) {
        if (names(literal.text, framework))
          found.push_back(entry.path().string() + ":" + std::to_string(literal.line) + ": \"" + literal.text + "\"");
      }
    }
  }
  EXPECT_GT(files, 50u);
  for (const std::string& where : found) ADD_FAILURE() << where << " names a framework";
}

}  // namespace
}  // namespace tl
