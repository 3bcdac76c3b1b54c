// JSON: nothing while cells run (the output stays one document), then the scorecard; each other
// command's document as one JSON value (NaN and infinite payload values as the strings "nan", "inf"
// and "-inf", bytes that are not UTF-8 repaired).
#include <ostream>

#include "harness/io/text_escape.h"
#include "harness/model/trace_json.h"
#include "harness/report/doctor.h"
#include "harness/report/reporter.h"

namespace tl {
namespace {

class JsonReporter : public Reporter {
 public:
  explicit JsonReporter(std::ostream& out) : out_(out) {}
  void cell_finished(const CellResult&, double, std::size_t, std::size_t) override {}
  void run_finished(const Scorecard& card, const std::vector<CellResult>&) override { write(card.to_json()); }

  // One line: what `cell --json` has always printed, and what a supervisor's record holds.
  void cell(const RosterRow&, const CellResult& result) override { out_ << json_text(result.to_json()) << std::endl; }
  void trace(const Trace& trace, const ValidationStatus*) override { write(trace_to_json(trace)); }
  void validation(const ValidationStatus& status) override { write(status.to_json()); }
  void doctor(const std::vector<DoctorRow>& rows) override { write(doctor_json(rows)); }
  void capabilities(const std::string&, const std::vector<CapabilityRow>& rows) override { write(capabilities_json(rows)); }
  void spec(const nlohmann::json& fields) override { write(fields); }

 private:
  void write(const nlohmann::json& value) { out_ << json_text(value, 2) << "\n"; }

  std::ostream& out_;
};

}  // namespace

std::unique_ptr<Reporter> make_json_reporter(std::ostream& out) { return std::make_unique<JsonReporter>(out); }

}  // namespace tl
