// What a cell runs and checks, per family of roster row, and what rows may name: an unknown family,
// capability flag, layer type or feature is a load-time error at its file:line (the roster loader
// reads roster_vocabulary), never a cell that silently checks nothing.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "harness/backend/backend_spec.h"
#include "harness/cells/cell_result.h"
#include "harness/judge/protocol.h"
#include "harness/roster/roster.h"

namespace tl {

using CellRunner = std::function<CellResult(BackendProtocol&, const RosterRow&)>;

struct FamilyCell {
  std::string checks;  // what the family's cell checks, in a line (for `tlconform help` and the docs)
  CellRunner run;
};

// Every family's cell: config_built, random_init, ecosystem and op_sweep rows capture a forward and
// are checked against one eager forward; refusal rows must be refused, leaving the framework as it
// was; capability rows prove one declared capability flag on a live capture.
const std::map<Family, FamilyCell>& family_cells();

// How a capability row proves its flag on the row's capture: adds its checks to the result.
using CapabilityProof = std::function<void(BackendProtocol&, RowCapture&, const RosterRow&, CellResult&)>;
// Every flag a capability row may name, with its proof.
const std::map<std::string, CapabilityProof, std::less<>>& capability_proofs();

// What the backend's roster rows may name: its spec's layer types, features and framework, and the
// flags capability_proofs can prove.
RosterVocabulary roster_vocabulary(const BackendSpec& spec);

}  // namespace tl
