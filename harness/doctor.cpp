#include "harness/doctor.h"

#include <pybind11/pybind11.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include "harness/python_runtime.h"
#include "harness/scorecard.h"
#include "harness/version_range.h"

namespace tl {
namespace {

DoctorRow scorecard_row(const BackendSpec& spec, const std::string& path, const std::string& installed) {
  DoctorRow row{"backend_scorecard:" + spec.name, "ok", "", ""};
  nlohmann::json card;
  try {
    card = read_scorecard(path);  // a regular file, within budgets, of the shape make_scorecard writes
  } catch (const ScorecardError& error) {
    if (error.missing())
      return {row.name, "missing", "no scorecard at " + path,
              "the pinned leg writes it: tlconform scorecard --backend " + spec.name + " --write"};
    return {row.name, "failed", error.what(), "rewrite it with tlconform scorecard --backend " + spec.name + " --write"};
  }
  const nlohmann::json& provenance = card["provenance"];
  // Counted from the cells (checked above), not from the summary, which is only their tally.
  struct Counts {
    int passed = 0;
    int skipped = 0;
    int total = 0;
  };
  std::map<std::string, Counts> by_family;
  for (const auto& cell : card["cells"]) {
    Counts& counts = by_family[cell["family"].get<std::string>()];
    const std::string state = cell["state"].get<std::string>();
    counts.passed += state == "passed" ? 1 : 0;
    counts.skipped += state == "skipped" ? 1 : 0;
    ++counts.total;
  }
  std::string families;
  bool all_passed = true;
  for (const auto& [family, counts] : by_family) {
    all_passed = all_passed && counts.passed + counts.skipped == counts.total;
    families += (families.empty() ? "" : ", ") + family + " " + std::to_string(counts.passed) + "/" +
                std::to_string(counts.total) + (counts.skipped != 0 ? " (" + std::to_string(counts.skipped) + " skipped)" : "");
  }
  std::map<std::string, int> capability_states;
  for (const auto& capability : card["capabilities"]) ++capability_states[capability["state"].get<std::string>()];
  std::string capabilities;
  for (const auto& [state, count] : capability_states)
    capabilities += (capabilities.empty() ? "" : ", ") + std::to_string(count) + " " + state;
  const std::string seen = provenance.value("framework_version_seen", "?");
  row.value = "maturity " + card["spec"].value("maturity", "?") + ", pinned " +
              provenance.value("framework_version_pinned", "?") + ", leg " + provenance.value("leg", "?") + "; " + families +
              "; capabilities: " + capabilities + "; installed tinygrad " + (installed.empty() ? "none" : installed) +
              (installed == seen ? " matches" : " differs from") + " the scorecard's " + seen;
  if (!all_passed) {
    row.status = "warning";
    row.hint = "some cells of the committed scorecard did not pass: see " + path;
  } else if (installed != seen) {
    row.status = "warning";
    row.hint = "the scorecard was made with tinygrad " + seen + "; this environment may behave differently";
  }
  return row;
}

}  // namespace

std::vector<DoctorRow> doctor_rows(const BackendSpec& spec, const std::string& scorecard_path) {
  std::vector<DoctorRow> rows;
  const std::string venv = configured_venv();
  const bool has_venv = std::filesystem::exists(std::filesystem::path(venv) / "bin" / "python");
  rows.push_back({"venv", has_venv ? "ok" : "missing", venv, has_venv ? "" : "run ci/bootstrap.sh (or point TL_VENV at a venv)"});
  std::string installed;
  try {
    const RuntimeInfo& info = python_runtime();
    rows.push_back({"python", "ok", info.python_version + " (sys.prefix " + info.sys_prefix + ")", ""});
    installed = info.tinygrad_version;
    if (installed.empty()) {
      rows.push_back(
          {"tinygrad", "missing", info.tinygrad_problem, "install tinygrad==" + spec.pinned_version + " into " + venv});
    } else if (!info.tinygrad_problem.empty()) {
      rows.push_back({"tinygrad", "failed", installed + ": " + info.tinygrad_problem, "reinstall tinygrad into the venv"});
    } else if (!version_in_range(installed, spec.supported_range)) {
      rows.push_back(
          {"tinygrad", "failed", installed + " is out of range " + spec.supported_range + " (pinned " + spec.pinned_version + ")",
           "install a tinygrad inside " + spec.supported_range + "; captures refuse with backend_version_unsupported"});
    } else {
      const bool pinned = installed == spec.pinned_version;
      rows.push_back({"tinygrad", pinned ? "ok" : "warning",
                      installed + " in range " + spec.supported_range +
                          (pinned ? ", the pinned version" : ", not the pinned " + spec.pinned_version) + " (" +
                          info.tinygrad_path + ")",
                      pinned ? "" : "the scorecard is proven on " + spec.pinned_version});
    }
    const std::string device_value =
        "DEV=" + info.device + (info.device_set_by_user ? " (set by the user)" : " (set by the harness)");
    rows.push_back(
        {"device", info.device == "PYTHON" ? "ok" : "warning", device_value,
         info.device == "PYTHON" ? "" : "live payloads, replay and derived grads need DEV=PYTHON; traces here are audit-only"});
  } catch (const std::exception& error) {
    rows.push_back({"python", "failed", error.what(), "run ci/bootstrap.sh; the venv's Python must be CPython >= 3.11"});
  }
  rows.push_back({"dep:pybind11", "ok", TL_DEP_PYBIND11, ""});
  rows.push_back({"dep:nlohmann_json", "ok", TL_DEP_NLOHMANN_JSON, ""});
  rows.push_back({"dep:yaml-cpp", "ok", TL_DEP_YAML_CPP, ""});
  rows.push_back({"dep:googletest", "ok", TL_DEP_GTEST, ""});
  rows.push_back({"dep:benchmark", "ok", TL_DEP_BENCHMARK, ""});
  try {
    rows.push_back(scorecard_row(spec, scorecard_path, installed));
  } catch (const std::exception& error) {  // whatever else goes wrong with the card, the rows above still print
    rows.push_back({"backend_scorecard:" + spec.name, "failed", scorecard_path + ": " + error.what(),
                    "rewrite it with tlconform scorecard --backend " + spec.name + " --write"});
  }
  return rows;
}

std::string doctor_text(const std::vector<DoctorRow>& rows) {
  std::string text;
  for (const DoctorRow& row : rows) {
    text += row.status + std::string(8 - std::min<std::size_t>(7, row.status.size()), ' ') + row.name + ": " + row.value + "\n";
    if (!row.hint.empty()) text += "        hint: " + row.hint + "\n";
  }
  return text;
}

nlohmann::json doctor_json(const std::vector<DoctorRow>& rows) {
  auto json = nlohmann::json::array();
  for (const DoctorRow& row : rows)
    json.push_back({{"name", row.name}, {"status", row.status}, {"value", row.value}, {"hint", row.hint}});
  return json;
}

}  // namespace tl
