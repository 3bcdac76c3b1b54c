// The scorecard: a deterministic JSON account of every cell, with run-dependent facts kept apart.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/backend_spec.h"
#include "harness/cell_result.h"

namespace tl {

struct RunFacts {
  std::string harness_version;
  std::string git_commit;
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

// The whole card: spec, provenance, cells (roster order), capability states computed from the
// cells, a summary, and the run-dependent `run` object. Keys are sorted (nlohmann objects are).
nlohmann::json make_scorecard(const BackendSpec& spec, const RunFacts& facts, const std::vector<CellResult>& cells);

// A scorecard that cannot be used: missing, not a regular file, too large or deep, not JSON, or not
// the shape make_scorecard writes (an unknown state, a duplicate cell id, ...). The message names the
// file and, where there is one, the cell or capability.
class ScorecardError : public std::runtime_error {
 public:
  explicit ScorecardError(const std::string& message, bool missing = false) : std::runtime_error(message), missing_(missing) {}
  bool missing() const { return missing_; }  // the file is not there at all

 private:
  bool missing_;
};

// Checks everything a reader relies on: an object with schema_version 1; `cells` a list of objects
// with string id, family and state, the state one of the closed set, every id once; `capabilities`
// a list of objects with string name and state (supported, unsupported or untested), every name
// once; `provenance` and `spec` objects of strings; `summary` and `run` objects. Throws
// ScorecardError naming `source`.
void check_scorecard(const nlohmann::json& card, const std::string& source);

// A scorecard file, read within the byte and depth budgets (harness/json_file.h) and checked.
nlohmann::json read_scorecard(const std::string& path);

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
  bool regression = false;  // a passed cell now failed, refused, crashed, timed out or lost; a capability flipped
};

// Drift of cell states and capability states from `committed` to `fresh`, in the fresh card's order.
// Both cards are checked first (check_scorecard): a malformed one is a ScorecardError, not drift.
std::vector<Drift> scorecard_drift(const nlohmann::json& committed, const nlohmann::json& fresh);

// Counts by state, overall and per family.
nlohmann::json summarize(const std::vector<CellResult>& cells);

}  // namespace tl
