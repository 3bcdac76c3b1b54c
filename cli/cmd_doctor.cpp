// tlconform doctor: environment and backend health rows, in the --format asked for.
#include "cli/commands.h"
#include "cli/run_options.h"
#include "harness/report/doctor.h"

namespace tl::cli {

int doctor_command(const Args& args) {
  const std::vector<DoctorRow> rows =
      doctor_rows(backend_of(args), args.value("scorecard", backend_of(args).committed_scorecard()));
  document_reporter_of(args)->doctor(rows);
  for (const DoctorRow& row : rows) {
    if (is_problem(row.status)) return kExitFailed;
  }
  return kExitPassed;
}

}  // namespace tl::cli
