#include "harness/report/scorecard.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "harness/backend/capabilities.h"
#include "harness/io/json_file.h"

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

Scorecard make_scorecard(const BackendSpec& spec, const RunFacts& facts, const std::vector<CellResult>& cells) {
  Scorecard card;
  card.backend = spec.name;
  const nlohmann::json fields = spec_json(spec);  // kept: a range over a temporary's items() would dangle
  for (const auto& [key, value] : fields.items()) card.spec[key] = value.get<std::string>();
  card.provenance = {{"harness_version", facts.harness_version},
                     {"git_commit", facts.git_commit},
                     {"git_worktree", facts.git_worktree},
                     {"framework_version_pinned", spec.pinned_version},
                     {"framework_version_seen", facts.framework_version_seen},
                     {"python_version", facts.python_version},
                     {"roster_digest", facts.roster_digest},
                     {"leg", facts.leg}};
  std::map<std::string, CellState> states;
  for (const CellResult& cell : cells) {
    // Check names and verdicts; the why (message and each failed check's detail) only for a cell that
    // did not pass, so a reader of the card can tell why without rerunning it.
    ScorecardCell entry{.id = cell.id, .family = cell.family, .roster = cell.roster.str(), .state = cell.state};
    entry.refusal_code = cell.refusal_code;
    if (cell.ops) entry.ops = *cell.ops;
    if (cell.state != CellState::Passed) entry.message = cell.message.substr(0, 2000);
    for (const Check& check : cell.checks) {
      entry.checks.push_back(check.name);
      if (check.passed && check.coverage) entry.coverage[check.name] = *check.coverage;
      if (check.passed) continue;
      entry.failed_checks.push_back(check.name);
      entry.failures.push_back({check.name, check.detail.substr(0, 2000)});
    }
    card.cells.push_back(std::move(entry));
    states[cell.id] = cell.state;
  }
  card.capabilities = summarize_capabilities(spec.capabilities, states);
  card.summary = summarize(cells);
  card.run = facts.run;
  return card;
}

std::string Scorecard::provenance_of(const std::string& key) const {
  const auto found = provenance.find(key);
  return found == provenance.end() ? "" : found->second;
}

std::map<std::string, double> Scorecard::durations() const {
  std::map<std::string, double> seconds;
  const auto found = run.find("durations_s");
  if (found == run.end() || !found->is_object()) return seconds;
  for (const auto& [id, value] : found->items()) {
    if (value.is_number()) seconds[id] = value.get<double>();
  }
  return seconds;
}

nlohmann::json Scorecard::to_json() const {
  nlohmann::json card;
  card["schema_version"] = 1;
  card["backend"] = backend;
  card["spec"] = spec;
  card["provenance"] = provenance;
  card["cells"] = nlohmann::json::array();
  for (const ScorecardCell& cell : cells) {
    nlohmann::json entry{{"id", cell.id}, {"family", cell.family}, {"roster", cell.roster}, {"state", to_string(cell.state)}};
    if (!cell.refusal_code.empty()) entry["refusal_code"] = cell.refusal_code;
    if (cell.ops) entry["ops"] = *cell.ops;
    if (!cell.message.empty()) entry["message"] = cell.message;
    entry["checks"] = cell.checks;
    if (!cell.failed_checks.empty()) entry["failed_checks"] = cell.failed_checks;
    for (const CheckFailure& failure : cell.failures)
      entry["failures"].push_back({{"check", failure.check}, {"detail", failure.detail}});
    for (const auto& [check, coverage] : cell.coverage) entry["coverage"][check] = coverage_to_json(coverage);
    card["cells"].push_back(std::move(entry));
  }
  card["capabilities"] = capabilities_json(capabilities);
  card["summary"] = summary;
  card["run"] = run;
  if (interrupted) card["interrupted"] = {{"signal", interrupted->signal}, {"unfinished", interrupted->unfinished}};
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

const nlohmann::json& required_object(const nlohmann::json& card, const char* key, const std::string& source) {
  const nlohmann::json& value = required(card, key, source, "the card");
  if (!value.is_object()) bad(source, std::string(key) + " must be an object, not " + json_excerpt(value));
  return value;
}

std::map<std::string, std::string> strings_of(const nlohmann::json& card, const char* key, const std::string& source) {
  std::map<std::string, std::string> strings;
  for (const auto& [name, field] : required_object(card, key, source).items()) {
    if (!field.is_string()) bad(source, std::string(key) + "." + name + " must be a string, not " + json_excerpt(field));
    strings[name] = field.get<std::string>();
  }
  return strings;
}

std::vector<std::string> string_list(const nlohmann::json& entry, const char* key, const std::string& source,
                                     const std::string& where) {
  const nlohmann::json& value = entry.at(key);
  if (!value.is_array()) bad(source, where + "." + key + " must be a list, not " + json_excerpt(value));
  std::vector<std::string> strings;
  for (const auto& item : value) {
    if (!item.is_string()) bad(source, where + "." + key + " must hold strings, not " + json_excerpt(item));
    strings.push_back(item.get<std::string>());
  }
  return strings;
}

// A string the card may leave out ("" then); any other type is an error.
std::string optional_string(const nlohmann::json& entry, const char* key, const std::string& source, const std::string& where) {
  const auto found = entry.find(key);
  if (found == entry.end()) return "";
  if (!found->is_string()) bad(source, where + "." + key + " must be a string, not " + json_excerpt(*found));
  return found->get<std::string>();
}

std::string cell_state_names() {
  std::string names;
  for (const CellStateInfo& state : cell_states()) names += (names.empty() ? "" : ", ") + std::string(state.name);
  return names;
}

}  // namespace

