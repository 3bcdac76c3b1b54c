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

#include "cli/commands.h"
#include "cli/run_options.h"
#include "harness/cells/conformance.h"
#include "harness/io/atomic_file.h"
#include "harness/io/text_escape.h"
#include "harness/runs/cell_records.h"
#include "harness/supervise/cell_process.h"

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
  const ChildOutcome outcome = run_children({cell_command(backend_of(args), roster_file, row.id, settings.limits)}, 1).front();
  if (outcome.interrupted_by != 0) throw RunInterrupted(outcome.interrupted_by, {}, {row.id});  // no record of it
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
  nlohmann::json provenance;
  if (!record.empty()) {
    check_record_directory(record);
    provenance = record_provenance(backend_of(args), this_checkout(), roster_file);  // as the cell starts
    // No stale verdict: a cell that dies before the end leaves no record, which the check reports.
    std::filesystem::remove(std::filesystem::path(record) / (row.id + ".json"));
  }
  const std::unique_ptr<Reporter> reporter = document_reporter_of(args);
  const CellResult result = args.has("isolate") ? run_isolated(args, roster_file, row) : run_here(args, row);
  if (!record.empty()) write_record(record, result, provenance);
  // The supervisor reads the result from its channel; stdout belongs to the forward then.
  if (!args.values.contains("result-fd")) reporter->cell(row, result);
  return cell_exit_code(result.state);
}

}  // namespace tl::cli
