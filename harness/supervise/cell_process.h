// One cell, one process: the cell reports its phases and its result on a channel of its own (the
// forward may print what it likes), every line signed with a key only the cell's harness code holds
// (channel_key.h: a forward that writes to the channel cannot forge a verdict), and a crash, a hang,
// a memory blow-up or a missing result becomes the cell's state instead of taking the run down.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/cells/cell_result.h"
#include "harness/supervise/child_supervisor.h"

namespace tl {

struct CellLimits {
  std::chrono::seconds time = kDefaultCellTimeout;
  std::uint64_t memory = 0;  // bytes for the cell's whole process tree; 0 means none
};

// The memory a cell may use by default: a share of what the machine has available now, so `jobs`
// cells at their limit still leave room for everything else.
std::uint64_t default_cell_memory(int jobs);

// How the supervisor runs a cell command line (which must take `--result-fd 3 --key-fd 4`, see
// ResultChannel); the supervisor makes the key for its channel as it starts it.
ChildCommand cell_child_command(std::vector<std::string> argv, const CellLimits& limits);

// The cell's result from its finished child. `identity` names the cell (id, family, roster line);
// a line on the channel the cell did not sign, a second result (or any line after the result), a
// result for another id or one that contradicts its own checks, a missing or unreadable result, a
// crash, a time-out or a memory kill each become their own state, naming the phase the cell was in. `xfail` is the row's (a
// memory kill is a limit of the run, not of the backend: it stays failed, and says so).
CellResult cell_result_from_child(const ChildOutcome& outcome, CellResult identity, const CellLimits& limits,
                                  const std::string& xfail = "");

// The cell's side: signed JSON lines on a descriptor the runner gave it, one per phase, then the
// result. One channel per process.
class ResultChannel {
 public:
  // Takes the key from `key_fd` (read to its end, then closed) and keeps `result_fd` out of any
  // process the cell starts: close-on-exec, and a process forked from this one (os.fork in a
  // forward) loses both the descriptor and the key at once. Call it before any roster code runs.
  static ResultChannel open(int result_fd, int key_fd);
  // Each throws std::runtime_error in a fork of the cell process, or when the channel is gone.
  void phase(const std::string& name) const;
  void result(const CellResult& result) const;

 private:
  ResultChannel() = default;
  void line(const std::string& text) const;
};

}  // namespace tl