namespace {

// A cell's coverage: check name -> {"checked": N, "of": M}, whole numbers, N at most M.
std::map<std::string, Coverage> read_coverage(const nlohmann::json& json, const std::string& source, const std::string& where) {
  if (!json.is_object()) bad(source, where + ".coverage must be an object, not " + json_excerpt(json));
  std::map<std::string, Coverage> coverage;
  for (const auto& [check, value] : json.items()) {
    try {
      coverage[check] = coverage_from_json(value);
    } catch (const std::invalid_argument& error) {
      bad(source, where + ".coverage." + check + " " + error.what());
    }
  }
  return coverage;
}

ScorecardCell read_cell(const nlohmann::json& entry, std::size_t i, const std::string& source) {
  std::string where = "cells[" + std::to_string(i) + "]";
  if (!entry.is_object()) bad(source, where + " must be an object, not " + json_excerpt(entry));
  ScorecardCell cell;
  cell.id = required_string(entry, "id", source, where);
  where += " (cell " + cell.id + ")";
  if (cell.id.empty()) bad(source, where + " has an empty id");
  const std::string state = required_string(entry, "state", source, where);
  const std::optional<CellState> parsed = cell_state_from_string(state);
  if (!parsed) bad(source, "cell " + cell.id + " has state '" + state + "', not one of " + cell_state_names());
  cell.state = *parsed;
  cell.family = required_string(entry, "family", source, where);
  cell.roster = required_string(entry, "roster", source, where);
  required(entry, "checks", source, where);
  cell.checks = string_list(entry, "checks", source, where);
  if (entry.contains("failed_checks")) cell.failed_checks = string_list(entry, "failed_checks", source, where);
  cell.message = optional_string(entry, "message", source, where);
  cell.refusal_code = optional_string(entry, "refusal_code", source, where);
  if (entry.contains("ops")) {
    if (!entry["ops"].is_number_unsigned()) bad(source, where + ".ops must be a whole number, not " + json_excerpt(entry["ops"]));
    cell.ops = entry["ops"].get<std::uint64_t>();
  }
  if (entry.contains("failures")) {
    if (!entry["failures"].is_array()) bad(source, where + ".failures must be a list, not " + json_excerpt(entry["failures"]));
    for (const nlohmann::json& failure : entry["failures"]) {
      if (!failure.is_object()) bad(source, where + ".failures must hold objects, not " + json_excerpt(failure));
      cell.failures.push_back({optional_string(failure, "check", source, where + ".failures"),
                               optional_string(failure, "detail", source, where + ".failures")});
    }
  }
  if (entry.contains("coverage")) cell.coverage = read_coverage(entry["coverage"], source, where);
  return cell;
}

CapabilityRow read_capability(const nlohmann::json& entry, std::size_t i, const std::string& source) {
  const std::string where = "capabilities[" + std::to_string(i) + "]";
  if (!entry.is_object()) bad(source, where + " must be an object, not " + json_excerpt(entry));
  CapabilityRow row;
  row.capability.name = required_string(entry, "name", source, where);
  const std::string state = required_string(entry, "state", source, where + " (capability " + row.capability.name + ")");
  const std::optional<CapabilityState> parsed = capability_state_from_string(state);
  if (!parsed)
    bad(source,
        "capability '" + row.capability.name + "' has state '" + state + "', not one of " + joined_names(kCapabilityStateNames));
  row.state = *parsed;
  row.capability.is_flag = entry.value("flag", false) == true;
  row.capability.declared_supported = optional_string(entry, "declared", source, where) == "supported";
  row.capability.refusal = optional_string(entry, "refusal", source, where);
  row.capability.notes = optional_string(entry, "notes", source, where);
  if (entry.contains("cells")) row.capability.cells = string_list(entry, "cells", source, where);
  row.why = optional_string(entry, "why", source, where);
  return row;
}

}  // namespace

