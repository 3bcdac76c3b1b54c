#include "harness/cells/conformance.h"

#include "harness/cells/families.h"
#include "harness/judge/protocol.h"
#include "harness/model/version_range.h"

namespace tl {

std::optional<UnmetRequirement> unmet_requirement(const BackendSpec& backend, const RosterRow& row) {
  std::vector<Requirement> requirements = row.requirements;
  if (row.family == Family::Ecosystem) requirements.push_back({.feature = "ecosystem", .where = row.where});
  for (const Requirement& requirement : requirements) {
    if (!requirement.feature.empty() && !backend.feature_enabled(requirement.feature)) {
      return UnmetRequirement{CellState::Skipped, "requires " + requirement.feature + ", which this run does not enable (" +
                                                      backend.feature_hint(requirement.feature) + ")"};
    }
    if (!requirement.version_range.empty()) {
      const std::string version = backend.probe ? backend.probe().version : "";
      if (version.empty() || !version_in_range(version, requirement.version_range)) {
        return UnmetRequirement{CellState::Unsupported, "requires " + backend.distribution + requirement.version_range + " (" +
                                                            requirement.where.str() +
                                                            "); installed: " + (version.empty() ? "none" : version)};
      }
    }
  }
  return std::nullopt;
}

void apply_xfail(const RosterRow& row, CellResult& result) {
  if (row.xfail.empty()) return;
  if (result.state == CellState::Failed || result.state == CellState::Refused) {
    result.state = CellState::ExpectedFail;
    result.message = "expected failure (" + row.xfail + "): " + result.message;
  } else if (result.state == CellState::Passed) {
    result.state = CellState::UnexpectedPass;
    result.message =
        "the row is marked xfail (" + row.xfail + ") but passed: the limit is gone; remove its xfail at " + row.where.str();
  }
}

CellResult run_cell(const BackendSpec& backend, const RosterRow& row) {
  if (const auto unmet = unmet_requirement(backend, row)) {
    CellResult result = CellResult::of(row);
    result.state = unmet->state;
    result.message = unmet->message;
    return result;
  }
  const auto protocol = protocol_of(backend);
  CellResult result = family_cells().at(row.family).run(*protocol, row);
  apply_xfail(row, result);
  return result;
}

}  // namespace tl
