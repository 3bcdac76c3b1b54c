// The scorecard: a deterministic account of every cell of a run, with run-dependent facts kept apart.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/backend/backend_spec.h"
#include "harness/backend/capabilities.h"
#include "harness/cells/cell_result.h"

namespace tl {

struct RunFacts {
  std::string harness_version;
  std::string git_commit;
  std::string git_worktree;  // "clean", "dirty" or "unknown" (run_facts.h)
  std::string framework_version_seen;
  std::string python_version;
  std::string roster_digest;  // of the roster files' bytes, in name order
  std::string leg = "pinned";
  nlohmann::json run = nlohmann::json::object();  // date, host, durations: the only run-dependent part
};

// The backend's requirement table as JSON (the scorecard's `spec`; `tlconform spec --json`).
nlohmann::json spec_json(const BackendSpec& spec);

// FNV-1a 64 of `bytes`, continuing from `hash`: stable across machines and runs.
std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t hash = 0xcbf29ce484222325ULL);
// A digest of files' contents (FNV-1a 64, hex), stable across machines.
std::string digest_files(const std::vector<std::string>& paths);

// A scorecard that cannot be used: missing, not a regular file, too large or deep, not JSON, or not
// the shape Scorecard::to_json writes (an unknown state, a duplicate cell id, ...). The message names the
// file and, where there is one, the cell or capability.
class ScorecardError : public std::runtime_error {
 public:
  explicit ScorecardError(const std::string& message, bool missing = false) : std::runtime_error(message), missing_(missing) {}
  bool missing() const { return missing_; }  // the file is not there at all

 private:
  bool missing_;
};

// A check that failed in a cell: its name and what it found (cut to 2,000 characters).
struct CheckFailure {
  std::string check;
  std::string detail;
};

// One cell as the card records it: check names and the state always; the why (message, failed
// checks and their details) only for a cell that did not pass.
struct ScorecardCell {
  std::string id;
  std::string family;
  std::string roster;  // file:line of the row
  CellState state = CellState::Passed;
  std::optional<std::uint64_t> ops;
  std::string refusal_code;
  std::string message;
  std::vector<std::string> checks;
  std::vector<std::string> failed_checks;
  std::vector<CheckFailure> failures;
  std::map<std::string, Coverage> coverage;  // a passed check's, by check name (cell_result.h)
};

// Why a card holds only some of its run's cells: a signal stopped the run (tlconform run and
// scorecard on SIGINT or SIGTERM). The card then holds the cells that finished, and is no baseline.
struct Interruption {
  std::string signal;                   // "SIGINT", "SIGTERM"
  std::vector<std::string> unfinished;  // the ids of the cells that did not finish, roster order
};

// A run's scorecard: the backend's requirement table, provenance, every cell (roster order), the
// capability table with states computed from the cells, a tally, and the run-dependent facts kept
// apart so a committed card diffs cleanly. to_json is the one writer (keys sorted, deterministic);
// from_json (and read_scorecard over it) the one reader.
struct Scorecard {
  // Not an aggregate: `Scorecard{json}` would quietly read the JSON as `backend`. A card comes from
  // make_scorecard, from_json or read_scorecard.
  Scorecard() = default;

  std::string backend;
  std::map<std::string, std::string> spec;        // spec_json
  std::map<std::string, std::string> provenance;  // versions, commit, roster digest, leg
  std::vector<ScorecardCell> cells;
  std::vector<CapabilityRow> capabilities;
  nlohmann::json summary = nlohmann::json::object();  // summarize(cells): counts by state and family
  nlohmann::json run = nlohmann::json::object();      // date, host, durations_s, cell_time_limit_s
  std::optional<Interruption> interrupted;            // written as `interrupted` only when there is one

  // A provenance field; "" when the card lacks it.
  std::string provenance_of(const std::string& key) const;
  // Each cell's seconds in the run that wrote the card (cells merged from records have none).
  std::map<std::string, double> durations() const;

  nlohmann::json to_json() const;
  // Checks everything a reader relies on: an object with schema_version 1; `cells` a list of
  // objects with string id, family, roster and state, the state one of the closed set, every id
  // once, `checks` (and `failed_checks`) lists of strings; `capabilities` a list of objects with
  // string name and a state of supported, unsupported or untested, every name once; `provenance`
  // and `spec` objects of strings; `summary` and `run` objects; `interrupted`, where present, an
  // object with a string `signal` and a list of strings `unfinished`. Throws ScorecardError naming `source`.
  static Scorecard from_json(const nlohmann::json& card, const std::string& source);
};

// The card of a run's cells.
Scorecard make_scorecard(const BackendSpec& spec, const RunFacts& facts, const std::vector<CellResult>& cells);

// A scorecard file, read within the byte and depth budgets (harness/io/json_file.h) and checked.
Scorecard read_scorecard(const std::string& path);

// The capability table of `spec` with states from the cells of a pinned-leg scorecard file (the
// committed one, for the CLI and the Python package). No file: every row is untested; a corrupt
// one is a ScorecardError.
std::vector<CapabilityRow> capability_rows_from(const BackendSpec& spec, const std::string& scorecard_path);

// One cell's or capability's change between two scorecards, e.g. "passed -> failed".
struct Drift {
  std::string what;  // "cell" or "capability"
  std::string id;
  std::string before;  // "absent" when it was not there
  std::string after;
  // A passed cell now failed, refused, crashed, timed out or lost, or passed without a check it ran;
  // a capability flipped. On the pinned leg also a cell no longer tested (is_regression), a passed
  // cell with another op count or a check that judged fewer of its ops (or no longer all of them),
  // and a capability that lost its proof.
  bool regression = false;
};

// Drift of cell states (and of a passed cell's checks and op count) and capability states from
// `committed` to `fresh` (the extra drift after the state drift), in the fresh card's order;
// `fresh`'s leg decides which rule applies.
std::vector<Drift> scorecard_drift(const Scorecard& committed, const Scorecard& fresh);

// Counts by state, overall and per family.
nlohmann::json summarize(const std::vector<CellResult>& cells);

}  // namespace tl
