// Doctor rows: the environment and the backend's health, each with a status and a hint.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/backend_spec.h"

namespace tl {

struct DoctorRow {
  std::string name;    // "python", "venv", "tinygrad", "device", "dep:yaml-cpp", "backend_scorecard:tinygrad", ...
  std::string status;  // "ok", "warning", "missing" or "failed"
  std::string value;   // what was found
  std::string hint;    // what to do, when not ok
};

// Starts the embedded Python if it can (a failure becomes a row), reads the committed scorecard at
// `scorecard_path`, and reports. Never throws for what it diagnoses.
std::vector<DoctorRow> doctor_rows(const BackendSpec& spec, const std::string& scorecard_path);

std::string doctor_text(const std::vector<DoctorRow>& rows);
nlohmann::json doctor_json(const std::vector<DoctorRow>& rows);

}  // namespace tl
