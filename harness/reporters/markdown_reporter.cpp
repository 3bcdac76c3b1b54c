// Markdown: the summary, then one table row per cell with its state and failing checks (for a pull
// request comment or a job summary page).
#include <ostream>

#include "harness/reporter.h"
#include "harness/text_escape.h"

namespace tl {
namespace {

class MarkdownReporter : public Reporter {
 public:
  explicit MarkdownReporter(std::ostream& out) : out_(out) {}
  void cell_finished(const CellResult&, double, std::size_t, std::size_t) override {}

  void run_finished(const nlohmann::json& card, const std::vector<CellResult>& cells) override {
    const nlohmann::json& summary = card["summary"];
    out_ << "## " << markdown_escape(card.value("backend", "?")) << " conformance: " << summary["total"].get<int>()
         << " cells\n\n";
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

 private:
  std::ostream& out_;
};

}  // namespace

std::unique_ptr<Reporter> make_markdown_reporter(std::ostream& out) { return std::make_unique<MarkdownReporter>(out); }

}  // namespace tl
