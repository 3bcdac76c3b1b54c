// One cell, one process: the cell reports its phases and its result on a channel of its own (the
// forward may print what it likes), and a crash, a hang, a memory blow-up or a missing result
// becomes the cell's state instead of taking the run down.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/cell_result.h"
#include "harness/child_supervisor.h"

namespace tl {

struct CellLimits {
  std::chrono::seconds time{600};
  std::uint64_t memory = 0;  // bytes for the cell's whole process tree; 0 means none
};

// The memory a cell may use by default: a share of what the machine has available now, so `jobs`
// cells at their limit still leave room for everything else.
std::uint64_t default_cell_memory(int jobs);

// How the supervisor runs a cell command line (which must take `--result-fd 3`, see ResultChannel).
ChildSpec cell_child_spec(std::vector<std::string> argv, const CellLimits& limits);

// The cell's result from its finished child. `identity` names the cell (id, family, roster line);
// a result for another id, a missing or unreadable result, a crash, a time-out or a memory kill
// each become their own state, naming the phase the cell was in.
CellResult cell_result_from_child(const ChildOutcome& outcome, CellResult identity, const CellLimits& limits);

// The cell's side: JSON lines on a descriptor the runner gave it, one per phase, then the result.
class ResultChannel {
 public:
  explicit ResultChannel(int fd) : fd_(fd) {}
  void phase(const std::string& name) const;
  void result(const CellResult& result) const;

 private:
  void line(const std::string& text) const;
  int fd_;
};

}  // namespace tl