Scorecard Scorecard::from_json(const nlohmann::json& card, const std::string& source) {
  if (!card.is_object()) bad(source, "must be a JSON object, not " + json_excerpt(card));
  const nlohmann::json& version = required(card, "schema_version", source, "the card");
  if (!version.is_number_integer() || version != 1)
    bad(source, "has schema_version " + json_excerpt(version) + "; this harness reads 1");
  Scorecard result;
  result.backend = required_string(card, "backend", source, "the card");
  result.spec = strings_of(card, "spec", source);
  result.provenance = strings_of(card, "provenance", source);
  result.summary = required_object(card, "summary", source);
  result.run = required_object(card, "run", source);

  std::map<std::string, std::size_t> cell_at;
  const nlohmann::json& cells = required_list(card, "cells", source);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    ScorecardCell cell = read_cell(cells[i], i, source);
    const auto [first, inserted] = cell_at.emplace(cell.id, i);
    if (!inserted)
      bad(source, "cell " + cell.id + " appears twice (cells[" + std::to_string(first->second) + "] and cells[" +
                      std::to_string(i) + "])");
    result.cells.push_back(std::move(cell));
  }
  if (card.contains("interrupted")) {
    const nlohmann::json& interrupted = required_object(card, "interrupted", source);
    required(interrupted, "unfinished", source, "interrupted");
    result.interrupted = Interruption{required_string(interrupted, "signal", source, "interrupted"),
                                      string_list(interrupted, "unfinished", source, "interrupted")};
  }
  std::map<std::string, std::size_t> capability_at;
  const nlohmann::json& capabilities = required_list(card, "capabilities", source);
  for (std::size_t i = 0; i < capabilities.size(); ++i) {
    CapabilityRow row = read_capability(capabilities[i], i, source);
    const auto [first, inserted] = capability_at.emplace(row.capability.name, i);
    if (!inserted)
      bad(source, "capability '" + row.capability.name + "' appears twice (capabilities[" + std::to_string(first->second) +
                      "] and capabilities[" + std::to_string(i) + "])");
    result.capabilities.push_back(std::move(row));
  }
  return result;
}

Scorecard read_scorecard(const std::string& path) {
  nlohmann::json card;
  try {
    card = read_json_file(path, kMaxScorecardBytes);
  } catch (const InputFileError& error) {
    throw ScorecardError(error.what(), error.kind() == InputFileError::Kind::Missing);
  }
  return Scorecard::from_json(card, path);
}

