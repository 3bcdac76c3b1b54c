#include "harness/scorecard.h"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "harness/capabilities.h"

namespace tl {

std::string digest_files(const std::vector<std::string>& paths) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const std::string& path : paths) {
    std::ifstream in(path, std::ios::binary);
    for (auto it = std::istreambuf_iterator<char>(in); it != std::istreambuf_iterator<char>(); ++it) {
      hash = (hash ^ static_cast<unsigned char>(*it)) * 0x100000001b3ULL;
    }
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
    // Check names and verdicts only: details and messages carry numbers and paths that vary by run.
    nlohmann::json entry{
        {"id", cell.id}, {"family", cell.family}, {"roster", cell.roster.str()}, {"state", to_string(cell.state)}};
    if (!cell.refusal_code.empty()) entry["refusal_code"] = cell.refusal_code;
    if (cell.ops) entry["ops"] = *cell.ops;
    entry["checks"] = nlohmann::json::array();
    for (const Check& check : cell.checks) {
      entry["checks"].push_back(check.name);
      if (!check.passed) entry["failed_checks"].push_back(check.name);
    }
    card["cells"].push_back(entry);
    states[cell.id] = cell.state;
  }
  card["capabilities"] = capabilities_json(summarize_capabilities(spec.capabilities, states));
  card["summary"] = summarize(cells);
  card["run"] = facts.run;
  return card;
}

std::vector<Drift> scorecard_drift(const nlohmann::json& committed, const nlohmann::json& fresh) {
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
  // A skipped cell was not run here (an ecosystem row without TORCHLENS_CONFORMANCE_ECOSYSTEM=1):
  // drift to report, never a pass, but not a regression either. A capability that loses its proof
  // follows its cells; only a flip between supported and unsupported is a regression of its own.
  compare("cells", "cell", "id",
          [](const std::string& was, const std::string& now) { return was == "passed" && now != "passed" && now != "skipped"; });
  compare("capabilities", "capability", "name",
          [](const std::string& was, const std::string& now) { return was != "untested" && now != "untested" && now != was; });
  return drift;
}

}  // namespace tl
