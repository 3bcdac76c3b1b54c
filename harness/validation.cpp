#include "harness/validation.h"

namespace tl {

const char* to_string(ValidationState state) {
  switch (state) {
    case ValidationState::Passed:
      return "passed";
    case ValidationState::Failed:
      return "failed";
    case ValidationState::Unverified:
      return "unverified";
    case ValidationState::Unavailable:
      return "unavailable";
  }
  return "?";
}

nlohmann::json ValidationStatus::to_json() const {
  nlohmann::json json{
      {"state", to_string(state)}, {"message", message}, {"replayed", replayed}, {"decisions", nlohmann::json::array()}};
  for (const Decision& d : decisions) {
    json["decisions"].push_back(
        {{"op", d.op}, {"label", d.label}, {"phase", d.phase}, {"decision", d.decision}, {"reason", d.reason}});
  }
  return json;
}

}  // namespace tl
