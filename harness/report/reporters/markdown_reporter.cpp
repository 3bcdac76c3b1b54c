// Markdown: the summary, then one table row per cell with its state and failing checks (for a pull
// request comment or a job summary page); each other command's document as a table. Every field is
// escaped: a message, a label or a path holds whatever a forward, a file or a bundle did.
#include <ostream>

#include "harness/model/payload.h"

#include "harness/io/text_escape.h"
#include "harness/report/reporter.h"

namespace tl {
namespace {

class MarkdownReporter : public Reporter {
 public:
  explicit MarkdownReporter(std::ostream& out) : out_(out) {}
  void cell_finished(const CellResult&, double, std::size_t, std::size_t) override {}

  void run_finished(const Scorecard& card, const std::vector<CellResult>& cells) override {
    const nlohmann::json& summary = card.summary;
    out_ << "## " << markdown_escape(card.backend) << " conformance: " << summary["total"].get<int>() << " cells\n\n";
    for (const auto& [state, count] : summary["by_state"].items()) out_ << "- " << state << ": " << count.get<int>() << "\n";
    out_ << "\n| cell | family | state | roster | why |\n|---|---|---|---|---|\n";
    for (const CellResult& cell : cells) {
      std::string why;
      for (const std::string& check : cell.failed_checks()) why += (why.empty() ? "" : "\n") + check;
      if (why.empty() && cell.state != CellState::Passed) why = cell.message;
      // Every field is escaped: a message or a roster path holds whatever a forward or a file name did.
      out_ << "| " << markdown_escape(cell.id) << " | " << markdown_escape(cell.family) << " | " << to_string(cell.state) << " | "
           << markdown_escape(cell.roster.str()) << " | " << markdown_escape(why.substr(0, 500)) << " |\n";
    }
  }

  void cell(const RosterRow& row, const CellResult& result) override {
    out_ << "## " << markdown_escape(row.id) << ": " << to_string(result.state)
         << "\n\n| check | result | detail |\n|---|---|---|\n";
    for (const Check& check : result.checks)
      out_ << "| " << markdown_escape(check.name) << " | " << (check.passed ? "ok" : "FAIL") << " | "
           << markdown_escape(check.detail.substr(0, 500)) << " |\n";
    if (result.state != CellState::Passed) out_ << "\n" << markdown_escape(result.message.substr(0, 2000)) << "\n";
  }

  void trace(const Trace& trace, const ValidationStatus* status) override {
    out_ << "| index | label | kind | const | dtype | shape | parents |\n|---|---|---|---|---|---|---|\n";
    for (const Op& op : trace.ops) {
      std::string parents;
      for (const ParentRef& parent : op.parents) parents += (parents.empty() ? "" : ", ") + std::to_string(parent.op);
      out_ << "| " << op.index << " | " << markdown_escape(op.label) << " | " << to_string(op.kind) << " | "
           << markdown_escape(op.constant_kind.value_or("-")) << " | " << markdown_escape(op.dtype.name) << " | "
           << shape_string(op.shape) << " | " << parents << " |\n";
    }
    if (status) out_ << "\nvalidation: " << to_string(status->state) << " (" << status->replayed << " ops replayed)\n";
  }

  void validation(const ValidationStatus& status) override {
    out_ << "validation: " << to_string(status.state) << " (" << status.replayed << " ops replayed)\n\n"
         << "| op | label | phase | decision | reason |\n|---|---|---|---|---|\n";
    for (const Decision& d : status.decisions)
      out_ << "| " << d.op << " | " << markdown_escape(d.label) << " | " << to_string(d.phase) << " | " << to_string(d.verdict)
           << " | " << markdown_escape(d.reason.substr(0, 500)) << " |\n";
  }

  void doctor(const std::vector<DoctorRow>& rows) override {
    out_ << "| row | status | value | hint |\n|---|---|---|---|\n";
    for (const DoctorRow& row : rows)
      out_ << "| " << markdown_escape(row.name) << " | " << to_string(row.status) << " | " << markdown_escape(row.value) << " | "
           << markdown_escape(row.hint) << " |\n";
  }

  // The docs page (docs/backends/tinygrad.md is this, generated).
  void capabilities(const std::string& backend, const std::vector<CapabilityRow>& rows) override {
    out_ << capabilities_markdown(backend, rows);
  }

  void spec(const nlohmann::json& fields) override {
    out_ << "| field | value |\n|---|---|\n";
    for (const auto& [key, value] : fields.items())
      out_ << "| " << markdown_escape(key) << " | " << markdown_escape(value.get<std::string>()) << " |\n";
  }

 private:
  std::ostream& out_;
};

}  // namespace

std::unique_ptr<Reporter> make_markdown_reporter(std::ostream& out) { return std::make_unique<MarkdownReporter>(out); }

}  // namespace tl
