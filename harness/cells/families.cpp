#include "harness/cells/families.h"

#include <algorithm>

#include "harness/cells/cell_phase.h"
#include "harness/cells/checks.h"

namespace tl {
namespace {

// Capture, structure, one evaluation, outputs and RNG state equal to one eager forward, the model
// afterwards equal to an eager twin's, payloads equal to their ops realized alone, the row's expected
// values and constant kinds, replay validation, derived grads, and a .tlspec round trip.
CellResult run_row_cell(BackendProtocol& backend, const RosterRow& row) {
  CellResult result = CellResult::of(row);
  run_guarded(result, "capture", [&] {
    enter_phase(CellPhase::Capture);
    const RowCapture capture = backend.capture_row(row);
    const Trace& trace = capture.trace;
    result.ops = trace.size();
    result.checks.push_back({"capture", true, std::to_string(trace.size()) + " ops recorded"});
    result.checks.push_back(check_structure(trace));
    result.checks.push_back(check_one_evaluation(capture));
    enter_phase(CellPhase::Eager);
    const EagerRun eager = backend.eager_row(row);
    enter_phase(CellPhase::Checks);
    result.checks.push_back(check_outputs_equal_eager(trace, eager));
    const bool same_rng = capture.rng_state == eager.rng_state;
    result.checks.push_back({"rng_state_equal_eager", same_rng,
                             same_rng ? "RNG state after the capture equals one eager forward"
                                      : "after capture: " + capture.rng_state + "; after eager: " + eager.rng_state});
    result.checks.push_back(check_state_afterwards(capture, eager));
    result.checks.push_back(check_model_afterwards(capture, eager));
    result.checks.push_back(check_payloads_equal_alone(trace));
    if (row.expect.output || !row.expect.outputs.empty()) result.checks.push_back(check_expected_output(row, trace));
    if (row.expect.constant_kinds) result.checks.push_back(check_constant_kinds(row, trace));
    enter_phase(CellPhase::ReplayValidation);
    result.checks.push_back(check_replay_validation(backend, row, trace, eager));
    Trace with_grads = capture.trace;
    if (has_float_output(trace)) {
      enter_phase(CellPhase::DerivedGrads);
      result.checks.push_back(check_derived_grads(with_grads, eager));
    }
    enter_phase(CellPhase::TlspecRoundTrip);
    result.checks.push_back(check_tlspec_round_trip(with_grads, row.id));
  });
  settle(result);
  return result;
}

// The request must be refused with the row's code (the code is normative, the message a hint), and
// every state probe must show the framework as it was before the request.
CellResult run_refusal_cell(BackendProtocol& backend, const RosterRow& row) {
  CellResult result = CellResult::of(row);
  run_guarded(result, "refusal_code", [&] {
    enter_phase(CellPhase::RefusalRequest);
    const RefusalAttempt attempt = backend.refuse_row(row);
    const bool right_code = attempt.refused && attempt.code == row.expect.refusal;
    result.checks.push_back({"refusal_code", right_code,
                             attempt.refused ? "refused with " + attempt.code +
                                                   (right_code ? "" : ", expected " + row.expect.refusal) + ": " + attempt.message
                                             : attempt.message});
    for (const std::string& probe : attempt.probes) {
      const auto changed =
          std::find_if(attempt.changed.begin(), attempt.changed.end(), [&](const auto& entry) { return entry.first == probe; });
      const bool same = changed == attempt.changed.end();
      result.checks.push_back({probe, same, same ? "as before the request" : changed->second});
    }
    if (attempt.probes.empty()) result.checks.push_back({"state_probes", false, "the backend took no state probes"});
    if (right_code) result.refusal_code = attempt.code;
  });
  settle(result, /*refusal_expected=*/true);
  return result;
}

// The flag's proof (capability_proofs) on a live capture of the row.
CellResult run_capability_cell(BackendProtocol& backend, const RosterRow& row) {
  CellResult result = CellResult::of(row);
  run_guarded(result, "capture", [&] {
    enter_phase(CellPhase::Capture);
    RowCapture capture = backend.capture_row(row);
    result.ops = capture.trace.size();
    enter_phase(CellPhase::CapabilityProof);
    capability_proofs().at(row.capability)(backend, capture, row, result);
  });
  settle(result);
  return result;
}

// has_validation_replay: validation passes on the live trace, and fails, naming the op, once a
// compute op's payload is corrupted.
void prove_validation_replay(BackendProtocol& backend, RowCapture& capture, const RosterRow&, CellResult& result) {
  const Trace& trace = capture.trace;
  std::vector<Payload> outputs;
  for (const Op* op : trace.output_ops()) outputs.push_back(*op->out);
  const ValidationStatus status = backend.validate(trace, outputs);
  result.checks.push_back(
      {"validation_passes", status.passed(),
       std::string(to_string(status.state)) + " after replaying " + std::to_string(status.replayed) + " ops " + status.message});
  Trace corrupted = trace;
  auto victim = std::find_if(corrupted.ops.begin(), corrupted.ops.end(), [](const Op& op) { return op.kind == OpKind::Compute; });
  if (victim == corrupted.ops.end()) throw std::runtime_error("the row has no compute op to corrupt");
  for (auto& byte : victim->out->bytes) byte ^= 0x5a;
  const ValidationStatus broken = backend.validate(corrupted, outputs);
  result.checks.push_back({"validation_can_fail",
                           broken.state == ValidationState::Failed && broken.message.find(victim->label) != std::string::npos,
                           "after corrupting " + victim->label + ": " + to_string(broken.state) + " " + broken.message});
}

// payload_materialization: one evaluation, every op with a payload, and an exact .tlspec round trip.
void prove_payload_materialization(BackendProtocol&, RowCapture& capture, const RosterRow& row, CellResult& result) {
  result.checks.push_back(check_one_evaluation(capture));
  result.checks.push_back(check_structure(capture.trace));
  result.checks.push_back(check_tlspec_round_trip(capture.trace, row.id));
}

// intermediate_derived_grads: input grads equal the framework's autograd on an eager twin, and
// intermediates' its autograd with the op as a leaf (finite differences where it cannot answer).
void prove_derived_grads(BackendProtocol& backend, RowCapture& capture, const RosterRow& row, CellResult& result) {
  result.checks.push_back(check_derived_grads(capture.trace, backend.eager_row(row)));
}

}  // namespace

const std::map<Family, FamilyCell>& family_cells() {
  static const std::map<Family, FamilyCell> cells{
      {Family::ConfigBuilt, {"a forward over layers built from config: every capture check", run_row_cell}},
      {Family::RandomInit, {"a seeded forward: every capture check, RNG state equal eager", run_row_cell}},
      {Family::Ecosystem, {"a model imported from the framework's ecosystem: every capture check", run_row_cell}},
      {Family::OpSweep, {"one framework op on the inputs that break tracers (generated): every capture check", run_row_cell}},
      {Family::Refusal, {"a request refused with its code, the framework's state untouched", run_refusal_cell}},
      {Family::Capability, {"one capability flag proved on a live capture", run_capability_cell}},
  };
  return cells;
}

const std::map<std::string, CapabilityProof, std::less<>>& capability_proofs() {
  static const std::map<std::string, CapabilityProof, std::less<>> proofs{
      {"has_validation_replay", prove_validation_replay},
      {"payload_materialization", prove_payload_materialization},
      {"intermediate_derived_grads", prove_derived_grads},
  };
  return proofs;
}

RosterVocabulary roster_vocabulary(const BackendSpec& spec) {
  RosterVocabulary vocabulary{.backend = spec.name,
                              .layer_types = {spec.layer_types.begin(), spec.layer_types.end()},
                              .features = {},
                              .capabilities = {},
                              .distribution = spec.distribution};
  for (const Feature& feature : spec.features) vocabulary.features.insert(feature.name);
  for (const auto& [flag, proof] : capability_proofs()) vocabulary.capabilities.insert(flag);
  return vocabulary;
}

}  // namespace tl
