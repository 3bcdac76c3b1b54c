// tlconform cell: run one cell. By default in this process (for a debugger); with --isolate in a
// supervised child process, as `run` does and as CTest runs each cell, so a crash, a hang, a memory
// blow-up or a process left behind cannot take the caller down. With --result-fd and --key-fd (how
// the supervisor hears from it) the cell reads its channel key, then reports its phases and result
// on the result descriptor, each line signed with that key, and prints nothing.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>

#include "cli/cell_runner.h"
#include "cli/commands.h"
#include "harness/atomic_file.h"
#include "harness/cell_process.h"
#include "harness/conformance.h"
#include "harness/text_escape.h"

namespace tl::cli {
namespace {

CellResult run_here(const Args& args, const RosterRow& row) {
  std::optional<ResultChannel> channel;
  const auto start = std::chrono::steady_clock::now();
  if (args.values.contains("result-fd")) {
    // Before any roster code runs: the key is read and its descriptor closed.
    if (!args.values.contains("key-fd")) throw UsageError("--result-fd needs --key-fd: the descriptor holding the channel's key");
    channel.emplace(ResultChannel::open(static_cast<int>(args.integer("result-fd", 0, 3, 1 << 20)),
                                        static_cast<int>(args.integer("key-fd", 0, 3, 1 << 20))));
    set_phase_listener([&](CellPhase phase) { channel->phase(std::string(to_string(phase))); });
  } else if (::isatty(STDERR_FILENO) != 0) {
    // A person waiting on a long cell sees where it is and how long it has taken so far.
    set_phase_listener([&](CellPhase phase) {
      const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
      std::fprintf(stderr, "  ...   %s (at %.1f s)\n", std::string(to_string(phase)).c_str(), elapsed.count());
    });
  }
  CellResult result = run_cell(backend_of(args), row);
  set_phase_listener(nullptr);
  if (channel) channel->result(result);
  return result;
}

CellResult run_isolated(const Args& args, const std::string& roster_file, const RosterRow& row) {
  RunSettings settings = run_settings(args);
  const CellResult identity = CellResult::of(row);
  const ChildOutcome outcome = run_children({cell_spec(backend_of(args), roster_file, row.id, settings.limits)}, 1).front();
  return cell_result_from_child(outcome, identity, settings.limits, row.xfail);
}

}  // namespace

int cell_command(const Args& args) {
  const std::vector<Roster> rosters = load_rosters(args);
  const RosterRow& row = find_row(rosters, args.required("row"));
  std::string roster_file;
  for (const Roster& roster : rosters) {
    for (const RosterRow& candidate : roster.rows) {
      if (&candidate == &row) roster_file = roster_path(roster);
    }
  }
  const std::string record = args.value("record");
  if (!record.empty()) {
    // No stale verdict: a cell that dies before the end leaves no record, which the check reports.
    std::filesystem::remove(std::filesystem::path(record) / (row.id + ".json"));
  }
  const CellResult result = args.has("isolate") ? run_isolated(args, roster_file, row) : run_here(args, row);
  if (!record.empty()) {
    std::filesystem::create_directories(record);
    write_file_atomically((std::filesystem::path(record) / (row.id + ".json")).string(), json_text(result.to_json()) + "\n");
  }
  if (args.values.contains("result-fd")) {
    // The supervisor reads the result from its channel; stdout belongs to the forward.
  } else if (args.has("json")) {
    std::cout << json_text(result.to_json()) << std::endl;
  } else {
    // For a terminal: what the cell found is shown, never acted on (text_escape.h).
    for (const Check& check : result.checks)
      std::cout << (check.passed ? "  ok    " : "  FAIL  ") << check.name << ": " << terminal_text(check.detail) << "\n";
    std::cout << terminal_line(row.where.str()) << ": row " << row.id << " " << to_string(result.state);
    if (result.state != CellState::Passed) std::cout << ": " << terminal_text(result.message);
    if (!result.output.empty() && result.state != CellState::Passed) std::cout << "\n" << terminal_text(result.output);
    std::cout << std::endl;
  }
  return cell_exit_code(result.state);
}

}  // namespace tl::cli
