// Conformance cells: one roster row (or capability, or refusal) checked against a live backend.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/backend_protocol.h"
#include "harness/roster.h"

namespace tl {

// The closed set of results a cell can have (in the spirit of Khronos CTS).
enum class CellState { Passed, Failed, Refused, Skipped, Crashed, TimedOut, HarnessError };
const char* to_string(CellState state);
std::optional<CellState> cell_state_from_string(const std::string& name);

struct Check {
  std::string name;
  bool passed = false;
  std::string detail;
};

struct CellResult {
  std::string id;
  std::string family;
  SourceLocation roster;
  CellState state = CellState::HarnessError;
  std::string message;       // why, when not passed
  std::string refusal_code;  // for state Refused
  std::vector<Check> checks;
  std::optional<std::size_t> ops;  // ops recorded, for rows that captured
  std::string output;              // the cell process's own stdout/stderr (bounded), kept when not passed

  nlohmann::json to_json() const;
  static CellResult from_json(const nlohmann::json& json);
};

// Where a cell is ("build", "capture", "replay_validation", ...): each cell announces its phases
// here, so a supervisor can say where a cell that hangs or dies was. The listener is optional.
void set_phase_listener(std::function<void(const std::string& phase)> listener);
void enter_phase(const std::string& phase);

// Runs every check that applies to a row: capture, structure, one evaluation, outputs and RNG
// state equal to one eager forward, expected output values, constant kinds.
CellResult run_row_cell(BackendProtocol& backend, const RosterRow& row);

// A refusal row: the request must be refused with the row's code (the code is normative, the
// message a hint), and every state probe must show the framework as it was before the request.
CellResult run_refusal_cell(BackendProtocol& backend, const RosterRow& row);

// A capability row: the flag's positive check on a live capture (validation that passes and can
// fail; one evaluation and exact .tlspec round trip; derived grads equal to finite differences).
CellResult run_capability_cell(BackendProtocol& backend, const RosterRow& row);

// The cell for any row, by its family.
CellResult run_cell(BackendProtocol& backend, const RosterRow& row);

}  // namespace tl
