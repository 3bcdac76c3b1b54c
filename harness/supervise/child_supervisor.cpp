#include "harness/supervise/child_supervisor.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>
#include <stdexcept>
#include <thread>

#include "harness/supervise/channel_key.h"
#include "harness/supervise/process_tree.h"

namespace tl {
namespace {

using Clock = std::chrono::steady_clock;

// How often the tree is scanned for new descendants, their memory, and the time limits.
constexpr auto kTick = std::chrono::milliseconds(100);

// Keeps the first and last bytes of a stream within a budget; what falls between is counted.
class BoundedText {
 public:
  explicit BoundedText(std::size_t budget) : head_budget_(budget / 4), tail_budget_(budget - budget / 4) {}

  void append(const char* data, std::size_t size) {
    total_ += size;
    const std::size_t to_head = std::min(size, head_budget_ - head_.size());
    head_.append(data, to_head);
    tail_.append(data + to_head, size - to_head);
    if (tail_.size() > 2 * tail_budget_) tail_.erase(0, tail_.size() - tail_budget_);
  }

  std::string text() const {
    std::string tail = tail_.size() > tail_budget_ ? tail_.substr(tail_.size() - tail_budget_) : tail_;
    const std::uint64_t dropped = total_ - head_.size() - tail.size();
    if (dropped == 0) return head_ + tail;
    return head_ + "\n[... " + std::to_string(dropped) + " bytes not kept ...]\n" + tail;
  }

 private:
  std::size_t head_budget_;
  std::size_t tail_budget_;
  std::string head_;
  std::string tail_;
  std::uint64_t total_ = 0;
};

struct Running {
  std::size_t index = 0;
  pid_t pid = -1;
  Clock::time_point start;
  Clock::time_point deadline;
  std::array<int, 3> fds{-1, -1, -1};  // stdout, stderr, result channel
  std::array<std::unique_ptr<BoundedText>, 3> streams;
  std::set<pid_t> started;  // every process seen below the child (it may outlive the child)
  bool ended = false;
  int status = 0;
  ChildOutcome outcome;
};

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Reads what is there now (at most `limit` bytes, so one chatty child cannot starve the loop);
// closes the descriptor at end of file.
void drain(int& fd, BoundedText& into, std::size_t limit = SIZE_MAX) {
  char buffer[65536];
  for (std::size_t read_so_far = 0; fd >= 0 && read_so_far < limit;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got > 0) {
      into.append(buffer, static_cast<std::size_t>(got));
      read_so_far += static_cast<std::size_t>(got);
    } else if (got == 0) {
      close_fd(fd);
    } else if (errno != EINTR) {
      if (errno != EAGAIN) close_fd(fd);
      return;
    }
  }
}

// A pipe whose ends sit at descriptor 10 or above, so the child's dup2 onto 0..4 never lands on
// another pipe end it still has to move.
void make_pipe(int fds[2]) {
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  for (int i = 0; i < 2; ++i) {
    const int moved = ::fcntl(fds[i], F_DUPFD_CLOEXEC, 10);
    if (moved < 0) throw std::runtime_error(std::string("fcntl: ") + std::strerror(errno));
    ::close(fds[i]);
    fds[i] = moved;
  }
}

// The children of this process now, from /proc/self/task/TID/children (this process has one
// thread), into `pids`; how many. Async-signal-safe: it runs in a fork of the supervisor. (A kernel
// without CONFIG_PROC_CHILDREN lists none: what a child leaves then holds it to its time limit.)
std::size_t children_now(pid_t* pids, std::size_t capacity) {
  char path[64] = "/proc/self/task/";
  char digits[16];
  int length = 0;
  for (pid_t self = ::getpid(); self > 0; self /= 10) digits[length++] = static_cast<char>('0' + self % 10);
  char* end = path + std::strlen(path);
  while (length > 0) *end++ = digits[--length];
  std::memcpy(end, "/children", sizeof "/children");
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char text[4096];
  std::size_t used = 0;
  for (ssize_t got; used < sizeof text && (got = ::read(fd, text + used, sizeof text - used)) != 0;) {
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) break;
    used += static_cast<std::size_t>(got);
  }
  ::close(fd);
  std::size_t count = 0;
  pid_t pid = 0;
  for (std::size_t i = 0; i < used && count < capacity; ++i) {
    if (text[i] >= '0' && text[i] <= '9') {
      pid = pid * 10 + (text[i] - '0');
    } else if (pid > 0) {
      pids[count++] = pid;
      pid = 0;
    }
  }
  return count;
}

