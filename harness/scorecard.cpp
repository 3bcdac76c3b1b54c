#include "harness/scorecard.h"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>

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
  nlohmann::json summary{{"total", cells.size()}, {"by_state", nlohmann::json::object()}, {"by_family", nlohmann::json::object()}};
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

nlohmann::json make_scorecard(const BackendSpec& spec, const RunFacts& facts, const std::vector<CellResult>& cells) {
  nlohmann::json card;
  card["schema_version"] = 1;
  card["backend"] = spec.name;
  card["spec"] = {{"distribution", spec.distribution}, {"supported_range", spec.supported_range},
                  {"pinned_version", spec.pinned_version}, {"install_extra", spec.install_extra},
                  {"maturity", spec.maturity}, {"materialization", spec.materialization}, {"device", spec.device}};
  card["provenance"] = {{"framework_version_pinned", spec.pinned_version}, {"framework_version_seen", facts.framework_version_seen},
                        {"python_version", facts.python_version}, {"roster_digest", facts.roster_digest}, {"leg", facts.leg}};
  card["cells"] = nlohmann::json::array();
  for (const CellResult& cell : cells) {
    nlohmann::json entry = cell.to_json();
    entry.erase("message");  // free text can carry paths and timings; the state is what is compared
    card["cells"].push_back(entry);
  }
  card["summary"] = summarize(cells);
  card["run"] = facts.run;
  return card;
}

}  // namespace tl
