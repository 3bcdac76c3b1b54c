// Where a cell is: each cell announces its phases, so a supervisor can say where a cell that hangs
// or dies was. A closed set with one name table, like CellState.
#pragma once

#include <functional>
#include <string_view>

namespace tl {

enum class CellPhase {
  Capture,           // the backend builds the row and captures its forward
  Eager,             // the same row run eagerly from scratch
  Checks,            // outputs, RNG state, expected values compared
  ReplayValidation,  // the backend's replay validation of the live trace
  DerivedGrads,      // intermediate gradients derived and checked against autograd
  TlspecRoundTrip,   // the trace saved as .tlspec and read back
  RefusalRequest,    // a request that must be refused, with state probes around it
  CapabilityProof,   // a capability flag's proof on a live capture
};

std::string_view to_string(CellPhase phase);

// The listener is optional (a cell run in-process has none); one per process.
void set_phase_listener(std::function<void(CellPhase phase)> listener);
void enter_phase(CellPhase phase);

}  // namespace tl
