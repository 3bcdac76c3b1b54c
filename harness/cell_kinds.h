// The kinds of cell, keyed by the family a roster row names: what each kind runs and checks. The
// roster loader reads the same tables, so an unknown family or capability flag is a load-time
// error at its file:line, never a cell that silently checks nothing.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "harness/backend_protocol.h"
#include "harness/cell_result.h"
#include "harness/roster.h"

namespace tl {

using CellRunner = std::function<CellResult(BackendProtocol&, const RosterRow&)>;

struct CellKind {
  Family family;
  std::string checks;  // what the kind checks, in a line (for `tlconform help` and the docs)
  CellRunner run;
};

// Every kind, by family name: config_built, random_init and ecosystem rows capture a forward and
// are checked against one eager forward; refusal rows must be refused, leaving the framework as it
// was; capability rows prove one declared capability flag on a live capture.
const std::map<std::string, CellKind, std::less<>>& cell_kinds();

// How a capability row proves its flag on the row's capture: adds its checks to the result.
using CapabilityProof = std::function<void(BackendProtocol&, RowCapture&, const RosterRow&, CellResult&)>;
// Every flag a capability row may name, with its proof.
const std::map<std::string, CapabilityProof, std::less<>>& capability_proofs();

}  // namespace tl
