// tlconform doctor: environment and backend health rows, as text or JSON.
#include <iostream>

#include "backends/registry.h"
#include "cli/commands.h"
#include "cli/scorecard_facts.h"
#include "harness/doctor.h"

namespace tl::cli {

int doctor_command(const Args& args) {
  const std::vector<DoctorRow> rows =
      doctor_rows(backends::spec("tinygrad"), args.value("scorecard", committed_scorecard_path()));
  if (args.has("json")) {
    std::cout << doctor_json(rows).dump(2) << "\n";
  } else {
    std::cout << doctor_text(rows);
  }
  for (const DoctorRow& row : rows) {
    if (row.status == "failed" || row.status == "missing") return kExitFailed;
  }
  return kExitPassed;
}

}  // namespace tl::cli
