// The console: a line per cell as it ends ([done/total] state id roster ops seconds), every failing
// check of a failing cell under it, then the summary by state and by family.
#include <iomanip>
#include <ostream>

#include "harness/reporter.h"
#include "harness/text_escape.h"

namespace tl {
namespace {

class ConsoleReporter : public Reporter {
 public:
  explicit ConsoleReporter(std::ostream& out) : out_(out) {}

  void cell_finished(const CellResult& result, double seconds, std::size_t done, std::size_t total) override {
    if (total != 0) out_ << "[" << done << "/" << total << "] ";
    // What a cell reports comes from its forward and its files: shown, never acted on by the terminal.
    out_ << to_string(result.state) << "\t" << terminal_line(result.id) << "\t" << terminal_line(result.roster.str());
    if (result.ops) out_ << "\t" << *result.ops << " ops";
    out_ << "\t" << std::fixed << std::setprecision(1) << seconds << " s" << std::defaultfloat;
    if (is_failure(result.state)) {
      const std::vector<std::string> failed = result.failed_checks();
      for (const std::string& check : failed) out_ << "\n    FAIL " << terminal_text(check.substr(0, 2000));
      // The message adds what the checks do not say (a traceback, a crash, a limit).
      if (failed.empty() || result.message.find(failed.front()) == std::string::npos)
        out_ << "\n    " << terminal_text(result.message.substr(0, 2000));
      // The cell's own output, its last part: where a forward's prints and tracebacks end up.
      const std::string& output = result.output;
      if (!output.empty())
        out_ << "\n" << terminal_text(output.size() > 4000 ? "[...]" + output.substr(output.size() - 4000) : output);
    } else if (result.state != CellState::Passed) {
      out_ << "\t(" << terminal_text(result.message) << ")";
    }
    out_ << std::endl;
  }

  void run_finished(const nlohmann::json& card, const std::vector<CellResult>&) override {
    const nlohmann::json& summary = card["summary"];
    out_ << "summary: " << summary["total"].get<int>() << " cells";
    for (const auto& [state, count] : summary["by_state"].items()) out_ << ", " << count.get<int>() << " " << state;
    out_ << "\n";
    for (const auto& [family, counts] : summary["by_family"].items()) {
      out_ << "  " << family << ": " << counts.value("passed", 0) << "/" << counts.value("total", 0) << " passed";
      for (const auto& [state, count] : counts.items()) {
        if (state != "passed" && state != "total") out_ << ", " << count.get<int>() << " " << state;
      }
      out_ << "\n";
    }
  }

 private:
  std::ostream& out_;
};

}  // namespace

std::unique_ptr<Reporter> make_console_reporter(std::ostream& out) { return std::make_unique<ConsoleReporter>(out); }

}  // namespace tl
