// One cell, one process: the result travels on its own channel (a forward's prints cannot forge or
// spoil it), and a crash, a hang, a memory blow-up, a missing result or a process left behind each
// become a clear state while the supervisor stays in control.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/prctl.h>
#include <sys/uio.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "harness/supervise/cell_process.h"
#include "harness/supervise/channel_key.h"
#include "harness/supervise/child_supervisor.h"
#include "harness/supervise/process_tree.h"

namespace tl {
namespace {

using std::chrono::seconds;

CellResult identity() {
  CellResult cell;
  cell.id = "probe";
  cell.family = "config_built";
  cell.roster = {"rosters/x.yaml", 3};
  return cell;
}

const std::string kPassedLine =
    R"({"result":{"id":"probe","family":"config_built","roster":"r.yaml:4","state":"passed","ops":7}})";

// Signs a channel line with the cell's key: a shell word for an echo in its script.
using Sign = std::function<std::string(const std::string& payload)>;

// What a cell script does first, as a real cell's harness code does: read its key from fd 4 (the
// supervisor makes it as the cell starts), and sign lines with it (tl_sign PAYLOAD; python3's hmac).
const std::string kSignPrelude =
    "tl_key=$(cat <&4); exec 4<&-\n"
    "tl_sign() { python3 -c 'import hashlib, hmac, sys; k, p = sys.argv[1], sys.argv[2]; "
    "print(hmac.new(k.encode(), p.encode(), hashlib.sha256).hexdigest() + \" \" + p)' \"$tl_key\" \"$1\"; }\n";

std::string signing(const std::string& payload) { return "\"$(tl_sign '" + payload + "')\""; }

// Cell commands for shell scripts with a result channel at fd 3 (and the key at fd 4); each script
// is written with the cell's signing function, as the harness code in a real cell writes its lines.
ChildCommand cell_script_command(const std::function<std::string(const Sign&)>& script, const CellLimits& limits) {
  return cell_child_command({"/bin/sh", "-c", kSignPrelude + script(signing)}, limits);
}

CellResult run_cell_script(const std::function<std::string(const Sign&)>& script, CellLimits limits = {seconds(20), 0},
                           ChildOutcome* out = nullptr, const std::string& xfail = "") {
  const ChildOutcome outcome = run_children({cell_script_command(script, limits)}, 1).front();
  if (out != nullptr) *out = outcome;
  return cell_result_from_child(outcome, identity(), limits, xfail);
}

CellResult run_cell_script(const std::string& script, CellLimits limits = {seconds(20), 0}, ChildOutcome* out = nullptr) {
  return run_cell_script([&](const Sign&) { return script; }, limits, out);
}

const std::string kCapturePhase = R"({"phase":"capture"})";

TEST(CellProcess, ReadsTheResultFromItsOwnChannel) {
  const CellResult cell = run_cell_script(
      [](const Sign& sign) { return "echo noise; echo " + sign(kCapturePhase) + " >&3; echo " + sign(kPassedLine) + " >&3"; });
  EXPECT_EQ(cell.state, CellState::Passed) << cell.message;
  EXPECT_EQ(cell.ops, 7u);
  EXPECT_EQ(cell.roster.line, 4);
  EXPECT_TRUE(cell.output.empty());
}

// A forward that prints, even text without a newline at the end, leaves the result alone.
TEST(CellProcess, PrintsInTheForwardDoNotSpoilTheResult) {
  const CellResult cell =
      run_cell_script([](const Sign& sign) { return "printf p; echo " + sign(kPassedLine) + " >&3; printf 'q'"; });
  EXPECT_EQ(cell.state, CellState::Passed) << cell.message;
}

// A forward that prints a result line and exits 0 is not a passed cell: stdout is not the channel.
TEST(CellProcess, AFakeResultOnStdoutIsNotAResult) {
  const CellResult cell = run_cell_script("echo '" + kPassedLine + "'; exit 0");
  EXPECT_EQ(cell.state, CellState::HarnessError);
  EXPECT_NE(cell.message.find("without reporting a result"), std::string::npos) << cell.message;
}

TEST(CellProcess, AResultForAnotherRowIsAHarnessError) {
  std::string other = kPassedLine;
  other.replace(other.find("probe"), 5, "other");
  const CellResult cell = run_cell_script([&](const Sign& sign) { return "echo " + sign(other) + " >&3"; });
  EXPECT_EQ(cell.state, CellState::HarnessError);
  EXPECT_NE(cell.message.find("'other', not 'probe'"), std::string::npos) << cell.message;
}

TEST(CellProcess, APassedResultWithAFailingExitIsAHarnessError) {
  const CellResult cell = run_cell_script([](const Sign& sign) { return "echo " + sign(kPassedLine) + " >&3; exit 1"; });
  EXPECT_EQ(cell.state, CellState::HarnessError);
  EXPECT_NE(cell.message.find("exited with code 1"), std::string::npos) << cell.message;
}

TEST(CellProcess, ASegfaultIsCrashedAndNamesThePhase) {
  const CellResult cell = run_cell_script(
      [](const Sign& sign) { return "echo " + sign(R"({"phase":"replay_validation"})") + " >&3; kill -SEGV $$"; });
  EXPECT_EQ(cell.state, CellState::Crashed);
  EXPECT_NE(cell.message.find("signal 11"), std::string::npos) << cell.message;
  EXPECT_NE(cell.message.find("replay_validation"), std::string::npos) << cell.message;
  EXPECT_EQ(cell.roster.str(), "rosters/x.yaml:3");
}

TEST(CellProcess, ASanitizerReportIsCrashed) {
  const CellResult cell = run_cell_script("echo '==1==ERROR: AddressSanitizer: SEGV on unknown address' >&2; exit 1");
  EXPECT_EQ(cell.state, CellState::Crashed);
}

TEST(CellProcess, AHangIsTimedOutNamingTheLimitAndThePhase) {
  const auto start = std::chrono::steady_clock::now();
  const CellResult cell =
      run_cell_script([](const Sign& sign) { return "echo " + sign(kCapturePhase) + " >&3; sleep 30"; }, {seconds(1), 0});
  EXPECT_LT(std::chrono::steady_clock::now() - start, seconds(10));
  EXPECT_EQ(cell.state, CellState::TimedOut);
  EXPECT_NE(cell.message.find("1 s limit (--timeout)"), std::string::npos) << cell.message;
  EXPECT_NE(cell.message.find("during phase capture"), std::string::npos) << cell.message;
}

// One line of cause (tlconform's own error line), not the usage text after it.
TEST(CellProcess, AMissingResultSaysWhyInOneLine) {
  const CellResult cell =
      run_cell_script("echo 'tlconform: roster error: x.yaml:3: unknown key' >&2; echo 'usage: tlconform COMMAND' >&2; exit 2");
  EXPECT_EQ(cell.state, CellState::HarnessError);
  EXPECT_NE(cell.message.find("code 2"), std::string::npos) << cell.message;
  EXPECT_NE(cell.message.find("tlconform: roster error: x.yaml:3: unknown key"), std::string::npos) << cell.message;
  EXPECT_EQ(cell.message.find("usage:"), std::string::npos) << cell.message;
  EXPECT_EQ(cell.message.find('\n'), std::string::npos) << cell.message;
  EXPECT_NE(cell.output.find("usage:"), std::string::npos) << "the whole output is kept apart: " << cell.output;
}

// 200 MB on stdout: the supervisor keeps the head and the tail, not the whole stream.
TEST(CellProcess, OutputIsKeptBounded) {
  ChildOutcome outcome;
  const CellResult cell =
      run_cell_script("printf START; head -c 200000000 /dev/zero | tr '\\0' x; printf END; exit 1", {seconds(60), 0}, &outcome);
  EXPECT_EQ(cell.state, CellState::HarnessError);
  EXPECT_LT(outcome.stdout_text.size(), 100000u);
  EXPECT_TRUE(outcome.stdout_text.starts_with("START")) << outcome.stdout_text.substr(0, 100);
  EXPECT_TRUE(outcome.stdout_text.ends_with("END"));
  EXPECT_NE(outcome.stdout_text.find("bytes not kept"), std::string::npos);
}

bool pid_alive(pid_t pid) { return ProcessTree::scan().alive(pid) && !ProcessTree::scan().zombie(pid); }

pid_t read_pid(const std::string& file) {
  pid_t pid = 0;
  std::ifstream(file) >> pid;
  return pid;
}

// A child the forward forked holds the pipes open and sleeps: the cell is decided when its own
// process exits, and what it left behind is killed, also after setsid.
TEST(CellProcess, ACellEndsWithItsOwnProcessAndItsLeftoversAreKilled) {
  for (const std::string starter : {"", "setsid "}) {
    const std::string pid_file = ::testing::TempDir() + "/leftover_" + std::to_string(::getpid()) + ".pid";
    const auto start = std::chrono::steady_clock::now();
    ChildOutcome outcome;
    const CellResult cell = run_cell_script(
        [&](const Sign& sign) {
          return starter + "sh -c 'echo $$ > " + pid_file + "; exec sleep 300' & sleep 1; echo " + sign(kPassedLine) +
                 " >&3; exit 0";
        },
        {seconds(60), 0}, &outcome);
    EXPECT_LT(std::chrono::steady_clock::now() - start, seconds(20)) << starter;
    EXPECT_EQ(cell.state, CellState::Passed) << starter << cell.message;
    const pid_t leftover = read_pid(pid_file);
    ASSERT_GT(leftover, 0) << starter;
    EXPECT_FALSE(pid_alive(leftover)) << starter << "the leftover process " << leftover << " still runs";
  }
}

// A cell whose processes grow past the memory limit is stopped and fails, saying so.
TEST(CellProcess, AMemoryHogFailsWithTheMemoryLimit) {
  const auto start = std::chrono::steady_clock::now();
  const CellResult cell = run_cell_script(
      [](const Sign& sign) {
        return "echo " + sign(kCapturePhase) +
               " >&3; python3 -c 'import time\nx=[]\nwhile True:\n  x.append(b\"x\"*50000000); time.sleep(0.02)'";
      },
      {seconds(120), std::uint64_t{300} << 20}, nullptr, "a known limit");
  EXPECT_LT(std::chrono::steady_clock::now() - start, seconds(60));
  EXPECT_EQ(cell.state, CellState::Failed);
  EXPECT_NE(cell.message.find("memory limit"), std::string::npos) << cell.message;
  EXPECT_NE(cell.message.find("300.0 MiB"), std::string::npos) << cell.message;
  EXPECT_NE(cell.message.find("during phase capture"), std::string::npos) << cell.message;
  // The row is xfail, and still the memory limit is not its expected failure (it is the run's limit).
  EXPECT_NE(cell.message.find("the row's xfail does not cover it"), std::string::npos) << cell.message;
}

// The key comes on descriptor 4, whole, then end of file; the cell closes it before roster code.
TEST(CellProcess, TheKeyArrivesOnItsOwnDescriptor) {
  const ChildCommand command = cell_child_command({"/bin/sh", "-c", "cat <&4; echo; cat <&4; echo end"}, {seconds(20), 0});
  const std::vector<ChildOutcome> outcomes = run_children({command, command}, 1);
  EXPECT_EQ(outcomes[0].stdout_text, outcomes[0].result_key + "\nend\n");
  EXPECT_EQ(outcomes[0].result_key.size(), 64u);
  EXPECT_NE(outcomes[1].result_key, outcomes[0].result_key) << "every cell gets its own key";
}

// The writable memory of this process: what a process that could read it (/proc/PID/mem) would
// find. Copied from the rw mappings /proc/self/maps lists by process_vm_readv on this process (a
// non-dumpable process that is not root may not open its own /proc/self/mem; a plain memcpy of
// AddressSanitizer's shadow is an ASan report), a page the kernel cannot read left out.
std::string own_memory() {
  std::vector<std::pair<unsigned long, unsigned long>> regions;
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    unsigned long begin = 0, end = 0;
    char permissions[5] = "";
    if (std::sscanf(line.c_str(), "%lx-%lx %4s", &begin, &end, permissions) == 3 && permissions[0] == 'r' &&
        permissions[1] == 'w' && end - begin <= (std::size_t{1} << 30))
      regions.emplace_back(begin, end);
  }
  std::size_t total = 0;
  for (const auto& [begin, end] : regions) total += end - begin;
  std::string memory(total, '\0');  // one allocation before the copy: nothing is freed (or unmapped) while it runs
  std::size_t copied = 0;
  for (const auto& [begin, end] : regions) {
    iovec local{memory.data() + copied, end - begin};
    iovec remote{reinterpret_cast<void*>(begin), end - begin};  // NOLINT(performance-no-int-to-ptr): another process's address
    const ssize_t read = ::process_vm_readv(::getpid(), &local, 1, &remote, 1, 0);
    if (read > 0) copied += static_cast<std::size_t>(read);
  }
  memory.resize(copied);
  return memory;
}

// Issue 37.6: a cell's key does not exist until the cell starts, so no cell running before it can
// find it in the supervisor's memory (or in that of a process forked from it).
TEST(CellProcess, ACellsKeyIsMadeWhenItStarts) {
  const ChildCommand command = cell_child_command({"/bin/true"}, {seconds(20), 0});
  std::string memory_while_the_first_ran;
  SupervisorEvents events;
  events.started = [&](std::size_t index) {
    if (index == 0) memory_while_the_first_ran = own_memory();
  };
  const std::vector<ChildOutcome> outcomes = run_children({command, command}, 1, events);
  ASSERT_FALSE(memory_while_the_first_ran.empty());
  EXPECT_NE(memory_while_the_first_ran.find(outcomes[0].result_key), std::string::npos) << "the memory search finds keys";
  EXPECT_EQ(memory_while_the_first_ran.find(outcomes[1].result_key), std::string::npos)
      << "the second cell's key existed while the first cell ran";
}

// Issue 37.6: a cell cannot read the supervisor's memory (nor that of the process between them),
// where the keys of the cells running beside it are: the supervisor is not dumpable, so only a
// process with CAP_SYS_PTRACE may read it. The reading cell drops that capability (a root CI
// container would have it); where it then holds fewer capabilities than the supervisor (root), the
// read is refused anyway, and the supervisor's dumpable flag is what shows.
TEST(CellProcess, ACellCannotReadTheSupervisorsMemory) {
  const std::string reader = ::testing::TempDir() + "/mem_reader_" + std::to_string(::getpid()) + ".py";
  std::ofstream(reader) << "import ctypes, os, sys\n"
                           "if sys.argv[-1] != 'dropped':\n"
                           "  ctypes.CDLL(None).prctl(24, 19, 0, 0, 0)  # PR_CAPBSET_DROP, CAP_SYS_PTRACE\n"
                           "  os.execv(sys.executable, [sys.executable] + sys.argv + ['dropped'])\n"
                           "for pid in sys.argv[1:3]:\n"
                           "  try:\n"
                           "    open(f'/proc/{pid}/mem', 'rb').close(); print('readable', pid)\n"
                           "  except PermissionError:\n"
                           "    print('denied', pid)\n";
  int dumpable_while_running = -1;
  SupervisorEvents events;
  events.started = [&](std::size_t) { dumpable_while_running = ::prctl(PR_GET_DUMPABLE); };
  const ChildCommand command = cell_script_command(
      [&](const Sign&) { return "python3 " + reader + " $PPID " + std::to_string(::getpid()) + "; exit 1"; }, {seconds(20), 0});
  const ChildOutcome outcome = run_children({command}, 1, events).front();
  EXPECT_EQ(dumpable_while_running, 0);
  EXPECT_NE(outcome.stdout_text.find("denied " + std::to_string(::getpid())), std::string::npos) << outcome.stdout_text;
  EXPECT_EQ(outcome.stdout_text.find("readable"), std::string::npos) << outcome.stdout_text << outcome.stderr_text;
}

// Issue 37.2: a cell's daemon (forked twice, after setsid, so it is nobody's child) dies with its
// cell, and the memory it takes afterwards is never charged to the cell that runs beside it.
TEST(CellProcess, ADaemonDiesWithItsCellAndIsChargedToNoOther) {
  const std::string pid_file = ::testing::TempDir() + "/daemon_" + std::to_string(::getpid()) + ".pid";
  std::filesystem::remove(pid_file);
  const CellLimits limits{seconds(60), std::uint64_t{300} << 20};
  const std::string daemon = "import os, time\nopen('" + pid_file +
                             "', 'w').write(str(os.getpid()))\ntime.sleep(1.5)\n"
                             "hog = b'x' * (400 << 20)\ntime.sleep(30)\n";
  const ChildCommand detaches = cell_script_command(
      [&](const Sign& sign) {
        return "(setsid python3 -c \"" + daemon + "\" &); while [ ! -s " + pid_file + " ]; do sleep 0.05; done; echo " +
               sign(kPassedLine) + " >&3; exit 0";
      },
      limits);
  const ChildCommand innocent =
      cell_script_command([&](const Sign& sign) { return "sleep 6; echo " + sign(kPassedLine) + " >&3; exit 0"; }, limits);
  const std::vector<ChildOutcome> outcomes = run_children({detaches, innocent}, 2);
  const CellResult first = cell_result_from_child(outcomes[0], identity(), limits);
  const CellResult second = cell_result_from_child(outcomes[1], identity(), limits);
  EXPECT_EQ(first.state, CellState::Passed) << first.message;
  EXPECT_EQ(second.state, CellState::Passed) << second.message;
  EXPECT_LT(outcomes[1].peak_resident, std::uint64_t{300} << 20);
  const pid_t daemon_pid = read_pid(pid_file);
  ASSERT_GT(daemon_pid, 0) << "the daemon never started";
  EXPECT_FALSE(pid_alive(daemon_pid)) << "the daemon " << daemon_pid << " outlived its cell";
}

// Issue 37.7: one result per cell. A second signed result (a fork of the cell process that kept
// the channel and the key and ran the rest of the cell) makes the cell a harness error; the last
// line does not win.
TEST(CellProcess, ASecondResultIsAHarnessError) {
  std::string failed = kPassedLine;
  failed.replace(failed.find("passed"), 6, "failed");
  const CellResult cell = run_cell_script(
      [&](const Sign& sign) { return "echo " + sign(failed) + " >&3; echo " + sign(kPassedLine) + " >&3; exit 0"; });
  EXPECT_EQ(cell.state, CellState::HarnessError) << cell.message;
  EXPECT_NE(cell.message.find("more than one result"), std::string::npos) << cell.message;
}

// What something else in the cell process writes to the channel is not the cell's report: a result
// line unsigned, signed with another key, or signed and followed by a forged one.
TEST(CellProcess, AnUnsignedOrForeignResultLineIsNotAResult) {
  const std::string other_key = new_channel_key();
  for (const auto& script : std::vector<std::function<std::string(const Sign&)>>{
           [](const Sign&) { return "echo '" + kPassedLine + "' >&3; exit 0"; },
           [&](const Sign&) { return "echo '" + signed_line(other_key, kPassedLine) + "' >&3; exit 0"; },
           [](const Sign& sign) { return "echo " + sign(kCapturePhase) + " >&3; echo '" + kPassedLine + "' >&3; exit 0"; },
           [](const Sign& sign) { return "echo 'x' >&3; echo " + sign(kPassedLine) + " >&3; exit 0"; },
       }) {
    const CellResult cell = run_cell_script(script);
    EXPECT_EQ(cell.state, CellState::HarnessError) << cell.message;
    EXPECT_NE(cell.message.find("did not sign"), std::string::npos) << cell.message;
  }
}

TEST(CellProcess, AResultThatContradictsItselfIsAHarnessError) {
  const std::string contradicting = R"({"result":{"id":"probe","family":"config_built","roster":"r.yaml:4","state":"passed",)"
                                    R"("checks":[{"name":"output_matches","passed":false,"detail":"off by 3"}]}})";
  const CellResult cell = run_cell_script([&](const Sign& sign) { return "echo " + sign(contradicting) + " >&3; exit 0"; });
  EXPECT_EQ(cell.state, CellState::HarnessError);
  EXPECT_NE(cell.message.find("contradicts itself"), std::string::npos) << cell.message;
}

// A forward's stray bytes on stdout never reach a record as invalid UTF-8.
TEST(CellProcess, OutputThatIsNotUtf8IsRepaired) {
  const CellResult cell = run_cell_script("printf '\\377\\376 bytes\\n'; exit 1");
  EXPECT_EQ(cell.state, CellState::HarnessError);
  EXPECT_NE(cell.output.find("\xEF\xBF\xBD\xEF\xBF\xBD bytes"), std::string::npos) << cell.output;
  EXPECT_NO_THROW(cell.to_json().dump());
}

TEST(CellProcess, RunsSeveralAtOnceAndKeepsTheirOrder) {
  std::vector<ChildCommand> commands;
  commands.reserve(4);
  for (int i = 0; i < 4; ++i) commands.push_back({{"/bin/sh", "-c", "sleep 0.3; echo " + std::to_string(i)}, seconds(20)});
  const auto start = std::chrono::steady_clock::now();
  const std::vector<ChildOutcome> outcomes = run_children(commands, 2);
  EXPECT_LT(std::chrono::steady_clock::now() - start, seconds(5));
  ASSERT_EQ(outcomes.size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(outcomes[i].stdout_text, std::to_string(i) + "\n");
}

}  // namespace
}  // namespace tl
