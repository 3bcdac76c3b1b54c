#include "harness/report/graphviz.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
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
#include <thread>
#include <vector>

#include "harness/io/atomic_file.h"

namespace tl {
namespace {

namespace fs = std::filesystem;

// dot lays out a few hundred nodes in about a second; far longer means something is wrong.
constexpr std::chrono::seconds kDotTimeLimit{120};
// What of dot's messages an error quotes.
constexpr std::size_t kDotMessageChars = 2000;

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

struct DotRun {
  int status = 0;
  bool timed_out = false;
};

// Runs dot with its messages in `messages` and waits for that one process. Not run_child: its
// supervisor makes the caller a subreaper and kills every other child it has, and the caller may be
// a user's Python process (trace.draw) with children of its own.
DotRun run_dot(const std::vector<std::string>& argv, const fs::path& messages) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, messages.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) throw std::runtime_error("cannot run " + argv[0] + ": " + std::strerror(error));
  DotRun run;
  const auto deadline = std::chrono::steady_clock::now() + kDotTimeLimit;
  while (true) {
    const pid_t done = ::waitpid(pid, &run.status, WNOHANG);
    if (done == pid) return run;
    // Reaped by a SIGCHLD handler of the host: the output file decides.
    if (done < 0 && errno == ECHILD) return run;
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &run.status, 0);
      run.timed_out = true;
      return run;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
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
  const fs::path messages = scratch.path() / "messages.txt";
  write_file_atomically(input.string(), dot_text);
  const DotRun run = run_dot({dot, "-T" + *format, "-o", output.string(), input.string()}, messages);
  if (run.timed_out || !WIFEXITED(run.status) || WEXITSTATUS(run.status) != 0) {
    const std::string why = run.timed_out ? "it ran out of time" : read_whole(messages).substr(0, kDotMessageChars);
    throw std::runtime_error("dot could not draw " + path + ": " + why);
  }
  write_file_atomically(path, read_whole(output));
}

}  // namespace tl