std::vector<Drift> scorecard_drift(const Scorecard& committed, const Scorecard& fresh) {
  std::vector<Drift> drift;
  // (id, state) pairs of a section of a card
  auto compare = [&](const char* what, const std::vector<std::pair<std::string, std::string>>& before_entries,
                     const std::vector<std::pair<std::string, std::string>>& after_entries, auto is_regression) {
    std::map<std::string, std::string> before(before_entries.begin(), before_entries.end());
    std::set<std::string> seen;
    for (const auto& [id, after] : after_entries) {
      seen.insert(id);
      const auto found = before.find(id);
      const std::string was = found == before.end() ? "absent" : found->second;
      if (was != after) drift.push_back({what, id, was, after, is_regression(was, after)});
    }
    for (const auto& [id, was] : before) {
      if (!seen.contains(id)) drift.push_back({what, id, was, "absent", true});
    }
  };
  auto cell_states = [](const Scorecard& card) {
    std::vector<std::pair<std::string, std::string>> states;
    for (const ScorecardCell& cell : card.cells) states.emplace_back(cell.id, to_string(cell.state));
    return states;
  };
  auto capability_states = [](const Scorecard& card) {
    std::vector<std::pair<std::string, std::string>> states;
    for (const CapabilityRow& row : card.capabilities) states.emplace_back(row.capability.name, to_string(row.state));
    return states;
  };
  // The state table decides (cell_state.h): a skipped cell (a feature this run did not enable) is
  // drift to report, never a pass, but not a regression either. A capability flipping between
  // supported and unsupported is a regression; one that loses its proof (now untested) is one on the
  // pinned leg, which must keep proving what the committed card proved, unless a cell of its proof
  // was skipped here (drift, as that cell is), and drift on other legs.
  const bool pinned = fresh.provenance_of("leg") == "pinned";
  std::set<std::string> skipped;
  for (const ScorecardCell& cell : fresh.cells) {
    if (cell.state == CellState::Skipped) skipped.insert(cell.id);
  }
  std::set<std::string> proof_skipped;  // capabilities a skipped cell proves
  for (const CapabilityRow& row : fresh.capabilities) {
    for (const std::string& cell : row.capability.cells) {
      if (skipped.contains(cell)) proof_skipped.insert(row.capability.name);
    }
  }
  compare("cell", cell_states(committed), cell_states(fresh), [&](const std::string& was, const std::string& now) {
    if (was == "absent") return false;
    return is_regression(*cell_state_from_string(was), *cell_state_from_string(now), pinned);
  });
  compare("capability", capability_states(committed), capability_states(fresh),
          [](const std::string& was, const std::string& now) { return was != "untested" && now != "untested" && now != was; });
  for (Drift& d : drift) {
    if (d.what == "capability" && d.before != "untested" && d.before != "absent" && d.after == "untested")
      d.regression = pinned && !proof_skipped.contains(d.id);
  }
  // A cell that stays passed can still hide a regression: a check that no longer runs (its row lost
  // it, or the cell stopped before it), or another op count (the pinned tinygrad builds the same
  // graph every time, so a capture that records other ops changed; the card is rewritten on purpose).
  std::map<std::string, const ScorecardCell*> before;
  for (const ScorecardCell& cell : committed.cells) before[cell.id] = &cell;
  for (const ScorecardCell& cell : fresh.cells) {
    const auto found = before.find(cell.id);
    if (found == before.end() || cell.state != CellState::Passed || found->second->state != CellState::Passed) continue;
    const ScorecardCell& was = *found->second;
    std::string lost;
    for (const std::string& check : was.checks) {
      if (std::find(cell.checks.begin(), cell.checks.end(), check) == cell.checks.end())
        lost += (lost.empty() ? "" : ", ") + check;
    }
    if (!lost.empty()) drift.push_back({"cell", cell.id, "passed", "passed without " + lost, true});
    if (was.ops && cell.ops && *was.ops != *cell.ops)
      drift.push_back({"cell", cell.id, "passed, " + std::to_string(*was.ops) + " ops",
                       "passed, " + std::to_string(*cell.ops) + " ops", pinned});
    // A check that judges fewer ops than the committed card's, or no longer every one it judged
    // (a sample where there was none), passes while it looks at less; one that counts other ops it
    // could judge (a sample of 64 now said to be of 64) hides how much it left.
    for (const auto& [check, before_coverage] : was.coverage) {
      if (std::find(cell.checks.begin(), cell.checks.end(), check) == cell.checks.end()) continue;  // lost: said above
      const auto now = cell.coverage.find(check);
      const std::string before_text =
          "passed, " + check + " judged " + std::to_string(before_coverage.checked) + " of " + std::to_string(before_coverage.of);
      if (now == cell.coverage.end()) {
        drift.push_back({"cell", cell.id, before_text, "passed, " + check + " with no coverage recorded", pinned});
        continue;
      }
      const Coverage& after = now->second;
      // What a check could judge is fixed by the graph (as the op count is); what it judged may only grow.
      const bool lost_every = before_coverage.checked == before_coverage.of && after.checked < after.of;
      if (after.checked < before_coverage.checked || after.of != before_coverage.of || lost_every)
        drift.push_back({"cell", cell.id, before_text,
                         "passed, " + check + " judged " + std::to_string(after.checked) + " of " + std::to_string(after.of),
                         pinned});
    }
  }
  return drift;
}

std::vector<CapabilityRow> capability_rows_from(const BackendSpec& spec, const std::string& scorecard_path) {
  std::map<std::string, CellState> cells;
  try {
    // Checked whole: a corrupt card is a ScorecardError, never a guess.
    const Scorecard card = read_scorecard(scorecard_path);
    // Only the pinned leg proves states; another leg's cells are drift, not proof.
    if (card.provenance_of("leg") == "pinned") {
      for (const ScorecardCell& cell : card.cells) cells[cell.id] = cell.state;
    }
  } catch (const ScorecardError& error) {
    if (!error.missing()) throw;  // no scorecard at all: every row is untested
  }
  return summarize_capabilities(spec.capabilities, cells);
}

}  // namespace tl
