// One doctor row: a fact about the environment or a backend's health, with a status and a hint.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "harness/io/name_table.h"

namespace tl {

enum class DoctorStatus { Ok, Warning, Missing, Failed };
constexpr NameTable<DoctorStatus, 4> kDoctorStatusNames{{
    {DoctorStatus::Ok, "ok"},
    {DoctorStatus::Warning, "warning"},
    {DoctorStatus::Missing, "missing"},
    {DoctorStatus::Failed, "failed"},
}};
inline std::string_view to_string(DoctorStatus status) { return name_in(kDoctorStatusNames, status); }
inline std::optional<DoctorStatus> doctor_status_from_string(std::string_view name) { return value_in(kDoctorStatusNames, name); }
// Missing and failed rows make `tlconform doctor` exit non-zero; a warning does not.
inline bool is_problem(DoctorStatus status) { return status == DoctorStatus::Missing || status == DoctorStatus::Failed; }

struct DoctorRow {
  std::string name;  // "python", "venv", "device", "dep:yaml-cpp", "backend_scorecard:NAME", ...
  DoctorStatus status = DoctorStatus::Ok;
  std::string value;  // what was found
  std::string hint;   // what to do, when not ok
};

}  // namespace tl
