// How a command's results are shown: one interface, one file per format (as google/benchmark's
// reporters are). A run feeds a reporter each cell as it finishes, then the whole scorecard; every
// other command hands it its one document (a cell, a trace, a validation, the doctor rows, the
// capability table, the spec). No command formats results itself.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/backend/backend_spec.h"
#include "harness/backend/capabilities.h"
#include "harness/backend/doctor_row.h"
#include "harness/cells/cell_result.h"
#include "harness/model/trace.h"
#include "harness/model/validation.h"
#include "harness/report/scorecard.h"

namespace tl {

class Reporter {
 public:
  virtual ~Reporter() = default;

  // A run of cells: each cell as it finishes (`done` of `total`, taking `seconds`), shown as it
  // happens; then `card`, the run's scorecard, and `cells`, its full results.
  virtual void cell_finished(const CellResult& result, double seconds, std::size_t done, std::size_t total) = 0;
  virtual void run_finished(const Scorecard& card, const std::vector<CellResult>& cells) = 0;

  // The documents of the other commands. A format that has no form for one (junit shows runs of
  // cells only) throws std::invalid_argument; shows_documents() says so before any work is done.
  virtual bool shows_documents() const { return true; }
  virtual void cell(const RosterRow& row, const CellResult& result) = 0;       // `cell`: every check of one cell
  virtual void trace(const Trace& trace, const ValidationStatus* status) = 0;  // `trace` (validated or not), `inspect`
  virtual void validation(const ValidationStatus& status) = 0;                 // `validate`: every decision
  virtual void doctor(const std::vector<DoctorRow>& rows) = 0;
  virtual void capabilities(const std::string& backend, const std::vector<CapabilityRow>& rows) = 0;
  virtual void spec(const nlohmann::json& fields) = 0;  // the backend's requirement table (spec_json and the backend)
};

// console: a line per cell as it ends with every failing check, then the summary (the default); the
// documents as tables for a terminal. json: the scorecard once the run ends; each document as JSON.
// markdown: a table of cells and their failing checks; each document as a table. junit: JUnit XML
// (a testsuite per family, a testcase per cell), as CI systems read it; runs only.
std::unique_ptr<Reporter> make_console_reporter(std::ostream& out);
std::unique_ptr<Reporter> make_json_reporter(std::ostream& out);
std::unique_ptr<Reporter> make_markdown_reporter(std::ostream& out);
std::unique_ptr<Reporter> make_junit_reporter(std::ostream& out);

// The reporter for a format name; std::invalid_argument names the formats for an unknown one.
std::unique_ptr<Reporter> make_reporter(const std::string& format, std::ostream& out);
std::vector<std::string> reporter_formats();

}  // namespace tl
