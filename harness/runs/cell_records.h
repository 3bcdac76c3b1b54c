// Cell records: one JSON file per cell (DIR/ID.json), written by `tlconform cell --record DIR` (as
// the CTest cells do) and by `tlconform run --record DIR` (as a shard does), and read back by
// `tlconform scorecard --from DIR ...`, which merges the directories into one card. Each record
// carries the run that made it (record_provenance): a merge takes only records of the run its card
// claims, made from the roster files as they are now, claiming only states their rows grant.
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/backend/backend_spec.h"
#include "harness/report/scorecard.h"
#include "harness/roster/roster.h"
#include "harness/runs/cell_runs.h"
#include "harness/runs/run_facts.h"

namespace tl {

// The file `run --record` writes next to its records: who ran them (backend, leg, framework and
// Python versions, commit, roster digest, shard) and which cells, with their durations. Its name
// cannot be a cell's (ids are lower_snake_case).
constexpr const char* kRecordManifest = "run-manifest.json";

// A merge that would give a wrong card: a cell recorded nowhere or twice, records from different
// runs (another framework version, commit or roster), a directory that is not a record directory.
// Nothing is written; the CLI exits 3.
class MergeRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A recorded result the merge cannot take: unreadable, for another cell, or contradicting itself
// (a passed state beside a failed check: hand-edited). The message names the file; the CLI exits 3
// and writes nothing, as for any corrupt input.
class CorruptRecord : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A --record directory that is not one: it is a file, or holds anything but cell records, a run
// manifest and the temporary files of a killed write. Nothing is written; the CLI exits 2.
class RecordDirectoryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws RecordDirectoryError unless `directory` is absent or a directory of records (as a .tlspec
// save refuses a directory that holds anything but a bundle): --record never overwrites a user's file.
void check_record_directory(const std::string& directory);

// What a record says about the run that made it: backend, harness version, commit, the working
// tree's state (run_facts.h) and the digest of the row's roster file as the cell read it.
nlohmann::json record_provenance(const BackendSpec& spec, const Checkout& checkout, const std::string& roster_file);

// Removes DIR/ID.json of each row, so a cell that dies leaves no stale verdict behind (the merge
// then reports it missing), and the manifest of an earlier run. Creates DIR.
void clear_records(const std::string& directory, const std::vector<Roster>& rosters);
void write_record(const std::string& directory, const CellResult& result, const nlohmann::json& provenance);
// Written last: its presence says the run finished and lists what it recorded.
void write_manifest(const std::string& directory, const BackendSpec& spec, const RunFacts& facts, const std::string& shard,
                    const std::vector<CellRun>& runs);

struct MergedRecords {
  std::vector<CellRun> runs;  // every row of the rosters, in roster order
  RunFacts facts;             // the manifests' run, or (CTest's records) the run of this checkout now
};

// Every row of `rosters` from exactly one of `directories`. A directory with a manifest offers the
// cells it lists (each must be there); one without (CTest's) offers every DIR/ID.json of a row, and
// the card is then of this checkout now (`facts_here`, called only then).
// An unreadable, foreign or self-contradicting record, or one claiming a state its row does not
// grant (expected_fail without `xfail:`, unsupported or skipped without the `requires:` that makes
// it, passed where those say otherwise), is CorruptRecord. A missing or duplicated cell, manifests
// that disagree with each other, with `leg` or with these rosters, and a record of another run
// (backend, harness version, commit, working tree) or of another version of its roster file, is
// MergeRefused.
MergedRecords merge_records(const BackendSpec& spec, const std::vector<Roster>& rosters,
                            const std::vector<std::string>& directories, const std::string& leg,
                            const std::function<RunFacts()>& facts_here);

}  // namespace tl
