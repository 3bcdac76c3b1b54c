// The scorecard: a deterministic JSON account of every cell, with run-dependent facts kept apart.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/backend_spec.h"
#include "harness/conformance.h"

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

// A digest of files' contents (FNV-1a 64, hex), stable across machines.
std::string digest_files(const std::vector<std::string>& paths);

// The whole card: spec, provenance, cells (roster order), capability states computed from the
// cells, a summary, and the run-dependent `run` object. Keys are sorted (nlohmann objects are).
nlohmann::json make_scorecard(const BackendSpec& spec, const RunFacts& facts, const std::vector<CellResult>& cells);

// One cell's or capability's change between two scorecards, e.g. "passed -> failed".
struct Drift {
  std::string what;  // "cell" or "capability"
  std::string id;
  std::string before;  // "absent" when it was not there
  std::string after;
  bool regression = false;  // a passed cell now failed, refused, crashed, timed out or lost; a capability flipped
};

// Drift of cell states and capability states from `committed` to `fresh`, in the fresh card's order.
std::vector<Drift> scorecard_drift(const nlohmann::json& committed, const nlohmann::json& fresh);

// Counts by state, overall and per family.
nlohmann::json summarize(const std::vector<CellResult>& cells);

}  // namespace tl
