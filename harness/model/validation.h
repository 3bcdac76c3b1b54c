// The result of validating a trace by replay: a state, a message naming the first offending op, and
// one decision per op and phase. Never silently a bool.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace tl {

enum class ValidationState { Passed, Failed, Unverified, Unavailable };
const char* to_string(ValidationState state);
std::optional<ValidationState> validation_state_from_string(std::string_view name);

// What a decision checked: "structure" (the trace's ops match the captured graph), "ground_truth"
// (given outputs equal the output payloads), "replay" (each op re-run from its parents' saved
// payloads equals its own), "perturbation" (perturbing a parent changes the replayed output).
enum class ValidationPhase { Structure, GroundTruth, Replay, Perturbation };
const char* to_string(ValidationPhase phase);
std::optional<ValidationPhase> validation_phase_from_string(std::string_view name);

// What it found: "pass", "fail", or "unverified" (nothing could show the op right or wrong; the
// reason says why).
enum class DecisionVerdict { Pass, Fail, Unverified };
const char* to_string(DecisionVerdict verdict);
std::optional<DecisionVerdict> decision_verdict_from_string(std::string_view name);

struct Decision {
  std::size_t op = 0;
  std::string label{};
  ValidationPhase phase = ValidationPhase::Replay;
  DecisionVerdict verdict = DecisionVerdict::Fail;  // saved and printed as "decision"
  std::string reason{};
};

struct ValidationStatus {
  ValidationState state = ValidationState::Unavailable;
  std::string message;
  std::vector<Decision> decisions;
  std::size_t replayed = 0;  // ops re-run in the replay phase

  bool passed() const { return state == ValidationState::Passed; }
  nlohmann::json to_json() const;
};

}  // namespace tl
