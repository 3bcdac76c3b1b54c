#include "harness/scorecard.h"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "harness/capabilities.h"
#include "harness/json_file.h"

namespace tl {

std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t hash) {
  for (const char byte : bytes) hash = (hash ^ static_cast<unsigned char>(byte)) * 0x100000001b3ULL;
  return hash;
}

std::string digest_files(const std::vector<std::string>& paths) {
  std::uint64_t hash = fnv1a64("");
  for (const std::string& path : paths) {
    std::ifstream in(path, std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    hash = fnv1a64(bytes, hash);
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

nlohmann::json summarize(const std::vector<CellResult>& cells) {
  nlohmann::json summary{
      {"total", cells.size()}, {"by_state", nlohmann::json::object()}, {"by_family", nlohmann::json::object()}};
  for (const CellResult& cell : cells) {
    const std::string state = to_string(cell.state);
    summary["by_state"][state] = summary["by_state"].value(state, 0) + 1;
    auto& family = summary["by_family"][cell.family];
    if (family.is_null()) family = nlohmann::json::object();
    family[state] = family.value(state, 0) + 1;
    family["total"] = family.value("total", 0) + 1;
  }
  return summary;
}

nlohmann::json spec_json(const BackendSpec& spec) {
  return {{"distribution", spec.distribution},
          {"supported_range", spec.supported_range},
          {"pinned_version", spec.pinned_version},
          {"install_extra", spec.install_extra},
          {"maturity", spec.maturity},
          {"materialization", spec.materialization},
          {"device", spec.device}};
}

nlohmann::json make_scorecard(const BackendSpec& spec, const RunFacts& facts, const std::vector<CellResult>& cells) {
  nlohmann::json card;
  card["schema_version"] = 1;
  card["backend"] = spec.name;
  card["spec"] = spec_json(spec);
  card["provenance"] = {{"harness_version", facts.harness_version},
                        {"git_commit", facts.git_commit},
                        {"framework_version_pinned", spec.pinned_version},
                        {"framework_version_seen", facts.framework_version_seen},
                        {"python_version", facts.python_version},
                        {"roster_digest", facts.roster_digest},
                        {"leg", facts.leg}};
  card["cells"] = nlohmann::json::array();
  std::map<std::string, CellState> states;
  for (const CellResult& cell : cells) {
    // Check names and verdicts; the why (message and each failed check's detail) only for a cell that
    // did not pass, so a reader of the card can tell why without rerunning it.
    nlohmann::json entry{
        {"id", cell.id}, {"family", cell.family}, {"roster", cell.roster.str()}, {"state", to_string(cell.state)}};
    if (!cell.refusal_code.empty()) entry["refusal_code"] = cell.refusal_code;
    if (cell.ops) entry["ops"] = *cell.ops;
    if (cell.state != CellState::Passed && !cell.message.empty()) entry["message"] = cell.message.substr(0, 2000);
    entry["checks"] = nlohmann::json::array();
    for (const Check& check : cell.checks) {
      entry["checks"].push_back(check.name);
      if (check.passed) continue;
      entry["failed_checks"].push_back(check.name);
      entry["failures"].push_back({{"check", check.name}, {"detail", check.detail.substr(0, 2000)}});
    }
    card["cells"].push_back(entry);
    states[cell.id] = cell.state;
  }
  card["capabilities"] = capabilities_json(summarize_capabilities(spec.capabilities, states));
  card["summary"] = summarize(cells);
  card["run"] = facts.run;
  return card;
}

namespace {

// Far above a real card (the committed one is tens of kilobytes).
constexpr std::uint64_t kMaxScorecardBytes = 64ULL << 20;

[[noreturn]] void bad(const std::string& source, const std::string& what) { throw ScorecardError(source + ": " + what); }

const nlohmann::json& required(const nlohmann::json& object, const char* key, const std::string& source,
                               const std::string& where) {
  const auto found = object.find(key);
  if (found == object.end()) bad(source, where + " has no '" + key + "'");
  return *found;
}

std::string required_string(const nlohmann::json& object, const char* key, const std::string& source, const std::string& where) {
  const nlohmann::json& value = required(object, key, source, where);
  if (!value.is_string()) bad(source, where + "." + key + " must be a string, not " + json_excerpt(value));
  return value.get<std::string>();
}

const nlohmann::json& required_list(const nlohmann::json& card, const char* key, const std::string& source) {
  const nlohmann::json& value = required(card, key, source, "the card");
  if (!value.is_array()) bad(source, std::string(key) + " must be a list, not " + json_excerpt(value));
  return value;
}

void required_object(const nlohmann::json& card, const char* key, const std::string& source, bool of_strings) {
  const nlohmann::json& value = required(card, key, source, "the card");
  if (!value.is_object()) bad(source, std::string(key) + " must be an object, not " + json_excerpt(value));
  if (!of_strings) return;
  for (const auto& [name, field] : value.items()) {
    if (!field.is_string()) bad(source, std::string(key) + "." + name + " must be a string, not " + json_excerpt(field));
  }
}

void check_strings(const nlohmann::json& entry, const char* key, const std::string& source, const std::string& where) {
  const nlohmann::json& value = entry.at(key);
  if (!value.is_array()) bad(source, where + "." + key + " must be a list, not " + json_excerpt(value));
  for (const auto& item : value) {
    if (!item.is_string()) bad(source, where + "." + key + " must hold strings, not " + json_excerpt(item));
  }
}

std::string cell_state_names() {
  std::string names;
  for (const CellStateInfo& state : cell_states()) names += (names.empty() ? "" : ", ") + std::string(state.name);
  return names;
}

bool capability_state_known(const std::string& state) {
  for (CapabilityState known : {CapabilityState::Supported, CapabilityState::Unsupported, CapabilityState::Untested}) {
    if (state == to_string(known)) return true;
  }
  return false;
}

}  // namespace

void check_scorecard(const nlohmann::json& card, const std::string& source) {
  if (!card.is_object()) bad(source, "must be a JSON object, not " + json_excerpt(card));
  const nlohmann::json& version = required(card, "schema_version", source, "the card");
  if (!version.is_number_integer() || version != 1)
    bad(source, "has schema_version " + json_excerpt(version) + "; this harness reads 1");
  required_string(card, "backend", source, "the card");
  required_object(card, "spec", source, true);
  required_object(card, "provenance", source, true);
  required_object(card, "summary", source, false);
  required_object(card, "run", source, false);

  std::map<std::string, std::size_t> cell_at;
  const nlohmann::json& cells = required_list(card, "cells", source);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const nlohmann::json& cell = cells[i];
    std::string where = "cells[" + std::to_string(i) + "]";
    if (!cell.is_object()) bad(source, where + " must be an object, not " + json_excerpt(cell));
    const std::string id = required_string(cell, "id", source, where);
    where += " (cell " + id + ")";
    if (id.empty()) bad(source, where + " has an empty id");
    const auto [first, inserted] = cell_at.emplace(id, i);
    if (!inserted)
      bad(source,
          "cell " + id + " appears twice (cells[" + std::to_string(first->second) + "] and cells[" + std::to_string(i) + "])");
    const std::string state = required_string(cell, "state", source, where);
    if (!cell_state_from_string(state))
      bad(source, "cell " + id + " has state '" + state + "', not one of " + cell_state_names());
    required_string(cell, "family", source, where);
    required_string(cell, "roster", source, where);
    required(cell, "checks", source, where);
    check_strings(cell, "checks", source, where);
    if (cell.contains("failed_checks")) check_strings(cell, "failed_checks", source, where);
    if (cell.contains("message") && !cell["message"].is_string())
      bad(source, where + ".message must be a string, not " + json_excerpt(cell["message"]));
    if (cell.contains("failures") && !cell["failures"].is_array())
      bad(source, where + ".failures must be a list, not " + json_excerpt(cell["failures"]));
    if (cell.contains("refusal_code") && !cell["refusal_code"].is_string())
      bad(source, where + ".refusal_code must be a string, not " + json_excerpt(cell["refusal_code"]));
    if (cell.contains("ops") && !cell["ops"].is_number_unsigned())
      bad(source, where + ".ops must be a whole number, not " + json_excerpt(cell["ops"]));
  }

  std::map<std::string, std::size_t> capability_at;
  const nlohmann::json& capabilities = required_list(card, "capabilities", source);
  for (std::size_t i = 0; i < capabilities.size(); ++i) {
    const nlohmann::json& capability = capabilities[i];
    std::string where = "capabilities[" + std::to_string(i) + "]";
    if (!capability.is_object()) bad(source, where + " must be an object, not " + json_excerpt(capability));
    const std::string name = required_string(capability, "name", source, where);
    const auto [first, inserted] = capability_at.emplace(name, i);
    if (!inserted)
      bad(source, "capability '" + name + "' appears twice (capabilities[" + std::to_string(first->second) +
                      "] and capabilities[" + std::to_string(i) + "])");
    const std::string state = required_string(capability, "state", source, where + " (capability " + name + ")");
    if (!capability_state_known(state))
      bad(source, "capability '" + name + "' has state '" + state + "', not one of supported, unsupported, untested");
  }
}

nlohmann::json read_scorecard(const std::string& path) {
  nlohmann::json card;
  try {
    card = read_json_file(path, kMaxScorecardBytes);
  } catch (const InputFileError& error) {
    throw ScorecardError(error.what(), error.kind() == InputFileError::Kind::Missing);
  }
  check_scorecard(card, path);
  return card;
}

std::vector<Drift> scorecard_drift(const nlohmann::json& committed, const nlohmann::json& fresh) {
  check_scorecard(committed, "the committed scorecard");
  check_scorecard(fresh, "the fresh scorecard");
  std::vector<Drift> drift;
  auto compare = [&](const char* section, const char* what, const char* key, auto is_regression) {
    std::map<std::string, std::string> before;
    const nlohmann::json committed_entries = committed.value(section, nlohmann::json::array());
    const nlohmann::json fresh_entries = fresh.value(section, nlohmann::json::array());
    for (const auto& entry : committed_entries) before[entry.at(key)] = entry.at("state");
    std::set<std::string> seen;
    for (const auto& entry : fresh_entries) {
      const std::string id = entry.at(key);
      const std::string after = entry.at("state");
      seen.insert(id);
      const auto found = before.find(id);
      const std::string was = found == before.end() ? "absent" : found->second;
      if (was != after) drift.push_back({what, id, was, after, is_regression(was, after)});
    }
    for (const auto& [id, was] : before) {
      if (!seen.contains(id)) drift.push_back({what, id, was, "absent", true});
    }
  };
  // The state table decides (cell_state.h): a skipped cell (a feature this run did not enable) is
  // drift to report, never a pass, but not a regression either. A capability that loses its proof
  // follows its cells; only a flip between supported and unsupported is a regression of its own.
  compare("cells", "cell", "id", [](const std::string& was, const std::string& now) {
    if (was == "absent") return false;
    // check_scorecard ran first: both are states of the table.
    return is_regression(*cell_state_from_string(was), *cell_state_from_string(now));
  });
  compare("capabilities", "capability", "name",
          [](const std::string& was, const std::string& now) { return was != "untested" && now != "untested" && now != was; });
  return drift;
}

std::vector<CapabilityRow> capability_rows_from(const BackendSpec& spec, const std::string& scorecard_path) {
  std::map<std::string, CellState> cells;
  try {
    // Checked whole: a corrupt card is a ScorecardError, never a guess.
    const nlohmann::json card = read_scorecard(scorecard_path);
    // Only the pinned leg proves states; another leg's cells are drift, not proof.
    if (card["provenance"].value("leg", "") == "pinned") {
      for (const auto& cell : card["cells"])
        cells[cell["id"].get<std::string>()] = *cell_state_from_string(cell["state"].get<std::string>());
    }
  } catch (const ScorecardError& error) {
    if (!error.missing()) throw;  // no scorecard at all: every row is untested
  }
  return summarize_capabilities(spec.capabilities, cells);
}

}  // namespace tl
