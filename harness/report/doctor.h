// Doctor rows: the environment and the backend's health, each with a status and a hint.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/backend/backend_spec.h"
#include "harness/backend/doctor_row.h"

namespace tl {

// The environment's rows (venv, python, the C++ dependencies), the backend's own (its probe: the
// framework and its device), and the backend_scorecard:NAME row from the scorecard at
// `scorecard_path`. Starts the embedded Python if it can (a failure becomes a row); never throws
// for what it diagnoses.
std::vector<DoctorRow> doctor_rows(const BackendSpec& spec, const std::string& scorecard_path);

std::string doctor_text(const std::vector<DoctorRow>& rows);
nlohmann::json doctor_json(const std::vector<DoctorRow>& rows);

}  // namespace tl
