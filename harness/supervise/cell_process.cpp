#include "harness/supervise/cell_process.h"

#include "harness/io/json_file.h"
#include "harness/io/text_escape.h"
#include "harness/supervise/channel_key.h"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <pthread.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace tl {
namespace {

// What a cell's stdout and stderr keep each (head and tail), shown with a failure.
constexpr std::size_t kCellOutputBudget = 64 << 10;

std::string trimmed(std::string text, std::size_t limit = 300) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  return text.size() > limit ? text.substr(0, limit) + "..." : text;
}

// One line saying why a process ended without a result: tlconform's own error line when there is
// one, else the last line it wrote (a Python traceback ends with the error).
std::string cause_line(const ChildOutcome& outcome) {
  std::istringstream lines(outcome.stderr_text);
  std::string line;
  std::string last;
  while (std::getline(lines, line)) {
    if (line.starts_with("tlconform: ")) return trimmed(line);
    if (!trimmed(line).empty()) last = line;
  }
  if (last.empty()) {
    std::istringstream out(outcome.stdout_text);
    while (std::getline(out, line)) {
      if (!trimmed(line).empty()) last = line;
    }
  }
  return trimmed(last);
}

// What the cell printed, as text every writer takes: bytes that are not UTF-8 become U+FFFD, so a
// forward's stray byte cannot stop a record, a card or a report being written.
std::string captured_output(const ChildOutcome& outcome) {
  std::string text;
  if (!trimmed(outcome.stdout_text).empty()) text += "--- cell stdout ---\n" + trimmed(outcome.stdout_text, SIZE_MAX) + "\n";
  if (!trimmed(outcome.stderr_text).empty()) text += "--- cell stderr ---\n" + trimmed(outcome.stderr_text, SIZE_MAX) + "\n";
  return utf8_repaired(text);
}

// What the channel said: the phase reached and the result, from signed lines only. A line that is
// not signed with the cell's key was written by something else in the cell process (its forward):
// it is kept, for the verdict, and nothing after it is believed.
struct ChannelReport {
  std::string phase;
  std::optional<CellResult> result;
  std::string unreadable;     // why a signed line could not be read
  std::string foreign;        // the first line not signed with the key
  bool after_result = false;  // a signed line came after the result: more than one process reported
};

ChannelReport read_channel(const ChildOutcome& outcome) {
  ChannelReport report;
  std::istringstream lines(outcome.result_text);
  for (std::string line; std::getline(lines, line);) {
    const std::optional<std::string> payload = verified_payload(outcome.result_key, line);
    if (!payload) {
      report.foreign = line;
      break;
    }
    if (report.result) {
      report.after_result = true;
      break;
    }
    try {
      const nlohmann::json entry = parse_json(*payload, "the cell's result channel");
      if (entry.contains("phase")) {
        report.phase = entry.at("phase").get<std::string>();
      } else {
        report.result = CellResult::from_json(entry.at("result"));
      }
    } catch (const std::exception& error) {
      report.unreadable = error.what();
      break;
    }
  }
  return report;
}

}  // namespace

std::uint64_t default_cell_memory(int jobs) {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024 / 10 * 8 / static_cast<std::uint64_t>(std::max(1, jobs));
  }
  return 0;  // unknown: no limit rather than a guessed one
}

ChildCommand cell_child_command(std::vector<std::string> argv, const CellLimits& limits) {
  ChildCommand command;
  command.argv = std::move(argv);
  command.time_limit = limits.time;
  command.memory_limit = limits.memory;
  command.result_channel = true;
  command.output_budget = kCellOutputBudget;
  return command;
}

