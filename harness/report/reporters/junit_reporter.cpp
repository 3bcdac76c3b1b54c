// JUnit XML, the format CI systems (GitHub Actions test reporters, GitLab, Jenkins) read: a
// testsuite per family, a testcase per cell; a failing cell is a <failure> with its failing checks,
// a skipped, unsupported or expected-to-fail one is <skipped> with why.
#include <map>
#include <ostream>
#include <stdexcept>

#include "harness/io/text_escape.h"
#include "harness/report/reporter.h"

namespace tl {
namespace {

class JunitReporter : public Reporter {
 public:
  explicit JunitReporter(std::ostream& out) : out_(out) {}

  void cell_finished(const CellResult& result, double seconds, std::size_t, std::size_t) override {
    seconds_[result.id] = seconds;
  }

  void run_finished(const Scorecard& card, const std::vector<CellResult>& cells) override {
    std::map<std::string, std::vector<const CellResult*>> families;
    for (const CellResult& cell : cells) families[cell.family].push_back(&cell);
    out_ << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"" << xml_escape(card.backend) << " conformance\">\n";
    for (const auto& [family, members] : families) {
      int failures = 0;
      int skipped = 0;
      for (const CellResult* cell : members) {
        failures += is_failure(cell->state) ? 1 : 0;
        skipped += !is_failure(cell->state) && cell->state != CellState::Passed ? 1 : 0;
      }
      out_ << "  <testsuite name=\"" << xml_escape(family) << "\" tests=\"" << members.size() << "\" failures=\"" << failures
           << "\" skipped=\"" << skipped << "\">\n";
      for (const CellResult* cell : members) testcase(*cell);
      out_ << "  </testsuite>\n";
    }
    out_ << "</testsuites>\n";
  }

  // JUnit XML describes test runs; the other commands' documents have no form in it.
  bool shows_documents() const override { return false; }
  void cell(const RosterRow&, const CellResult&) override { no_document(); }
  void trace(const Trace&, const ValidationStatus*) override { no_document(); }
  void validation(const ValidationStatus&) override { no_document(); }
  void doctor(const std::vector<DoctorRow>&) override { no_document(); }
  void capabilities(const std::string&, const std::vector<CapabilityRow>&) override { no_document(); }
  void spec(const nlohmann::json&) override { no_document(); }

 private:
  [[noreturn]] static void no_document() {
    throw std::invalid_argument("the junit format shows runs of cells (run, scorecard); use console, json or markdown");
  }

  void testcase(const CellResult& cell) {
    const auto took = seconds_.find(cell.id);
    out_ << "    <testcase classname=\"" << xml_escape(cell.family) << "\" name=\"" << xml_escape(cell.id) << "\" file=\""
         << xml_escape(cell.roster.file) << "\" line=\"" << cell.roster.line << "\" time=\""
         << (took == seconds_.end() ? 0.0 : took->second) << "\"";
    if (cell.state == CellState::Passed) {
      out_ << "/>\n";
      return;
    }
    out_ << ">\n";
    if (is_failure(cell.state)) {
      std::string checks;
      for (const std::string& check : cell.failed_checks()) checks += check + "\n";
      out_ << "      <failure type=\"" << to_string(cell.state) << "\" message=\"" << xml_escape(cell.message.substr(0, 1000))
           << "\">" << xml_escape(checks + cell.output) << "</failure>\n";
    } else {
      out_ << "      <skipped message=\"" << to_string(cell.state) << ": " << xml_escape(cell.message.substr(0, 1000))
           << "\"/>\n";
    }
    out_ << "    </testcase>\n";
  }

  std::ostream& out_;
  std::map<std::string, double> seconds_;
};

}  // namespace

std::unique_ptr<Reporter> make_junit_reporter(std::ostream& out) { return std::make_unique<JunitReporter>(out); }

}  // namespace tl
