#include "harness/cells/cell_phase.h"

#include "harness/io/name_table.h"

namespace tl {
namespace {

constexpr NameTable<CellPhase, 8> kNames{{
    {CellPhase::Capture, "capture"},
    {CellPhase::Eager, "eager"},
    {CellPhase::Checks, "checks"},
    {CellPhase::ReplayValidation, "replay_validation"},
    {CellPhase::DerivedGrads, "derived_grads"},
    {CellPhase::TlspecRoundTrip, "tlspec_round_trip"},
    {CellPhase::RefusalRequest, "refusal_request"},
    {CellPhase::CapabilityProof, "capability_proof"},
}};

std::function<void(CellPhase)>& listener() {
  static std::function<void(CellPhase)> instance;
  return instance;
}

}  // namespace

std::string_view to_string(CellPhase phase) { return name_in(kNames, phase); }

void set_phase_listener(std::function<void(CellPhase phase)> on_phase) { listener() = std::move(on_phase); }

void enter_phase(CellPhase phase) {
  if (listener()) listener()(phase);
}

}  // namespace tl