// One decision table, read top to bottom: the first matching outcome (memory, time, signal,
// sanitizer, a foreign line, no result, wrong id, a self-contradicting result, inconsistent exit
// code) decides the state.
CellResult cell_result_from_child(const ChildOutcome& outcome, CellResult identity, const CellLimits& limits,
                                  const std::string& xfail) {
  const ChannelReport channel = read_channel(outcome);
  const std::optional<CellResult>& reported = channel.result;
  const std::string during = channel.phase.empty() ? "before it reached its first phase" : "during phase " + channel.phase;
  const std::string output = captured_output(outcome);
  CellResult& cell = identity;
  cell.output = output;
  if (outcome.memory_exceeded) {
    cell.state = CellState::Failed;
    cell.message = "memory limit: the cell's processes held " + human_bytes(outcome.peak_resident) + ", over the limit of " +
                   human_bytes(limits.memory) + " per cell (--memory), " + during;
    // xfail names a limit of the backend; the memory limit is this run's (--memory, --jobs), so
    // an expected failure never hides it.
    if (!xfail.empty()) cell.message += " (the row's xfail does not cover it: the memory limit is the run's, not the backend's)";
  } else if (outcome.timed_out) {
    cell.state = CellState::TimedOut;
    cell.message =
        "timed out: still running after the " + std::to_string(limits.time.count()) + " s limit (--timeout), " + during;
  } else if (outcome.signal != 0) {
    cell.state = CellState::Crashed;
    cell.message = "crashed: the cell process died of signal " + std::to_string(outcome.signal) + " (" +
                   strsignal(outcome.signal) + ") " + during;
  } else if (outcome.exit_code != 0 && outcome.stderr_text.find("Sanitizer") != std::string::npos) {
    // Under ASan/UBSan a crash is caught by the sanitizer, which reports and exits instead of dying
    // of the signal: that is a crash all the same.
    cell.state = CellState::Crashed;
    cell.message =
        "crashed: a sanitizer stopped the cell process (exit code " + std::to_string(outcome.exit_code) + ") " + during;
  } else if (!channel.foreign.empty()) {
    cell.state = CellState::HarnessError;
    cell.message =
        "the cell's result channel carries a line the cell's harness did not sign (something in the cell "
        "process, such as its forward, wrote to descriptor " +
        std::to_string(kResultFd) + "), " + during + ": " + utf8_repaired(trimmed(channel.foreign, 120));
  } else if (channel.after_result) {
    // The harness writes one result, last. More came from a process that kept the channel and its
    // key (a fork of the cell that ran on): no line of it is the cell's own verdict.
    cell.state = CellState::HarnessError;
    cell.message =
        "the cell's result channel carries more than one result, or a line after its result (a process "
        "forked from the cell kept the channel and ran on): the cell's verdict is not known";
  } else if (!reported) {
    cell.state = CellState::HarnessError;
    cell.message = "the cell process exited with code " + std::to_string(outcome.exit_code) + " without reporting a result " +
                   during +
                   (channel.unreadable.empty() ? "" : " (its result line is unreadable: " + trimmed(channel.unreadable) + ")");
    const std::string cause = cause_line(outcome);
    if (!cause.empty()) cell.message += ": " + cause;
  } else if (reported->id != identity.id) {
    cell.state = CellState::HarnessError;
    cell.message = "the cell process reported a result for '" + trimmed(reported->id, 120) + "', not '" + identity.id + "'";
  } else if (const std::optional<std::string> contradiction = reported->contradiction()) {
    cell.state = CellState::HarnessError;
    cell.message = "the cell process reported a result that contradicts itself: " + *contradiction;
  } else if (cell_exit_code(reported->state) != outcome.exit_code) {
    cell.state = CellState::HarnessError;
    cell.message = std::string("the cell process reported ") + to_string(reported->state) + " but exited with code " +
                   std::to_string(outcome.exit_code);
  } else {
    cell = *reported;
    cell.output = cell.state == CellState::Passed ? "" : output;
    return cell;
  }
  cell.message = utf8_repaired(cell.message);  // it may quote the cell's own output
  return cell;
}

namespace {

// The channel of this process (one per cell process), kept here rather than in the ResultChannel
// handles so the fork handler below can reach it.
struct ChannelState {
  int fd = -1;
  std::string key;
};

ChannelState& channel_state() {
  static ChannelState state;
  return state;
}

// Runs in every process forked from the cell process (a forward's os.fork, multiprocessing): it
// gets neither the descriptor nor the key, so only the process the supervisor started can report.
// Async-signal-safe: close and a wipe of the key's bytes.
void forget_channel_in_fork() {
  ChannelState& state = channel_state();
  if (state.fd >= 0) ::close(state.fd);
  state.fd = -1;
  OPENSSL_cleanse(state.key.data(), state.key.size());
  state.key.clear();
}

}  // namespace

ResultChannel ResultChannel::open(int result_fd, int key_fd) {
  std::string key;
  char buffer[256];
  for (;;) {
    const ssize_t got = ::read(key_fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    key.append(buffer, static_cast<std::size_t>(got));
    if (key.size() > 1024) break;  // far more than a key: stop reading, and refuse it below
  }
  ::close(key_fd);
  if (key.empty() || key.size() > 1024) {
    throw std::runtime_error("no key for the result channel on descriptor " + std::to_string(key_fd) +
                             " (tlconform run and cell --isolate hand one over)");
  }
  ::fcntl(result_fd, F_SETFD, FD_CLOEXEC);  // a process the forward starts does not inherit the channel
  static const int registered = ::pthread_atfork(nullptr, nullptr, forget_channel_in_fork);
  if (registered != 0) throw std::runtime_error("cannot keep the result channel from forks of the cell (pthread_atfork)");
  ChannelState& state = channel_state();
  state.fd = result_fd;
  state.key = std::move(key);
  OPENSSL_cleanse(buffer, sizeof buffer);
  return ResultChannel();
}

void ResultChannel::line(const std::string& text) const {
  const ChannelState& state = channel_state();
  if (state.fd < 0 || state.key.empty()) {
    throw std::runtime_error("this process has no result channel: it was forked from the cell process, which alone reports");
  }
  const std::string data = signed_line(state.key, text) + "\n";
  std::size_t written = 0;
  while (written < data.size()) {
    const ssize_t n = ::write(state.fd, data.data() + written, data.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error(std::string("cannot write the cell's result: ") + std::strerror(errno));
    written += static_cast<std::size_t>(n);
  }
}

void ResultChannel::phase(const std::string& name) const { line(json_text(nlohmann::json{{"phase", name}})); }

void ResultChannel::result(const CellResult& result) const { line(json_text(nlohmann::json{{"result", result.to_json()}})); }

}  // namespace tl
