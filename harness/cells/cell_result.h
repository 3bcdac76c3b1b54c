// What a cell found: its identity (row id, family, roster file:line), its state, and every check.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/model/cell_state.h"
#include "harness/roster/roster.h"

namespace tl {

// How much of what a check could judge it judged: ops compared, gradients checked. A sample says
// checked < of; the card keeps it, so a check that quietly judges less is drift (scorecard_drift).
struct Coverage {
  std::size_t checked = 0;
  std::size_t of = 0;
  bool operator==(const Coverage&) const = default;
};

// A coverage's one JSON form, {"checked": N, "of": M}, in a cell record and on the card.
nlohmann::json coverage_to_json(const Coverage& coverage);
// Throws std::invalid_argument, saying what is wrong, unless `json` is that form: whole numbers, N at
// most M.
Coverage coverage_from_json(const nlohmann::json& json);

struct Check {
  std::string name;
  bool passed = false;
  std::string detail;
  std::optional<Coverage> coverage;  // for the checks that judge ops one by one
};

struct CellResult {
  std::string id;
  std::string family;
  SourceLocation roster;
  CellState state = CellState::HarnessError;
  std::string message;       // why, when not passed
  std::string refusal_code;  // the code a refusal row was refused with, or a capturing row refused with
  std::vector<Check> checks;
  std::optional<std::size_t> ops;  // ops recorded, for rows that captured
  std::string output;              // the cell process's own stdout/stderr (bounded), kept when not passed

  // The one place a cell's identity is taken from its row; the state starts as harness_error, so a
  // result nobody finished never reads as passed.
  static CellResult of(const RosterRow& row);

  // Every check that failed, one per line ("name: detail").
  std::vector<std::string> failed_checks() const;

  // What makes this result contradict itself, or nullopt: a passing state (passed, unexpected_pass)
  // beside a check of its own that failed. A record like that was edited or corrupted, not written
  // by a cell.
  std::optional<std::string> contradiction() const;

  nlohmann::json to_json() const;
  static CellResult from_json(const nlohmann::json& json);
};

}  // namespace tl
