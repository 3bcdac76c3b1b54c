// Cell records: one JSON file per cell (DIR/ID.json), written by `tlconform cell --record DIR` (as
// the CTest cells do) and by `tlconform run --record DIR` (as a shard does), and read back by
// `tlconform scorecard --from DIR ...`, which merges the directories into one card.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/backend/backend_spec.h"
#include "harness/report/scorecard.h"
#include "harness/roster/roster.h"
#include "harness/runs/cell_runs.h"

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

// Removes DIR/ID.json of each row, so a cell that dies leaves no stale verdict behind (the merge
// then reports it missing), and the manifest of an earlier run. Creates DIR.
void clear_records(const std::string& directory, const std::vector<Roster>& rosters);
void write_record(const std::string& directory, const CellResult& result);
// Written last: its presence says the run finished and lists what it recorded.
void write_manifest(const std::string& directory, const BackendSpec& spec, const RunFacts& facts, const std::string& shard,
                    const std::vector<CellRun>& runs);

struct MergedRecords {
  std::vector<CellRun> runs;      // every row of the rosters, in roster order
  std::optional<RunFacts> facts;  // from the manifests, when the directories have them
};

// Every row of `rosters` from exactly one of `directories`. A directory with a manifest offers the
// cells it lists (each must be there); one without (CTest's) offers every DIR/ID.json of a row.
// An unreadable, foreign or self-contradicting record is CorruptRecord; a missing or duplicated
// cell, or manifests that disagree with each other, with `leg` or with these rosters, is MergeRefused.
MergedRecords merge_records(const BackendSpec& spec, const std::vector<Roster>& rosters,
                            const std::vector<std::string>& directories, const std::string& leg);

}  // namespace tl
