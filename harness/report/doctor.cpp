#include "harness/report/doctor.h"

#include <pybind11/pybind11.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include "harness/backend/python_runtime.h"
#include "harness/report/scorecard.h"

namespace tl {

namespace {

DoctorRow scorecard_row(const BackendSpec& spec, const std::string& path, const std::string& installed) {
  DoctorRow row{"backend_scorecard:" + spec.name, DoctorStatus::Ok, "", ""};
  Scorecard card;
  try {
    card = read_scorecard(path);  // a regular file, within budgets, of the shape Scorecard::to_json writes
  } catch (const ScorecardError& error) {
    if (error.missing())
      return {row.name, DoctorStatus::Missing, "no scorecard at " + path,
              "the pinned leg writes it: tlconform scorecard --backend " + spec.name + " --write"};
    return {row.name, DoctorStatus::Failed, error.what(),
            "rewrite it with tlconform scorecard --backend " + spec.name + " --write"};
  }
  // Counted from the cells (checked above), not from the summary, which is only their tally.
  struct Counts {
    int passed = 0;
    int failing = 0;
    int other = 0;  // skipped, unsupported, expected_fail: not a failure, not a pass
    int total = 0;
  };
  std::map<std::string, Counts> by_family;
  for (const ScorecardCell& cell : card.cells) {
    Counts& counts = by_family[cell.family];
    const CellState state = cell.state;
    counts.passed += state == CellState::Passed ? 1 : 0;
    counts.failing += is_failure(state) ? 1 : 0;
    counts.other += !is_failure(state) && state != CellState::Passed ? 1 : 0;
    ++counts.total;
  }
  std::string families;
  bool all_passed = true;
  for (const auto& [family, counts] : by_family) {
    all_passed = all_passed && counts.failing == 0;
    families += (families.empty() ? "" : ", ") + family + " " + std::to_string(counts.passed) + "/" +
                std::to_string(counts.total) +
                (counts.other != 0 ? " (" + std::to_string(counts.other) + " skipped, unsupported or xfail)" : "");
  }
  std::map<std::string, int> capability_states;
  for (const CapabilityRow& capability : card.capabilities) ++capability_states[to_string(capability.state)];
  std::string capabilities;
  for (const auto& [state, count] : capability_states)
    capabilities += (capabilities.empty() ? "" : ", ") + std::to_string(count) + " " + state;
  const auto or_unknown = [](const std::string& text) { return text.empty() ? std::string("?") : text; };
  const std::string seen = or_unknown(card.provenance_of("framework_version_seen"));
  const auto maturity = card.spec.find("maturity");
  row.value = "maturity " + (maturity == card.spec.end() ? std::string("?") : maturity->second) + ", pinned " +
              or_unknown(card.provenance_of("framework_version_pinned")) + ", leg " + or_unknown(card.provenance_of("leg")) +
              "; " + families + "; capabilities: " + capabilities + "; installed " + spec.distribution + " " +
              (installed.empty() ? "none" : installed) + (installed == seen ? " matches" : " differs from") +
              " the scorecard's " + seen;
  if (!all_passed) {
    row.status = DoctorStatus::Warning;
    row.hint = "some cells of the committed scorecard did not pass: see " + path;
  } else if (installed != seen) {
    row.status = DoctorStatus::Warning;
    row.hint = "the scorecard was made with " + spec.distribution + " " + seen + "; this environment may behave differently";
  }
  return row;
}

}  // namespace

std::vector<DoctorRow> doctor_rows(const BackendSpec& spec, const std::string& scorecard_path) {
  std::vector<DoctorRow> rows;
  const std::string venv = configured_venv();
  // Attached, the host's Python is whatever it is (a venv or not); embedded, the venv must be there.
  const bool has_venv = python_host_attached() || std::filesystem::exists(std::filesystem::path(venv) / "bin" / "python");
  rows.push_back({"venv", has_venv ? DoctorStatus::Ok : DoctorStatus::Missing, venv,
                  has_venv ? "" : "run ci/bootstrap.sh (or point TL_VENV at a venv)"});
  std::string installed;
  try {
    const RuntimeInfo& info = python_runtime();
    rows.push_back({"python", DoctorStatus::Ok, info.python_version + " (sys.prefix " + info.sys_prefix + ")", ""});
    // The backend's own rows: its framework against the pinned version and range, its device.
    FrameworkProbe framework = spec.probe ? spec.probe() : FrameworkProbe{};
    installed = framework.version;
    rows.insert(rows.end(), framework.rows.begin(), framework.rows.end());
  } catch (const std::exception& error) {
    rows.push_back(
        {"python", DoctorStatus::Failed, error.what(), "run ci/bootstrap.sh; the venv's Python must be CPython >= 3.11"});
  }
  rows.push_back({"dep:pybind11", DoctorStatus::Ok, TL_DEP_PYBIND11, ""});
  rows.push_back({"dep:nlohmann_json", DoctorStatus::Ok, TL_DEP_NLOHMANN_JSON, ""});
  rows.push_back({"dep:yaml-cpp", DoctorStatus::Ok, TL_DEP_YAML_CPP, ""});
  rows.push_back({"dep:googletest", DoctorStatus::Ok, TL_DEP_GTEST, ""});
  rows.push_back({"dep:benchmark", DoctorStatus::Ok, TL_DEP_BENCHMARK, ""});
  try {
    rows.push_back(scorecard_row(spec, scorecard_path, installed));
  } catch (const std::exception& error) {  // the last resort: the other rows still print
    rows.push_back(
        {"backend_scorecard:" + spec.name, DoctorStatus::Failed, error.what(), "rewrite it with tlconform scorecard --write"});
  }
  return rows;
}

std::string doctor_text(const std::vector<DoctorRow>& rows) {
  std::string text;
  for (const DoctorRow& row : rows) {
    const std::string status(to_string(row.status));
    text += status + std::string(8 - std::min<std::size_t>(7, status.size()), ' ') + row.name + ": " + row.value + "\n";
    if (!row.hint.empty()) text += "        hint: " + row.hint + "\n";
  }
  return text;
}

nlohmann::json doctor_json(const std::vector<DoctorRow>& rows) {
  auto json = nlohmann::json::array();
  for (const DoctorRow& row : rows)
    json.push_back({{"name", row.name}, {"status", to_string(row.status)}, {"value", row.value}, {"hint", row.hint}});
  return json;
}

}  // namespace tl
