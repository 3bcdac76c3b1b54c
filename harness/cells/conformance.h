// Conformance cells: one roster row checked against a live backend, by the kind its family names
// (families.h), with the row's `requires:` and `xfail:` applied.
#pragma once

#include <string>

#include "harness/backend/backend_spec.h"
#include "harness/cells/cell_phase.h"
#include "harness/cells/cell_result.h"
#include "harness/model/cell_state.h"
#include "harness/roster/roster.h"

namespace tl {

// Why the row cannot run here, or nullopt: a required feature this run did not enable (the cell is
// skipped) or a version range the installed framework is outside (unsupported).
struct UnmetRequirement {
  CellState state;  // Skipped or Unsupported
  std::string message;
};
std::optional<UnmetRequirement> unmet_requirement(const BackendSpec& backend, const RosterRow& row);

// The cell of a row: skipped or unsupported when a requirement is unmet (the backend's protocol is
// not even made), otherwise its kind's run, then its `xfail:` applied: a failed or refused cell of an
// xfail row is expected_fail, a passed one unexpected_pass. A crash, a timeout or a harness error
// stays what it is: xfail names a known limit of the backend, not of the process.
CellResult run_cell(const BackendSpec& backend, const RosterRow& row);

// The xfail rule alone (what run_cell applies), for a result decided elsewhere.
void apply_xfail(const RosterRow& row, CellResult& result);

}  // namespace tl
