// tlconform doctor: environment and backend health rows, as text or JSON.
#include <iostream>

#include "cli/commands.h"
#include "harness/doctor.h"

namespace tl::cli {

int doctor_command(const Args& args) {
  const std::vector<DoctorRow> rows =
      doctor_rows(backend_of(args), args.value("scorecard", backend_of(args).committed_scorecard()));
  if (args.has("json")) {
    std::cout << doctor_json(rows).dump(2) << "\n";
  } else {
    std::cout << doctor_text(rows);
  }
  for (const DoctorRow& row : rows) {
    if (is_problem(row.status)) return kExitFailed;
  }
  return kExitPassed;
}

}  // namespace tl::cli
