// The scorecard: a deterministic JSON account of every cell, with run-dependent facts kept apart.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/backend_spec.h"
#include "harness/conformance.h"

namespace tl {

struct RunFacts {
  std::string framework_version_seen;
  std::string python_version;
  std::string roster_digest;  // of the roster files' bytes, in name order
  std::string leg = "pinned";
  nlohmann::json run = nlohmann::json::object();  // date, host, durations: the only run-dependent part
};

// A digest of files' contents (FNV-1a 64, hex), stable across machines.
std::string digest_files(const std::vector<std::string>& paths);

nlohmann::json make_scorecard(const BackendSpec& spec, const RunFacts& facts, const std::vector<CellResult>& cells);

// Counts by state, overall and per family.
nlohmann::json summarize(const std::vector<CellResult>& cells);

}  // namespace tl
