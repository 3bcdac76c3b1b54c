// tlconform doctor: environment and backend health rows, as text or JSON.
#include <iostream>

#include "cli/commands.h"
#include "harness/doctor.h"
#include "harness/text_escape.h"

namespace tl::cli {

int doctor_command(const Args& args) {
  const std::vector<DoctorRow> rows =
      doctor_rows(backend_of(args), args.value("scorecard", backend_of(args).committed_scorecard()));
  if (args.has("json")) {
    std::cout << json_text(doctor_json(rows), 2) << "\n";
  } else {
    std::cout << terminal_text(doctor_text(rows));  // values hold paths and versions as found
  }
  for (const DoctorRow& row : rows) {
    if (is_problem(row.status)) return kExitFailed;
  }
  return kExitPassed;
}

}  // namespace tl::cli