// The process between the supervisor and a child (see child_supervisor.h): a subreaper, so every
// process the child starts stays below it however it detaches. It waits for the child, kills
// whatever is left below it, and exits as the child did. Async-signal-safe calls only: it is a
// fork of a process that may have threads, and it never execs.
[[noreturn]] void contain(pid_t child) {
  int status = 0;
  for (;;) {
    const pid_t got = ::waitpid(-1, &status, 0);
    if (got == child) break;
    if (got < 0 && errno != EINTR) ::_exit(127);
  }
  // An orphan is reparented here before its parent can be reaped, so this ends with nothing left.
  for (;;) {
    pid_t pids[512];
    const std::size_t count = children_now(pids, 512);
    for (std::size_t i = 0; i < count; ++i) ::kill(pids[i], SIGKILL);
    if (::waitpid(-1, nullptr, 0) < 0 && errno == ECHILD) break;
  }
  if (WIFSIGNALED(status)) {
    // Die of the child's signal, so the supervisor sees what the child died of (no core: this
    // process is not dumpable).
    const int signal = WTERMSIG(status);
    ::signal(signal, SIG_DFL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, signal);
    ::sigprocmask(SIG_UNBLOCK, &only, nullptr);
    ::kill(::getpid(), signal);
    ::_exit(128 + signal);
  }
  ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 127);
}

