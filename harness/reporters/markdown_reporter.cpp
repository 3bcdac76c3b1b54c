// Markdown: the summary, then one table row per cell with its state and failing checks (for a pull
// request comment or a job summary page).
#include <ostream>

#include "harness/reporter.h"

namespace tl {
namespace {

// A table cell holds one line, and a `|` would end it.
std::string table_text(std::string text) {
  std::string escaped;
  for (char c : text) {
    if (c == '|') {
      escaped += "\\|";
    } else if (c == '\n') {
      escaped += "<br>";
    } else {
      escaped += c;
    }
  }
  return escaped;
}

class MarkdownReporter : public Reporter {
 public:
  explicit MarkdownReporter(std::ostream& out) : out_(out) {}
  void cell_finished(const CellResult&, double, std::size_t, std::size_t) override {}

  void run_finished(const nlohmann::json& card, const std::vector<CellResult>& cells) override {
    const nlohmann::json& summary = card["summary"];
    out_ << "## " << card.value("backend", "?") << " conformance: " << summary["total"].get<int>() << " cells\n\n";
    for (const auto& [state, count] : summary["by_state"].items()) out_ << "- " << state << ": " << count.get<int>() << "\n";
    out_ << "\n| cell | family | state | roster | why |\n|---|---|---|---|---|\n";
    for (const CellResult& cell : cells) {
      std::string why;
      for (const std::string& check : cell.failed_checks()) why += (why.empty() ? "" : "\n") + check;
      if (why.empty() && cell.state != CellState::Passed) why = cell.message;
      out_ << "| `" << cell.id << "` | " << cell.family << " | " << to_string(cell.state) << " | " << cell.roster.str() << " | "
           << table_text(why.substr(0, 500)) << " |\n";
    }
  }

 private:
  std::ostream& out_;
};

}  // namespace

std::unique_ptr<Reporter> make_markdown_reporter(std::ostream& out) { return std::make_unique<MarkdownReporter>(out); }

}  // namespace tl
