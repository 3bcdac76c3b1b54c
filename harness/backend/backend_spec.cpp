#include "harness/backend/backend_spec.h"

#include <filesystem>

namespace tl {

std::string BackendSpec::rosters_directory() const { return (std::filesystem::path(TL_SOURCE_DIR) / "rosters" / name).string(); }

std::string BackendSpec::committed_scorecard() const {
  return (std::filesystem::path(TL_SOURCE_DIR) / "scorecards" / name / "scorecard.json").string();
}

bool BackendSpec::feature_enabled(std::string_view feature) const {
  for (const Feature& declared : features) {
    if (declared.name == feature) return !declared.enabled || declared.enabled();
  }
  return false;
}

std::string BackendSpec::feature_hint(std::string_view feature) const {
  for (const Feature& declared : features) {
    if (declared.name == feature) return declared.how_to_enable.empty() ? "it is always on" : declared.how_to_enable;
  }
  return "the " + name + " backend does not declare it";
}

}  // namespace tl
