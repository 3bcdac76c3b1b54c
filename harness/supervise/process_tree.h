// A snapshot of the machine's processes as a tree (from /proc), so a supervisor can find, measure
// and stop everything a child started, including what it forked and what called setsid.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace tl {

struct ProcessInfo {
  pid_t parent = 0;
  std::uint64_t resident_bytes = 0;
  bool zombie = false;  // exited, waiting to be reaped
};

class ProcessTree {
 public:
  // Reads /proc now. Processes that vanish while it reads are left out.
  static ProcessTree scan();

  // `root` and every process below it (root included when it is alive).
  std::set<pid_t> subtree(pid_t root) const;
  // The direct children of `parent`.
  std::vector<pid_t> children(pid_t parent) const;
  // Memory of the given processes, summed, with pages they share counted once (proportional set).
  std::uint64_t memory_bytes(const std::set<pid_t>& pids) const;
  bool alive(pid_t pid) const { return processes_.contains(pid); }
  bool zombie(pid_t pid) const { return alive(pid) && processes_.at(pid).zombie; }

 private:
  std::map<pid_t, ProcessInfo> processes_;
  std::multimap<pid_t, pid_t> children_;  // parent -> child
};

}  // namespace tl
