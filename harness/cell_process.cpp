#include "harness/cell_process.h"

#include "harness/json_file.h"

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

std::string captured_output(const ChildOutcome& outcome) {
  std::string text;
  if (!trimmed(outcome.stdout_text).empty()) text += "--- cell stdout ---\n" + trimmed(outcome.stdout_text, SIZE_MAX) + "\n";
  if (!trimmed(outcome.stderr_text).empty()) text += "--- cell stderr ---\n" + trimmed(outcome.stderr_text, SIZE_MAX) + "\n";
  return text;
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

ChildSpec cell_child_spec(std::vector<std::string> argv, const CellLimits& limits) {
  ChildSpec spec;
  spec.argv = std::move(argv);
  spec.time_limit = limits.time;
  spec.memory_limit = limits.memory;
  spec.result_channel = true;
  spec.output_budget = kCellOutputBudget;
  return spec;
}

// One decision table, read top to bottom: the first matching outcome (memory, time, signal,
// sanitizer, no result, wrong id, inconsistent exit code) decides the state.
CellResult cell_result_from_child(const ChildOutcome& outcome, CellResult identity, const CellLimits& limits) {
  // The channel: phase lines, then one result line. A line cut short or garbled ends the reading.
  std::string phase;
  std::optional<CellResult> reported;
  std::string unreadable;
  std::istringstream lines(outcome.result_text);
  for (std::string line; std::getline(lines, line);) {
    try {
      const nlohmann::json entry = parse_json(line, "the cell's result channel");
      if (entry.contains("phase")) {
        phase = entry.at("phase").get<std::string>();
      } else {
        reported = CellResult::from_json(entry.at("result"));
      }
    } catch (const std::exception& error) {
      unreadable = error.what();
      break;
    }
  }
  const std::string during = phase.empty() ? "before it reached its first phase" : "during phase " + phase;
  const std::string output = captured_output(outcome);
  CellResult& cell = identity;
  cell.output = output;
  if (outcome.memory_exceeded) {
    cell.state = CellState::Failed;
    cell.message = "memory limit: the cell's processes held " + human_bytes(outcome.peak_resident) + ", over the limit of " +
                   human_bytes(limits.memory) + " per cell (--memory), " + during;
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
  } else if (!reported) {
    cell.state = CellState::HarnessError;
    cell.message = "the cell process exited with code " + std::to_string(outcome.exit_code) + " without reporting a result " +
                   during + (unreadable.empty() ? "" : " (its result line is unreadable: " + trimmed(unreadable) + ")");
    const std::string cause = cause_line(outcome);
    if (!cause.empty()) cell.message += ": " + cause;
  } else if (reported->id != identity.id) {
    cell.state = CellState::HarnessError;
    cell.message = "the cell process reported a result for '" + trimmed(reported->id, 120) + "', not '" + identity.id + "'";
  } else if (cell_exit_code(reported->state) != outcome.exit_code) {
    cell.state = CellState::HarnessError;
    cell.message = std::string("the cell process reported ") + to_string(reported->state) + " but exited with code " +
                   std::to_string(outcome.exit_code);
  } else {
    cell = *reported;
    cell.output = cell.state == CellState::Passed ? "" : output;
    return cell;
  }
  if (outcome.leftovers_killed != 0) {
    cell.message +=
        "; " + std::to_string(outcome.leftovers_killed) + " process(es) it started were still running and were killed";
  }
  return cell;
}

void ResultChannel::line(const std::string& text) const {
  const std::string data = text + "\n";
  std::size_t written = 0;
  while (written < data.size()) {
    const ssize_t n = ::write(fd_, data.data() + written, data.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error(std::string("cannot write the cell's result: ") + std::strerror(errno));
    written += static_cast<std::size_t>(n);
  }
}

void ResultChannel::phase(const std::string& name) const { line(nlohmann::json{{"phase", name}}.dump()); }

void ResultChannel::result(const CellResult& result) const { line(nlohmann::json{{"result", result.to_json()}}.dump()); }

}  // namespace tl
