// tlconform scorecard: the whole suite as a scorecard. --write replaces the committed scorecard
// (the pinned leg only); --check compares with it (or with --baseline FILE) and fails on
// regressions, printing every drift as `before -> after`. --from DIR (repeatable) merges cell records
// instead of running the cells again: those of `tlconform cell --record DIR` (as the CTest cells
// write them) or of `tlconform run --shard K/N --record DIR` (harness/runs/cell_records.h).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "cli/commands.h"
#include "cli/run_options.h"
#include "harness/io/atomic_file.h"
#include "harness/io/json_file.h"
#include "harness/io/text_escape.h"
#include "harness/report/committed_card.h"
#include "harness/runs/cell_records.h"
#include "harness/runs/run_facts.h"

namespace tl::cli {

namespace {

// The card --check compares with, read and checked whole before any cell runs: a corrupt baseline
// is its own error (exit 3), and --write cannot change what --check compares with.
std::optional<Scorecard> baseline_of(const Args& args, const std::string& path) {
  if (!args.has("check")) return std::nullopt;
  try {
    return read_scorecard(path);
  } catch (const ScorecardError& error) {
    if (error.missing()) throw UsageError("no scorecard at " + path + " to check against");
    throw;
  }
}

// --write replaces the committed card only with what may replace it (committed_card.h): the
// pinned leg, every row run and ended as it asks, none that stops being tested, a clean checkout.
void write_committed(const BackendSpec& spec, const Scorecard& card) {
  std::optional<Scorecard> committed;
  try {
    committed = read_scorecard(spec.committed_scorecard());
  } catch (const ScorecardError& error) {
    if (!error.missing()) throw;
  }
  const std::string worktree_now = git_worktree_state(std::filesystem::path(spec.committed_scorecard()).parent_path());
  if (const std::optional<std::string> why = why_not_committed(spec, card, committed, worktree_now))
    throw UsageError(*why + "; the committed scorecard is left as it was");
  write_file_atomically(spec.committed_scorecard(), json_text(card.to_json(), 2) + "\n");
  std::cerr << "committed scorecard updated: " << terminal_line(spec.committed_scorecard()) << "\n";
}

// Prints every drift from the baseline (to stderr: stdout is the report's); true when none regressed.
bool check_against(const Scorecard& baseline, const std::string& path, const Scorecard& card) {
  const std::vector<Drift> drift = scorecard_drift(baseline, card);
  int regressions = 0;
  for (const Drift& d : drift) {
    // The ids and states come from the cards: shown, never acted on by the terminal.
    std::cerr << (d.regression ? "REGRESSION " : "drift      ") << d.what << " " << terminal_line(d.id) << ": "
              << terminal_line(d.before) << " -> " << terminal_line(d.after) << "\n";
    regressions += d.regression ? 1 : 0;
  }
  std::cerr << "check against " << terminal_line(path) << ": " << drift.size() << " drift(s), " << regressions
            << " regression(s)\n";
  return regressions == 0;
}

}  // namespace

int scorecard_command(const Args& args) {
  const BackendSpec& spec = backend_of(args);
  const std::vector<Roster> rosters = load_rosters(args);
  const std::string leg = args.value("leg", "pinned");
  if (args.has("write") && leg != "pinned") {
    // Refused before any cell runs; the framework version is checked once it is known.
    throw UsageError("--write is for the pinned leg (this is leg " + leg + "); the committed scorecard is left as it was");
  }
  // Beside the user, as every other path on the command line: never inside the source tree unasked.
  const std::string out =
      writable_output("out", args.value("out", std::filesystem::absolute("scorecard-" + leg + ".json").string()));
  const std::string baseline_path = args.value("baseline", spec.committed_scorecard());
  // A run's card never lands on what it is compared with, or on the committed card (which only
  // --write replaces, after its checks).
  not_the_file("out", out, spec.committed_scorecard(), "the committed scorecard (only --write replaces it, after its checks)");
  if (args.has("check")) {
    not_the_file("out", out, baseline_path, "the --check baseline (the fresh card over it would leave nothing to compare)");
  }
  const std::optional<Scorecard> baseline = baseline_of(args, baseline_path);
  const std::unique_ptr<Reporter> reporter = reporter_of(args);
  const RunSettings settings = run_settings(args);
  const Checkout checkout = this_checkout();  // the code and rosters the cells run
  RunOutcome outcome;
  std::optional<RunFacts> facts;
  if (args.values.contains("from")) {
    MergedRecords merged = merge_records(spec, rosters, args.all("from"), args.value("leg"),
                                         [&] { return run_facts(spec, rosters, {}, leg, settings.limits.time, checkout); });
    outcome.runs = std::move(merged.runs);
    facts = std::move(merged.facts);  // the shards' own, when their manifests say
  } else {
    outcome = run_or_interrupted([&] { return run_cells(spec, rosters, {}, settings, reporter_progress(*reporter)); });
  }
  const std::vector<CellRun>& runs = outcome.runs;
  if (!facts) facts = run_facts(spec, rosters, runs, leg, settings.limits.time, checkout);
  Scorecard card = make_scorecard(spec, *facts, results_of(runs));
  card.interrupted = outcome.interrupted;
  write_file_atomically(out, json_text(card.to_json(), 2) + "\n");
  reporter->run_finished(card, results_of(runs));
  std::cerr << "scorecard written to " << terminal_line(out) << "\n";
  // The cells a stopped run did not finish were not run: neither written as the committed card nor
  // checked against it.
  if (outcome.interrupted) return interrupted_exit(outcome, out);

  int status = kExitPassed;
  for (const CellRun& run : runs) {
    if (is_failure(run.result.state)) status = kExitFailed;
  }
  if (args.has("write")) write_committed(spec, card);
  if (baseline && !check_against(*baseline, baseline_path, card)) status = kExitFailed;
  return status;
}

}  // namespace tl::cli