// Hands `key` to the child: written whole into the pipe (far below its buffer size), then closed,
// so the child reads the key and then end of file.
void write_key(int fd, const std::string& key) {
  for (std::size_t written = 0; written < key.size();) {
    const ssize_t n = ::write(fd, key.data() + written, key.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error(std::string("cannot hand the cell its key: ") + std::strerror(errno));
    written += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

Running start(const ChildCommand& command, std::size_t index) {
  Running child;
  child.index = index;
  int pipes[3][2] = {{-1, -1}, {-1, -1}, {-1, -1}};
  const int streams = command.result_channel ? 3 : 2;
  for (int i = 0; i < streams; ++i) make_pipe(pipes[i]);
  int key_pipe[2] = {-1, -1};
  if (command.result_channel) {
    // Made now, not before: a child that started earlier never shared a process with this key.
    child.outcome.result_key = new_channel_key();
    make_pipe(key_pipe);
    write_key(key_pipe[1], child.outcome.result_key);
  }
  const int null_input = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  std::vector<char*> argv;
  argv.reserve(command.argv.size() + 1);
  for (const std::string& arg : command.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  const pid_t supervisor = ::getpid();
  child.start = Clock::now();
  child.deadline = child.start + command.time_limit;
  child.pid = ::fork();
  if (child.pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (child.pid == 0) {
    // Only async-signal-safe calls until exec.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a supervisor that dies takes its children along
    if (::getppid() != supervisor) ::_exit(127);
    if (null_input >= 0) ::dup2(null_input, STDIN_FILENO);  // a forward that reads input gets EOF, not a hang
    ::dup2(pipes[0][1], STDOUT_FILENO);
    ::dup2(pipes[1][1], STDERR_FILENO);
    if (command.result_channel) {
      ::dup2(pipes[2][1], kResultFd);
      ::dup2(key_pipe[0], kResultKeyFd);
    }
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    const pid_t container = ::getpid();
    const pid_t own = ::fork();
    if (own < 0) ::_exit(127);
    if (own == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != container) ::_exit(127);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    // The child's descriptors (and the supervisor's, inherited here without an exec) are not this
    // process's to hold: a pipe stays open only as long as the child and what it started hold it.
    if (::close_range(0, ~0U, 0) != 0) {
      for (int fd = 0; fd < 1024; ++fd) ::close(fd);
    }
    contain(own);
  }
  if (null_input >= 0) ::close(null_input);
  if (key_pipe[0] >= 0) ::close(key_pipe[0]);
  for (int i = 0; i < streams; ++i) {
    ::close(pipes[i][1]);
    child.fds[i] = pipes[i][0];
    ::fcntl(child.fds[i], F_SETFL, O_NONBLOCK);
    child.streams[i] = std::make_unique<BoundedText>(i == 2 ? std::size_t{16} << 20 : command.output_budget);
  }
  return child;
}

// The processes that belong to `child` now: its own tree while it runs, and the trees of the
// orphans it started that came to this process when its subreaper was killed. Pids are only taken
// from the live tree, so a pid reused by an unrelated process is never counted or killed.
std::set<pid_t> members(const ProcessTree& tree, const Running& child, pid_t self) {
  std::set<pid_t> found = child.ended ? std::set<pid_t>{} : tree.subtree(child.pid);
  for (pid_t orphan : tree.children(self)) {
    if (orphan != child.pid && child.started.contains(orphan)) found.merge(tree.subtree(orphan));
  }
  return found;
}

// SIGKILLs `child`'s process (if still there) and everything it started, then reaps what was ours.
void kill_tree(Running& child) {
  const pid_t self = ::getpid();
  for (int round = 0; round < 5; ++round) {
    const ProcessTree tree = ProcessTree::scan();
    const std::set<pid_t> victims = members(tree, child, self);
    if (!child.ended) ::kill(-child.pid, SIGKILL);  // its process group, in one call
    if (victims.empty() && child.ended) break;
    for (pid_t pid : victims) ::kill(pid, SIGKILL);
    if (!child.ended && ::waitpid(child.pid, &child.status, 0) == child.pid) child.ended = true;
    for (pid_t orphan : tree.children(self)) {
      if (victims.contains(orphan)) ::waitpid(orphan, nullptr, 0);
    }
  }
}

void finish(Running& child) {
  kill_tree(child);
  for (int i = 0; i < 3; ++i) {
    if (child.streams[i]) drain(child.fds[i], *child.streams[i]);
    close_fd(child.fds[i]);
  }
  if (WIFEXITED(child.status)) child.outcome.exit_code = WEXITSTATUS(child.status);
  if (WIFSIGNALED(child.status)) child.outcome.signal = WTERMSIG(child.status);
  child.outcome.stdout_text = child.streams[0]->text();
  child.outcome.stderr_text = child.streams[1]->text();
  if (child.streams[2]) child.outcome.result_text = child.streams[2]->text();
  child.outcome.seconds = std::chrono::duration<double>(Clock::now() - child.start).count();
}

// One look at the process tree: records what each child started, reaps orphans that died, and
// stops a child over its memory or time limit. An orphan no child started is charged to none: it
// waits for the clean-up when the last child ends.
void watch(std::vector<Running>& running, const std::vector<ChildCommand>& commands, pid_t self, Clock::time_point now) {
  const ProcessTree tree = ProcessTree::scan();
  for (Running& child : running) {
    if (!child.ended) child.started.merge(tree.subtree(child.pid));
  }
  for (pid_t orphan : tree.children(self)) {
    if (std::any_of(running.begin(), running.end(), [&](const Running& child) { return child.pid == orphan; })) continue;
    ::waitpid(orphan, nullptr, WNOHANG);  // an orphan that already died is reaped here
  }
  for (Running& child : running) {
    if (child.ended) continue;
    const std::uint64_t resident = tree.memory_bytes(members(tree, child, self));
    child.outcome.peak_resident = std::max(child.outcome.peak_resident, resident);
    const ChildCommand& command = commands[child.index];
    if (command.memory_limit != 0 && resident > command.memory_limit) {
      child.outcome.memory_exceeded = true;
      kill_tree(child);
    } else if (now >= child.deadline) {
      child.outcome.timed_out = true;
      kill_tree(child);
    }
  }
}

// The signal that stops the run (SIGINT or SIGTERM), set by the handler below while a run lasts.
volatile std::sig_atomic_t g_interrupt = 0;

void note_interrupt(int signal) { g_interrupt = signal; }

// SIGINT and SIGTERM handled (noted in g_interrupt) for the life of a run, then as they were.
class InterruptWatch {
 public:
  InterruptWatch() {
    g_interrupt = 0;
    struct sigaction noting {};
    noting.sa_handler = note_interrupt;
    sigemptyset(&noting.sa_mask);
    for (std::size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &noting, &previous_[i]);
  }
  ~InterruptWatch() {
    for (std::size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &previous_[i], nullptr);
  }
  InterruptWatch(const InterruptWatch&) = delete;
  InterruptWatch& operator=(const InterruptWatch&) = delete;

 private:
  static constexpr std::array<int, 2> kSignals{SIGINT, SIGTERM};
  std::array<struct sigaction, 2> previous_{};
};

// How long the running children have, once the run's signal is passed on to them, before their
// processes are killed.
constexpr auto kInterruptGrace = std::chrono::seconds(2);

// Stops the run: `signal` to each running child's process group, a grace to end, then every
// child's processes killed. Each running child, and each one never started, is marked interrupted.
void interrupt(std::vector<Running>& running, std::vector<ChildOutcome>& outcomes, std::size_t next, int signal) {
  for (const Running& child : running) {
    if (!child.ended) ::kill(-child.pid, signal);
  }
  const auto deadline = Clock::now() + kInterruptGrace;
  for (;;) {
    bool all_ended = true;
    for (Running& child : running) {
      if (!child.ended && ::waitpid(child.pid, &child.status, WNOHANG) == child.pid) child.ended = true;
      all_ended = all_ended && child.ended;
    }
    if (all_ended || Clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (Running& child : running) {
    finish(child);
    outcomes[child.index] = std::move(child.outcome);
    outcomes[child.index].interrupted_by = signal;
  }
  running.clear();
  for (std::size_t index = next; index < outcomes.size(); ++index) outcomes[index].interrupted_by = signal;
}

}  // namespace

int interrupting_signal(const std::vector<ChildOutcome>& outcomes) {
  for (const ChildOutcome& outcome : outcomes) {
    if (outcome.interrupted_by != 0) return outcome.interrupted_by;
  }
  return 0;
}

// One loop that owns every child's lifetime (start, watch limits, reap, kill leftovers): kept
// whole so no path can leave a child or its tree running.
std::vector<ChildOutcome> run_children(const std::vector<ChildCommand>& commands, int jobs, const SupervisorEvents& events) {
  // Orphans of a child whose own subreaper was killed come here instead of init, so they can be
  // found and killed.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  // The keys of running children are in this process's memory: only a process with CAP_SYS_PTRACE
  // may read it (/proc/PID/mem, ptrace), and it writes no core dump.
  ::prctl(PR_SET_DUMPABLE, 0);
  const pid_t self = ::getpid();
  const InterruptWatch interrupts;
  std::vector<ChildOutcome> outcomes(commands.size());
  std::vector<Running> running;
  std::size_t next = 0;
  auto last_heartbeat = Clock::now();
  auto last_scan = Clock::time_point{};
  while (next < commands.size() || !running.empty()) {
    if (g_interrupt != 0) {
      interrupt(running, outcomes, next, g_interrupt);
      break;
    }
    while (next < commands.size() && static_cast<int>(running.size()) < std::max(1, jobs)) {
      running.push_back(start(commands[next], next));
      if (events.started) events.started(next);
      ++next;
    }
    std::vector<pollfd> fds;
    for (const Running& child : running) {
      for (int fd : child.fds) {
        if (fd >= 0) fds.push_back({fd, POLLIN, 0});
      }
    }
    ::poll(fds.data(), fds.size(), static_cast<int>(kTick.count()));
    bool any_ended = false;
    for (Running& child : running) {
      for (int i = 0; i < 3; ++i) {
        if (child.streams[i]) drain(child.fds[i], *child.streams[i], std::size_t{1} << 20);
      }
      if (::waitpid(child.pid, &child.status, WNOHANG) == child.pid) child.ended = true;
      any_ended = any_ended || child.ended;
    }
    const auto now = Clock::now();
    if (any_ended || now - last_scan >= kTick) {
      last_scan = now;
      watch(running, commands, self, now);
    }
    for (auto it = running.begin(); it != running.end();) {
      if (!it->ended) {
        ++it;
        continue;
      }
      finish(*it);
      outcomes[it->index] = std::move(it->outcome);
      if (events.finished) events.finished(it->index, outcomes[it->index]);
      it = running.erase(it);
    }
    if (events.still_running && !running.empty() && now - last_heartbeat >= events.heartbeat) {
      last_heartbeat = now;
      std::vector<std::pair<std::size_t, double>> busy;
      busy.reserve(running.size());
      for (const Running& child : running)
        busy.emplace_back(child.index, std::chrono::duration<double>(now - child.start).count());
      events.still_running(busy);
    }
  }
  // Whatever is left below this process now belongs to no child.
  for (int round = 0; round < 3; ++round) {
    const ProcessTree tree = ProcessTree::scan();
    const std::vector<pid_t> orphans = tree.children(self);
    if (orphans.empty()) break;
    for (pid_t orphan : orphans) {
      for (pid_t pid : tree.subtree(orphan)) ::kill(pid, SIGKILL);
    }
    for (pid_t orphan : orphans) ::waitpid(orphan, nullptr, 0);
  }
  return outcomes;
}

ChildOutcome run_child(const std::vector<std::string>& argv, std::chrono::seconds limit) {
  ChildCommand command;
  command.argv = argv;
  command.time_limit = limit;
  ChildOutcome outcome = run_children({command}, 1).front();
  if (outcome.interrupted_by != 0) ::raise(outcome.interrupted_by);  // handled as before the run now
  return outcome;
}

std::string human_bytes(std::uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
  return text;
}

}  // namespace tl
