// tlconform run: the selected cells, each in its own process, shown by the --format reporter (a
// line per cell and a summary by default), and a scorecard file (default scorecard.json in the
// directory tlconform started in; the path is printed at the end).
// --shard K/N runs a stable part of them; --record DIR keeps each cell's result and a manifest of
// the run for `tlconform scorecard --from DIR ...` (how shards are merged).
#include <filesystem>
#include <iostream>
#include <map>

#include "cli/commands.h"
#include "cli/run_options.h"
#include "harness/io/atomic_file.h"
#include "harness/io/text_escape.h"
#include "harness/runs/cell_records.h"
#include "harness/runs/run_facts.h"
#include "harness/runs/shard.h"

namespace tl::cli {

int run_command(const Args& args) {
  const std::vector<Roster> rosters = load_rosters(args);
  // Beside the user, as every other path on the command line: never inside the source tree unasked.
  const std::string out = writable_output("out", args.value("out", std::filesystem::absolute("scorecard.json").string()));
  const RunSettings settings = run_settings(args);
  const BackendSpec& spec = backend_of(args);
  not_the_file("out", out, spec.committed_scorecard(),
               "the committed scorecard (only scorecard --write replaces it, after its checks)");
  const std::unique_ptr<Reporter> reporter = reporter_of(args);
  std::vector<Roster> selected = rosters;
  std::string shard;
  if (args.values.contains("shard")) {
    if (args.values.contains("row"))
      throw UsageError("--shard splits every row of the rosters; narrow them with --roster, not --row");
    const Shard part = parse_shard(args.value("shard"));
    selected = shard_of(rosters, part);
    shard = to_string(part);
  }
  const Checkout checkout = this_checkout();  // the code and rosters the cells run
  const std::string record = args.value("record");
  std::map<std::string, nlohmann::json> provenance;  // each row's record's, by id
  if (!record.empty()) {
    check_record_directory(record);
    writable_parent("record", (std::filesystem::path(record) / kRecordManifest).string());
    clear_records(record, selected);
    for (const Roster& roster : selected) {
      const nlohmann::json of_file = record_provenance(spec, checkout, roster_path(roster));
      for (const RosterRow& row : roster.rows) provenance[row.id] = of_file;
    }
  }
  const auto progress = reporter_progress(*reporter);
  const RunOutcome outcome = run_or_interrupted([&] {
    return run_cells(spec, selected, args.all("row"), settings, [&](const CellRun& run, std::size_t done, std::size_t total) {
      // As each ends: a shard killed later keeps what it finished.
      if (!record.empty()) write_record(record, run.result, provenance.at(run.result.id));
      progress(run, done, total);
    });
  });
  const std::vector<CellRun>& runs = outcome.runs;
  // The digest is of the roster files, so a shard's card and manifest name the whole roster it is part of.
  const RunFacts facts = run_facts(spec, rosters, runs, args.value("leg", "pinned"), settings.limits.time, checkout);
  Scorecard card = make_scorecard(spec, facts, results_of(runs));
  card.interrupted = outcome.interrupted;
  write_file_atomically(out, json_text(card.to_json(), 2) + "\n");
  // The manifest says the run finished: an interrupted one has none, so a merge reports its missing cells.
  if (!record.empty() && !outcome.interrupted) write_manifest(record, spec, facts, shard, runs);
  reporter->run_finished(card, results_of(runs));
  std::cerr << "scorecard written to " << terminal_line(out) << (shard.empty() ? "" : " (shard " + shard + ")") << "\n";
  if (outcome.interrupted) return interrupted_exit(outcome, out);
  for (const CellRun& run : runs) {
    if (is_failure(run.result.state)) return kExitFailed;
  }
  return kExitPassed;
}

}  // namespace tl::cli
