#include "harness/cells/cell_result.h"

#include <stdexcept>

#include "harness/io/json_file.h"

namespace tl {

CellResult CellResult::of(const RosterRow& row) {
  CellResult result;
  result.id = row.id;
  result.family = to_string(row.family);
  result.roster = row.where;
  return result;
}

std::vector<std::string> CellResult::failed_checks() const {
  std::vector<std::string> failed;
  for (const Check& check : checks) {
    if (!check.passed) failed.push_back(check.name + ": " + check.detail);
  }
  return failed;
}

std::optional<std::string> CellResult::contradiction() const {
  if (state != CellState::Passed && state != CellState::UnexpectedPass) return std::nullopt;
  for (const Check& check : checks) {
    if (!check.passed) return std::string("its state is ") + to_string(state) + " but its check " + check.name + " failed";
  }
  return std::nullopt;
}

nlohmann::json coverage_to_json(const Coverage& coverage) { return {{"checked", coverage.checked}, {"of", coverage.of}}; }

Coverage coverage_from_json(const nlohmann::json& json) {
  auto whole = [&json](const char* key) {
    return json.is_object() && json.contains(key) && json[key].is_number_integer() && json[key].get<std::int64_t>() >= 0;
  };
  if (!whole("checked") || !whole("of"))
    throw std::invalid_argument("must be {\"checked\": N, \"of\": M} with whole numbers, not " + json_excerpt(json));
  Coverage coverage{json["checked"].get<std::size_t>(), json["of"].get<std::size_t>()};
  if (coverage.checked > coverage.of)
    throw std::invalid_argument("checked " + std::to_string(coverage.checked) + " of only " + std::to_string(coverage.of));
  return coverage;
}

nlohmann::json CellResult::to_json() const {
  nlohmann::json json{{"id", id}, {"family", family}, {"roster", roster.str()}, {"state", to_string(state)}};
  if (!message.empty()) json["message"] = message;
  if (!refusal_code.empty()) json["refusal_code"] = refusal_code;
  if (ops) json["ops"] = *ops;
  if (!output.empty()) json["output"] = output;
  if (!checks.empty()) {
    json["checks"] = nlohmann::json::array();
    for (const Check& check : checks) {
      nlohmann::json entry{{"name", check.name}, {"passed", check.passed}, {"detail", check.detail}};
      if (check.coverage) entry["coverage"] = coverage_to_json(*check.coverage);
      json["checks"].push_back(std::move(entry));
    }
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
    Check& read = result.checks.emplace_back(Check{check.at("name"), check.at("passed"), check.value("detail", "")});
    if (check.contains("coverage")) read.coverage = coverage_from_json(check["coverage"]);
  }
  return result;
}

}  // namespace tl
