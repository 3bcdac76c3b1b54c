#include "harness/conformance.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include <unistd.h>
#include <filesystem>

#include "harness/errors.h"
#include "harness/finite_differences.h"
#include "harness/refusal.h"
#include "harness/trace_compare.h"

namespace tl {
namespace {

constexpr CellState kAllStates[] = {CellState::Passed,  CellState::Failed,   CellState::Refused,     CellState::Skipped,
                                    CellState::Crashed, CellState::TimedOut, CellState::HarnessError};

Check check_structure(const Trace& trace) {
  // No silent holes: parents come first, and only inputs and constants stand without parents.
  for (const Op& op : trace.ops) {
    for (const ParentRef& parent : op.parents) {
      if (parent.op >= op.index)
        return {"structure", false, op.label + " has parent " + std::to_string(parent.op) + " that does not precede it"};
    }
    const bool leaf = op.kind == OpKind::Input || op.kind == OpKind::Constant;
    if (leaf != op.parents.empty())
      return {"structure", false, op.label + (leaf ? " is a leaf with parents" : " has no parent edge")};
    if (!op.out) return {"structure", false, op.label + " has no payload"};
  }
  if (trace.outputs.empty()) return {"structure", false, "the trace has no output op"};
  return {"structure", true, std::to_string(trace.size()) + " ops, parents before children, every op has a payload"};
}

Check check_one_evaluation(const RowCapture& capture) {
  const CaptureStats& stats = capture.trace.stats;
  const bool ok = capture.observed_evaluations == 1 && stats.evaluations == 1 && capture.observed_kernels == stats.kernels;
  return {"one_evaluation", ok,
          "probe saw " + std::to_string(capture.observed_evaluations) + " evaluation(s) and " +
              std::to_string(capture.observed_kernels) + " kernel(s); the trace reports " + std::to_string(stats.evaluations) +
              " evaluation(s) of " + std::to_string(stats.kernels) + " kernel(s)"};
}

Check check_outputs_equal_eager(const Trace& trace, const EagerRun& eager) {
  if (trace.outputs.size() != eager.outputs.size()) {
    return {"outputs_equal_eager", false,
            std::to_string(trace.outputs.size()) + " output ops, eager returned " + std::to_string(eager.outputs.size())};
  }
  for (std::size_t i = 0; i < eager.outputs.size(); ++i) {
    const Op& op = trace.ops[trace.outputs[i]];
    const Comparison comparison = compare(eager.outputs[i], *op.out);
    if (!comparison.equal)
      return {"outputs_equal_eager", false, "output " + std::to_string(i) + " (" + op.label + "): " + comparison.message};
  }
  return {"outputs_equal_eager", true, std::to_string(eager.outputs.size()) + " output(s) equal one eager forward"};
}

// One output against the roster's values, nullopt when equal within `atol`. For a float output the
// values are rounded to its dtype first; an integer or bool output is widened to float64 instead, so
// that an expected 1.7 is not truncated to the output's 1.
std::optional<std::string> output_mismatch(const TensorSpec& spec, const Payload& actual, double atol) {
  static const DType wide = *dtype_from_name("float64");
  const bool as_float = actual.dtype.is_float();
  const Payload expected = Payload::from_doubles(as_float ? actual.dtype : wide, spec.shape, spec.values);
  const Comparison comparison = compare(
      expected, as_float ? actual : Payload::from_doubles(wide, actual.shape, actual.to_doubles()), Tolerance{0, atol, 0.0});
  if (comparison.equal) return std::nullopt;
  return spec.where.str() + ": " + comparison.message + " (output dtype " + actual.dtype.name + ")";
}

// `expect.output` checks the first output; `expect.outputs` checks every output and their count.
Check check_expected_output(const RosterRow& row, const Trace& trace) {
  const Expectations& expect = row.expect;
  if (trace.outputs.empty()) return {"expected_output", false, "the trace has no output op"};
  if (expect.output) {
    const auto mismatch = output_mismatch(*expect.output, *trace.ops[trace.outputs[0]].out, expect.output_atol);
    return {"expected_output", !mismatch, mismatch ? "output 0: " + *mismatch : "first output equals the roster's values"};
  }
  if (expect.outputs.size() != trace.outputs.size()) {
    return {"expected_output", false,
            expect.where.str() + ": expect.outputs lists " + std::to_string(expect.outputs.size()) +
                " output(s), the forward returned " + std::to_string(trace.outputs.size())};
  }
  for (std::size_t i = 0; i < expect.outputs.size(); ++i) {
    const auto mismatch = output_mismatch(expect.outputs[i], *trace.ops[trace.outputs[i]].out, expect.output_atol);
    if (mismatch) return {"expected_output", false, "output " + std::to_string(i) + ": " + *mismatch};
  }
  return {"expected_output", true, "every output (" + std::to_string(expect.outputs.size()) + ") equals the roster's values"};
}

Check check_constant_kinds(const RosterRow& row, const Trace& trace) {
  std::map<std::string, int> seen;
  for (const Op& op : trace.ops) {
    if (op.constant_kind) ++seen[*op.constant_kind];
  }
  std::string detail;
  bool ok = true;
  for (const auto& [kind, want] : *row.expect.constant_kinds) {
    ok = ok && seen[kind] == want;
    detail += (detail.empty() ? "" : ", ") + kind + "=" + std::to_string(seen[kind]) +
              (seen[kind] == want ? "" : " (expected " + std::to_string(want) + ")");
  }
  return {"constant_kinds", ok, "constants " + detail + (ok ? "" : " at " + row.expect.where.str())};
}

// Passes when the validation state is exactly the row's `expect.validation` (default passed): a row
// that expects unverified fails both when validation passes and when it fails.
Check check_replay_validation(const RosterRow& row, const Trace& trace, const EagerRun& eager) {
  const ValidationStatus status = trace.validate(eager.outputs);
  std::size_t exempt = 0;
  for (const Decision& decision : status.decisions) exempt += decision.decision == "exempt" ? 1 : 0;
  const std::string state = to_string(status.state);
  const bool expected = state == row.expect.validation;
  return {"replay_validation", expected,
          state + ": " + std::to_string(status.replayed) + " ops replayed, " + std::to_string(exempt) +
              " exempt perturbation(s)" + (status.message.empty() ? "" : "; " + status.message) +
              (expected ? "" : " (the row expects " + row.expect.validation + ", " + row.expect.where.str() + ")")};
}

bool has_float_output(const Trace& trace) {
  for (std::size_t index : trace.outputs) {
    if (trace.ops[index].dtype.is_float()) return true;
  }
  return false;
}

Check check_derived_grads(Trace& trace) {
  GradOptions options;
  options.intermediate_grads = true;
  trace.derive_grads(options);
  const GradientCheck check = check_grads_against_finite_differences(trace, options);
  return {"derived_grads", check.passed, check.detail};
}

Check check_tlspec_round_trip(const Trace& trace, const std::string& id) {
  const auto directory = std::filesystem::temp_directory_path() / ("tl-" + id + "-" + std::to_string(::getpid()) + ".tlspec");
  trace.save(directory.string());
  const Trace loaded = Trace::load(directory.string());
  std::filesystem::remove_all(directory);
  const auto difference = first_difference(trace, loaded);
  if (difference) return {"tlspec_round_trip", false, *difference};
  if (loaded.has_live_payloads()) return {"tlspec_round_trip", false, "a loaded bundle claims live payloads"};
  return {"tlspec_round_trip", true,
          std::to_string(loaded.size()) + " ops, payloads and gradients identical after save and load"};
}

}  // namespace

const char* to_string(CellState state) {
  switch (state) {
    case CellState::Passed:
      return "passed";
    case CellState::Failed:
      return "failed";
    case CellState::Refused:
      return "refused";
    case CellState::Skipped:
      return "skipped";
    case CellState::Crashed:
      return "crashed";
    case CellState::TimedOut:
      return "timed_out";
    case CellState::HarnessError:
      return "harness_error";
  }
  return "?";
}

std::optional<CellState> cell_state_from_string(const std::string& name) {
  for (CellState state : kAllStates) {
    if (name == to_string(state)) return state;
  }
  return std::nullopt;
}

nlohmann::json CellResult::to_json() const {
  nlohmann::json json{{"id", id}, {"family", family}, {"roster", roster.str()}, {"state", to_string(state)}};
  if (!message.empty()) json["message"] = message;
  if (!refusal_code.empty()) json["refusal_code"] = refusal_code;
  if (ops) json["ops"] = *ops;
  if (!output.empty()) json["output"] = output;
  if (!checks.empty()) {
    json["checks"] = nlohmann::json::array();
    for (const Check& check : checks)
      json["checks"].push_back({{"name", check.name}, {"passed", check.passed}, {"detail", check.detail}});
  }
  return json;
}

CellResult CellResult::from_json(const nlohmann::json& json) {
  CellResult result;
  result.id = json.at("id").get<std::string>();
  result.family = json.at("family").get<std::string>();
  const auto roster = json.at("roster").get<std::string>();
  const auto colon = roster.rfind(':');
  result.roster = {roster.substr(0, colon), colon == std::string::npos ? 0 : std::stoi(roster.substr(colon + 1))};
  const auto state = cell_state_from_string(json.at("state").get<std::string>());
  if (!state) throw std::runtime_error("unknown cell state " + json.at("state").dump());
  result.state = *state;
  result.message = json.value("message", "");
  result.refusal_code = json.value("refusal_code", "");
  if (json.contains("ops")) result.ops = json["ops"].get<std::size_t>();
  result.output = json.value("output", "");
  for (const auto& check : json.value("checks", nlohmann::json::array())) {
    result.checks.push_back({check.at("name"), check.at("passed"), check.value("detail", "")});
  }
  return result;
}

namespace {

bool ecosystem_enabled() {
  const char* flag = std::getenv("TORCHLENS_CONFORMANCE_ECOSYSTEM");
  return flag != nullptr && std::string(flag) == "1";
}

CellResult started(const RosterRow& row) {
  CellResult result;
  result.id = row.id;
  result.family = to_string(row.family);
  result.roster = row.where;
  return result;
}

// Passed when every check passed; otherwise failed, with the first failing check as the message.
void settle(CellResult& result) {
  result.state = CellState::Passed;
  for (const Check& check : result.checks) {
    if (!check.passed) {
      result.state = CellState::Failed;
      if (result.message.empty()) result.message = check.name + ": " + check.detail;
      break;
    }
  }
}

}  // namespace

CellResult run_cell(BackendProtocol& backend, const RosterRow& row) {
  if (row.family == Family::Ecosystem && !ecosystem_enabled()) {
    CellResult result = started(row);
    result.state = CellState::Skipped;
    result.message = "ecosystem rows run only with TORCHLENS_CONFORMANCE_ECOSYSTEM=1";
    return result;
  }
  if (row.family == Family::Refusal) return run_refusal_cell(backend, row);
  if (row.family == Family::Capability) return run_capability_cell(backend, row);
  return run_row_cell(backend, row);
}

CellResult run_capability_cell(BackendProtocol& backend, const RosterRow& row) {
  CellResult result = started(row);
  try {
    enter_phase("capture");
    RowCapture capture = backend.capture_row(row);
    Trace& trace = capture.trace;
    result.ops = trace.size();
    std::vector<Payload> outputs;
    for (const Op* op : trace.output_ops()) outputs.push_back(*op->out);
    enter_phase(row.capability);
    if (row.capability == "has_validation_replay") {
      const ValidationStatus status = backend.validate(trace, outputs);
      result.checks.push_back({"validation_passes", status.passed(),
                               std::string(to_string(status.state)) + " after replaying " + std::to_string(status.replayed) +
                                   " ops " + status.message});
      // The same validation must fail once a payload is corrupted, naming that op.
      Trace corrupted = trace;
      auto victim =
          std::find_if(corrupted.ops.begin(), corrupted.ops.end(), [](const Op& op) { return op.kind == OpKind::Compute; });
      if (victim == corrupted.ops.end()) throw std::runtime_error("the row has no compute op to corrupt");
      for (auto& byte : victim->out->bytes) byte ^= 0x5a;
      const ValidationStatus broken = backend.validate(corrupted, outputs);
      result.checks.push_back({"validation_can_fail",
                               broken.state == ValidationState::Failed && broken.message.find(victim->label) != std::string::npos,
                               "after corrupting " + victim->label + ": " + to_string(broken.state) + " " + broken.message});
    } else if (row.capability == "payload_materialization") {
      result.checks.push_back(check_one_evaluation(capture));
      result.checks.push_back(check_structure(trace));
      result.checks.push_back(check_tlspec_round_trip(trace, row.id));
    } else {
      result.checks.push_back(check_derived_grads(trace));
    }
  } catch (const BackendUnsupportedError& error) {
    result.checks.push_back({"capture", false, error.what()});
  } catch (const PythonError& error) {
    result.checks.push_back({"capture", false, error.what()});
    result.message = std::string(error.what()) + "\n" + error.traceback();
  } catch (const std::exception& error) {
    result.checks.push_back({"capture", false, error.what()});
  }
  settle(result);
  return result;
}

CellResult run_refusal_cell(BackendProtocol& backend, const RosterRow& row) {
  CellResult result = started(row);
  try {
    enter_phase("refusal_request");
    const RefusalAttempt attempt = backend.refuse_row(row);
    const bool right_code = attempt.refused && attempt.code == row.expect.refusal;
    result.checks.push_back({"refusal_code", right_code,
                             attempt.refused ? "refused with " + attempt.code +
                                                   (right_code ? "" : ", expected " + row.expect.refusal) + ": " + attempt.message
                                             : attempt.message});
    for (const std::string& probe : attempt.probes) {
      const auto changed =
          std::find_if(attempt.changed.begin(), attempt.changed.end(), [&](const auto& entry) { return entry.first == probe; });
      result.checks.push_back({probe, changed == attempt.changed.end(),
                               changed == attempt.changed.end() ? "as before the request" : changed->second});
    }
    if (attempt.probes.empty()) result.checks.push_back({"state_probes", false, "the backend took no state probes"});
    if (right_code) result.refusal_code = attempt.code;
  } catch (const PythonError& error) {
    result.checks.push_back({"refusal_code", false, error.what()});
    result.message = std::string(error.what()) + "\n" + error.traceback();
  } catch (const std::exception& error) {
    result.checks.push_back({"refusal_code", false, error.what()});
  }
  settle(result);
  return result;
}

CellResult run_row_cell(BackendProtocol& backend, const RosterRow& row) {
  CellResult result;
  result.id = row.id;
  result.family = to_string(row.family);
  result.roster = row.where;
  try {
    enter_phase("capture");
    const RowCapture capture = backend.capture_row(row);
    const Trace& trace = capture.trace;
    result.ops = trace.size();
    result.checks.push_back({"capture", true, std::to_string(trace.size()) + " ops recorded"});
    result.checks.push_back(check_structure(trace));
    result.checks.push_back(check_one_evaluation(capture));
    enter_phase("eager");
    const EagerRun eager = backend.eager_row(row);
    enter_phase("checks");
    result.checks.push_back(check_outputs_equal_eager(trace, eager));
    result.checks.push_back({"rng_state_equal_eager", capture.rng_state == eager.rng_state,
                             capture.rng_state == eager.rng_state
                                 ? "RNG state after the capture equals one eager forward"
                                 : "after capture: " + capture.rng_state + "; after eager: " + eager.rng_state});
    if (row.expect.output || !row.expect.outputs.empty()) result.checks.push_back(check_expected_output(row, trace));
    if (row.expect.constant_kinds) result.checks.push_back(check_constant_kinds(row, trace));
    enter_phase("replay_validation");
    result.checks.push_back(check_replay_validation(row, trace, eager));
    Trace with_grads = capture.trace;
    if (has_float_output(trace)) {
      enter_phase("derived_grads");
      result.checks.push_back(check_derived_grads(with_grads));
    }
    enter_phase("tlspec_round_trip");
    result.checks.push_back(check_tlspec_round_trip(with_grads, row.id));
  } catch (const BackendUnsupportedError& error) {
    result.checks.push_back({"capture", false, error.what()});
    settle(result);
    result.state = CellState::Refused;
    result.refusal_code = std::string(error.code_name());
    result.message = error.what();
    return result;
  } catch (const PythonError& error) {
    result.checks.push_back({"capture", false, error.what()});
    result.message = std::string(error.what()) + "\n" + error.traceback();
  } catch (const std::exception& error) {
    result.checks.push_back({"capture", false, error.what()});
    result.message = error.what();
  }
  settle(result);
  return result;
}

}  // namespace tl
