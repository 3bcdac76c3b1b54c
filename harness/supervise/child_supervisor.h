// Runs child processes a few at a time, each under a time limit and a memory limit that cover
// everything it starts. Each child runs below a small process of its own, forked from the
// supervisor, that is a child subreaper: whatever the child starts (even forked twice after setsid)
// stays below it, is charged to that child alone, and is killed as soon as the child's own process
// exits; that process then exits as the child did. A child is done when its own process exits, not
// when the last holder of its pipes lets go. The supervising process is made non-dumpable, so a
// child cannot read its memory (the keys of the children running beside it) without CAP_SYS_PTRACE.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tl {

// The descriptors of a child with a result channel (see ChildCommand): it writes its result to the
// first, and reads the key that signs it from the second (cell_process.h).
constexpr int kResultFd = 3;
constexpr int kResultKeyFd = 4;

// A child's time limit unless its command says otherwise: a cell's (run, scorecard and the CTest
// cells, until --timeout says otherwise; the scorecard records the one a run used) and a picture's.
constexpr std::chrono::seconds kDefaultCellTimeout{600};

struct ChildCommand {
  std::vector<std::string> argv;  // argv[0] is an executable path
  std::chrono::seconds time_limit = kDefaultCellTimeout;
  // Resident memory the child and everything it started may hold together; 0 means no limit.
  std::uint64_t memory_limit = 0;
  // The child gets a pipe at kResultFd for its result, apart from its stdout and stderr, and a pipe
  // at kResultKeyFd holding a key made for it as it starts (then end of file), which it reads before
  // it runs anything (ChildOutcome::result_key).
  bool result_channel = false;
  // stdout and stderr are each kept to their first and last bytes within this budget.
  std::size_t output_budget = 1 << 20;
};

struct ChildOutcome {
  int exit_code = -1;  // when the child exited
  int signal = 0;      // when a signal ended it
  bool timed_out = false;
  bool memory_exceeded = false;
  std::uint64_t peak_resident = 0;  // bytes, the child's whole tree, as sampled
  std::string stdout_text;          // head and tail within the budget, a marker where bytes were dropped
  std::string stderr_text;
  std::string result_text;  // what arrived on the result channel (bounded too)
  std::string result_key;   // the key the child was given, made as it started
  double seconds = 0.0;
  // SIGINT or SIGTERM, when it stopped the run before this child finished (or started): the child
  // was killed, or never ran, and nothing else here describes it.
  int interrupted_by = 0;
};

struct SupervisorEvents {
  std::function<void(std::size_t index)> started;
  std::function<void(std::size_t index, const ChildOutcome& outcome)> finished;
  // Every `heartbeat` while children run: their indices and seconds since each started.
  std::function<void(const std::vector<std::pair<std::size_t, double>>& running)> still_running;
  std::chrono::seconds heartbeat{30};
};

// Runs every command, `jobs` at a time; outcomes come back in the commands' order. While it runs, the
// calling process is a subreaper too: what escapes a child's own subreaper (only when that one is
// killed) comes to it, is charged to no other child, and is killed.
// SIGINT and SIGTERM are the run's while it lasts: one stops it. No child starts after it, the
// signal is passed on to each running child (its process group), and after a short grace each
// child's processes are killed; those children, and the ones never started, come back with
// `interrupted_by` set (`finished` is not called for them). The caller decides what to do next.
std::vector<ChildOutcome> run_children(const std::vector<ChildCommand>& commands, int jobs, const SupervisorEvents& events = {});

// The signal that stopped a run of `outcomes`, or 0.
int interrupting_signal(const std::vector<ChildOutcome>& outcomes);

// One child with a time limit and no memory limit. A SIGINT or SIGTERM while it runs ends the
// calling process by that signal, as it would have without the supervisor, once the child is gone.
ChildOutcome run_child(const std::vector<std::string>& argv, std::chrono::seconds limit);

// "512 MiB", "9.0 GiB": bytes for people.
std::string human_bytes(std::uint64_t bytes);

}  // namespace tl
