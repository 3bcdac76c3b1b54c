#include "harness/graphviz.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "harness/atomic_file.h"
#include "harness/child_supervisor.h"

namespace tl {
namespace {

namespace fs = std::filesystem;

// dot lays out a few hundred nodes in about a second; far longer means something is wrong.
constexpr std::chrono::seconds kDotTimeLimit{120};

// A private temporary directory for dot's input and output, removed with its contents.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    std::string pattern = (fs::temp_directory_path() / "tl-graph-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr)
      throw std::runtime_error("cannot make a temporary directory for dot: " + std::string(std::strerror(errno)));
    path_ = pattern;
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string read_whole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("dot wrote no " + path.filename().string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

}  // namespace

std::optional<std::string> graph_format(const std::string& path) {
  const std::string extension = lowercase(fs::path(path).extension().string());
  if (extension == ".svg" || extension == ".png" || extension == ".pdf") return extension.substr(1);
  if (extension == ".dot" || extension == ".gv") return "dot";
  return std::nullopt;
}

std::string find_dot() {
  const char* search = std::getenv("PATH");
  std::stringstream entries(search != nullptr ? search : "");
  std::string directory;
  while (std::getline(entries, directory, ':')) {
    if (directory.empty()) continue;  // the current directory: never run a program from there
    const fs::path candidate = fs::path(directory) / "dot";
    std::error_code error;
    if (fs::is_regular_file(candidate, error) && ::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  throw GraphvizMissing(
      "Graphviz's dot program is not on PATH: install graphviz to draw pictures (Debian/Ubuntu: apt-get install graphviz; "
      "macOS: brew install graphviz), or give a .dot file name to write the DOT text alone");
}

void write_graph(const std::string& dot_text, const std::string& path) {
  const std::optional<std::string> format = graph_format(path);
  if (!format) throw std::invalid_argument("cannot draw " + path + ": a picture's file name ends in " + kGraphExtensions);
  if (*format == "dot") {
    write_file_atomically(path, dot_text);
    return;
  }
  const std::string dot = find_dot();
  const ScratchDirectory scratch;
  const fs::path input = scratch.path() / "graph.dot";
  const fs::path output = scratch.path() / ("graph." + *format);
  write_file_atomically(input.string(), dot_text);
  const ChildOutcome outcome = run_child({dot, "-T" + *format, "-o", output.string(), input.string()}, kDotTimeLimit);
  if (outcome.exit_code != 0) {
    const std::string why = outcome.timed_out ? "it ran out of time" : outcome.stderr_text;
    throw std::runtime_error("dot could not draw " + path + ": " + why);
  }
  write_file_atomically(path, read_whole(output));
}

}  // namespace tl
