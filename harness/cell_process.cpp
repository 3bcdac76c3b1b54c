#include "harness/cell_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

namespace tl {

ChildOutcome run_child(const std::vector<std::string>& argv, std::chrono::seconds limit) {
  int out_pipe[2];
  int err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe: " + std::string(std::strerror(errno)));
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork: " + std::string(std::strerror(errno)));
  if (pid == 0) {
    setpgid(0, 0);  // its own group, so a time-out kills what it started too
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    execv(args[0], args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  ChildOutcome outcome;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_pipes = 2;
  char buffer[65536];
  while (open_pipes > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      outcome.timed_out = true;
      kill(-pid, SIGKILL);
      break;
    }
    if (poll(fds, 2, static_cast<int>(std::min<long long>(left, 1000))) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      const ssize_t got = read(fds[i].fd, buffer, sizeof buffer);
      if (got > 0) {
        (i == 0 ? outcome.stdout_text : outcome.stderr_text).append(buffer, static_cast<std::size_t>(got));
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_pipes;
      }
    }
  }
  for (const pollfd& fd : fds) {
    if (fd.fd >= 0) close(fd.fd);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  return outcome;
}

CellResult cell_result_from_child(const ChildOutcome& outcome, CellResult identity) {
  auto tail = [](const std::string& text) { return text.size() > 2000 ? "..." + text.substr(text.size() - 2000) : text; };
  if (outcome.timed_out) {
    identity.state = CellState::TimedOut;
    identity.message = "the cell did not finish within its time limit";
    return identity;
  }
  if (outcome.signal != 0) {
    identity.state = CellState::Crashed;
    identity.message = "the cell process died of signal " + std::to_string(outcome.signal) + " (" + strsignal(outcome.signal) +
                       ")\n" + tail(outcome.stderr_text);
    return identity;
  }
  // Under ASan/UBSan a crash is caught by the sanitizer, which reports and exits instead of dying
  // of the signal: that is a crash all the same.
  if (outcome.exit_code != 0 && outcome.stderr_text.find("Sanitizer") != std::string::npos) {
    identity.state = CellState::Crashed;
    identity.message = "the cell process was stopped by a sanitizer (exit code " + std::to_string(outcome.exit_code) + ")\n" +
                       tail(outcome.stderr_text);
    return identity;
  }
  const auto last_line_start =
      outcome.stdout_text.find_last_of('\n', outcome.stdout_text.size() >= 2 ? outcome.stdout_text.size() - 2 : 0);
  const std::string last_line = outcome.stdout_text.substr(last_line_start == std::string::npos ? 0 : last_line_start + 1);
  try {
    return CellResult::from_json(nlohmann::json::parse(last_line));
  } catch (const std::exception& error) {
    identity.state = CellState::HarnessError;
    identity.message = "the cell process exited with code " + std::to_string(outcome.exit_code) + " without a readable result (" +
                       error.what() + ")\n" + tail(outcome.stderr_text);
    return identity;
  }
}

}  // namespace tl
