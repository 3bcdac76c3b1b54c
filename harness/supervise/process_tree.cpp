#include "harness/supervise/process_tree.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

namespace tl {
namespace {

// /proc/PID/stat: "pid (comm) state ppid ..."; comm may hold spaces and parentheses, so fields
// are counted from the last ')'. Field 4 is the parent, field 24 the resident set in pages.
bool read_stat(pid_t pid, ProcessInfo& info) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(in, text)) return false;
  const auto close = text.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream fields(text.substr(close + 1));
  std::string state;
  long long parent = 0;
  fields >> state >> parent;
  std::string skipped;
  for (int field = 5; field < 24; ++field) fields >> skipped;
  long long pages = 0;
  fields >> pages;
  if (!fields) return false;
  static const long page_size = ::sysconf(_SC_PAGESIZE);
  info.parent = static_cast<pid_t>(parent);
  info.zombie = state == "Z";
  info.resident_bytes = static_cast<std::uint64_t>(pages > 0 ? pages : 0) * static_cast<std::uint64_t>(page_size);
  return true;
}

}  // namespace

ProcessTree ProcessTree::scan() {
  ProcessTree tree;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return tree;
  while (const dirent* entry = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || pid <= 0) continue;
    ProcessInfo info;
    if (!read_stat(static_cast<pid_t>(pid), info)) continue;
    tree.processes_[static_cast<pid_t>(pid)] = info;
    tree.children_.emplace(info.parent, static_cast<pid_t>(pid));
  }
  ::closedir(proc);
  return tree;
}

std::set<pid_t> ProcessTree::subtree(pid_t root) const {
  std::set<pid_t> found;
  if (!alive(root)) return found;
  std::vector<pid_t> frontier{root};
  while (!frontier.empty()) {
    const pid_t pid = frontier.back();
    frontier.pop_back();
    if (!found.insert(pid).second) continue;
    for (pid_t child : children(pid)) frontier.push_back(child);
  }
  return found;
}

std::vector<pid_t> ProcessTree::children(pid_t parent) const {
  std::vector<pid_t> result;
  const auto [first, last] = children_.equal_range(parent);
  for (auto it = first; it != last; ++it) result.push_back(it->second);
  return result;
}

// A forked child shares its parent's pages until it writes them, so summing resident sets counts
// those pages once per process and a fork looks like a second copy of the interpreter. The
// proportional set size (Pss in /proc/PID/smaps_rollup) splits each shared page among its users;
// the resident set stands in where smaps_rollup cannot be read.
std::uint64_t ProcessTree::memory_bytes(const std::set<pid_t>& pids) const {
  std::uint64_t total = 0;
  for (pid_t pid : pids) {
    const auto found = processes_.find(pid);
    if (found == processes_.end()) continue;
    std::ifstream rollup("/proc/" + std::to_string(pid) + "/smaps_rollup");
    std::string key;
    std::uint64_t kilobytes = 0;
    bool measured = false;
    while (rollup >> key) {
      if (key == "Pss:" && rollup >> kilobytes) {
        measured = true;
        break;
      }
      rollup.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
    }
    total += measured ? kilobytes * 1024 : found->second.resident_bytes;
  }
  return total;
}

}  // namespace tl
