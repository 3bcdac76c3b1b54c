// Issue 37.8: SIGTERM or SIGINT to `run` or `scorecard` stops the run cleanly: the signal is passed
// on to the running cells, every cell's processes are killed (a daemon it detached too), and the
// card of the cells that finished is written, marked interrupted; the exit code is 128 + the signal.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli_support.h"
#include "harness/supervise/process_tree.h"

namespace tl {
namespace {

namespace fs = std::filesystem;
using test::scratch;
using test::source_path;

struct Stopped {
  int status = 0;
  std::string stderr_text;
};

// Starts tlconform with `args` (stderr to a file, $TL_TEST_PID_FILE set), waits for `pid_file` to be
// written (the cell's daemon is running), sends `signal`, and waits for tlconform to end.
Stopped stop_with(int signal, std::vector<std::string> args, const std::string& pid_file) {
  const std::string errors = scratch("stderr.txt");
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int out = ::open("/dev/null", O_WRONLY);
    const int err = ::open(errors.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(err, STDERR_FILENO);
    ::setenv("TL_TEST_PID_FILE", pid_file.c_str(), 1);
    args.insert(args.begin(), test::tlconform_path());
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!(fs::exists(pid_file) && fs::file_size(pid_file) > 0) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ::kill(pid, signal);
  Stopped stopped;
  ::waitpid(pid, &stopped.status, 0);
  stopped.stderr_text = test::file_text(errors);
  return stopped;
}

bool running(pid_t pid) {
  const ProcessTree tree = ProcessTree::scan();
  return tree.alive(pid) && !tree.zombie(pid);
}

void expect_interrupted_card(const std::string& card_path, const std::string& signal) {
  ASSERT_TRUE(fs::exists(card_path)) << "no card";
  const nlohmann::json card = nlohmann::json::parse(std::ifstream(card_path));
  ASSERT_EQ(card["cells"].size(), 1U) << card.dump(2);
  EXPECT_EQ(card["cells"][0]["id"], "finishes_first");
  EXPECT_EQ(card["cells"][0]["state"], "passed");
  EXPECT_EQ(card["interrupted"]["signal"], signal) << card.dump(2);
  EXPECT_EQ(card["interrupted"]["unfinished"], nlohmann::json({"runs_until_stopped", "never_starts"})) << card.dump(2);
  EXPECT_EQ(card["summary"]["total"], 1);
}

TEST(Interrupt, SigtermStopsARunAndWritesTheCardOfTheFinishedCells) {
  const std::string card = scratch("interrupted.json");
  const std::string pid_file = scratch("daemon.pid");
  const std::string records = scratch("records");
  const Stopped stopped = stop_with(SIGTERM,
                                    {"run", "--roster", source_path("tests/unit/data/interrupted_rows.yaml"), "--jobs", "1",
                                     "--out", card, "--record", records},
                                    pid_file);
  EXPECT_TRUE(WIFEXITED(stopped.status)) << "killed by signal " << WTERMSIG(stopped.status) << ": " << stopped.stderr_text;
  EXPECT_EQ(WEXITSTATUS(stopped.status), 128 + SIGTERM) << stopped.stderr_text;
  EXPECT_NE(stopped.stderr_text.find("interrupted by SIGTERM"), std::string::npos) << stopped.stderr_text;
  expect_interrupted_card(card, "SIGTERM");
  // The finished cell's record is kept; no manifest says the run finished, so a merge reports the rest missing.
  EXPECT_TRUE(fs::exists(fs::path(records) / "finishes_first.json"));
  EXPECT_FALSE(fs::exists(fs::path(records) / "run-manifest.json"));
  pid_t daemon = 0;
  std::ifstream(pid_file) >> daemon;
  ASSERT_GT(daemon, 0);
  EXPECT_FALSE(running(daemon)) << "the cell's daemon " << daemon << " outlived the run";
  if (running(daemon)) ::kill(daemon, SIGKILL);
}

TEST(Interrupt, SigintStopsAScorecardRunTheSameWay) {
  const std::string card = scratch("interrupted-scorecard.json");
  const std::string pid_file = scratch("daemon-2.pid");
  const Stopped stopped = stop_with(
      SIGINT,
      {"scorecard", "--roster", source_path("tests/unit/data/interrupted_rows.yaml"), "--jobs", "1", "--out", card, "--check"},
      pid_file);
  EXPECT_TRUE(WIFEXITED(stopped.status)) << "killed by signal " << WTERMSIG(stopped.status) << ": " << stopped.stderr_text;
  EXPECT_EQ(WEXITSTATUS(stopped.status), 128 + SIGINT) << stopped.stderr_text;
  expect_interrupted_card(card, "SIGINT");
  // An interrupted card is compared with nothing: the cells it lacks were not run, not lost.
  EXPECT_EQ(stopped.stderr_text.find("REGRESSION"), std::string::npos) << stopped.stderr_text;
  pid_t daemon = 0;
  std::ifstream(pid_file) >> daemon;
  ASSERT_GT(daemon, 0);
  EXPECT_FALSE(running(daemon)) << "the cell's daemon " << daemon << " outlived the run";
  if (running(daemon)) ::kill(daemon, SIGKILL);
}

}  // namespace
}  // namespace tl
