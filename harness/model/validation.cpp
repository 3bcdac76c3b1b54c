#include "harness/model/validation.h"

#include "harness/io/name_table.h"

namespace tl {

namespace {

// Each enum's one table of names: to_string and from_string both read it.
constexpr NameTable<ValidationState, 4> kStateNames{{
    {ValidationState::Passed, "passed"},
    {ValidationState::Failed, "failed"},
    {ValidationState::Unverified, "unverified"},
    {ValidationState::Unavailable, "unavailable"},
}};

constexpr NameTable<ValidationPhase, 4> kPhaseNames{{
    {ValidationPhase::Structure, "structure"},
    {ValidationPhase::GroundTruth, "ground_truth"},
    {ValidationPhase::Replay, "replay"},
    {ValidationPhase::Perturbation, "perturbation"},
}};

constexpr NameTable<DecisionVerdict, 3> kVerdictNames{{
    {DecisionVerdict::Pass, "pass"},
    {DecisionVerdict::Fail, "fail"},
    {DecisionVerdict::Unverified, "unverified"},
}};

}  // namespace

const char* to_string(ValidationState state) { return name_in(kStateNames, state); }
std::optional<ValidationState> validation_state_from_string(std::string_view name) { return value_in(kStateNames, name); }

const char* to_string(ValidationPhase phase) { return name_in(kPhaseNames, phase); }
std::optional<ValidationPhase> validation_phase_from_string(std::string_view name) { return value_in(kPhaseNames, name); }

const char* to_string(DecisionVerdict verdict) { return name_in(kVerdictNames, verdict); }
std::optional<DecisionVerdict> decision_verdict_from_string(std::string_view name) { return value_in(kVerdictNames, name); }

nlohmann::json ValidationStatus::to_json() const {
  nlohmann::json json{
      {"state", to_string(state)}, {"message", message}, {"replayed", replayed}, {"decisions", nlohmann::json::array()}};
  for (const Decision& d : decisions) {
    json["decisions"].push_back({{"op", d.op},
                                 {"label", d.label},
                                 {"phase", to_string(d.phase)},
                                 {"decision", to_string(d.verdict)},
                                 {"reason", d.reason}});
  }
  return json;
}

}  // namespace tl
