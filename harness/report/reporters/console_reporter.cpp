// The console: a line per cell as it ends ([done/total] state id roster ops seconds), every failing
// check of a failing cell under it, then the summary by state and by family. The documents of the
// other commands as tables, a line each. Whatever came from a forward, a file or a bundle (labels,
// messages, paths, versions) is shown with its control characters escaped, never acted on.
#include <iomanip>
#include <ostream>

#include "harness/report/doctor.h"

#include "harness/io/text_escape.h"
#include "harness/report/reporter.h"

namespace tl {
namespace {

// `text` left-aligned in `width` columns (never cut), as printf's %-Ns.
std::string padded(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

// How many partly judged cells the run's summary names (the card keeps every one).
constexpr std::size_t kPartialShown = 10;

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

  void run_finished(const Scorecard& card, const std::vector<CellResult>&) override {
    const nlohmann::json& summary = card.summary;
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
    // A passed cell whose check judged only part of its ops (a sample, or ops it could not ask about):
    // passed, but not on everything, and the card records how much (coverage).
    std::vector<std::string> partial;
    for (const ScorecardCell& cell : card.cells) {
      if (cell.state != CellState::Passed) continue;
      std::string parts;
      for (const auto& [check, coverage] : cell.coverage) {
        if (coverage.checked < coverage.of)
          parts +=
              (parts.empty() ? "" : ", ") + check + " " + std::to_string(coverage.checked) + " of " + std::to_string(coverage.of);
      }
      if (!parts.empty()) partial.push_back(cell.id + " (" + parts + ")");
    }
    if (partial.empty()) return;
    out_ << "judged in part: " << partial.size() << " passed cell(s) checked only some of their ops:";
    for (std::size_t k = 0; k < partial.size() && k < kPartialShown; ++k) out_ << "\n  " << terminal_line(partial[k]);
    if (partial.size() > kPartialShown) out_ << "\n  and " << partial.size() - kPartialShown << " more (the card's coverage)";
    out_ << "\n";
  }

  void cell(const RosterRow& row, const CellResult& result) override {
    for (const Check& check : result.checks)
      out_ << (check.passed ? "  ok    " : "  FAIL  ") << check.name << ": " << terminal_text(check.detail) << "\n";
    out_ << terminal_line(row.where.str()) << ": row " << row.id << " " << to_string(result.state);
    if (result.state != CellState::Passed) out_ << ": " << terminal_text(result.message);
    if (!result.output.empty() && result.state != CellState::Passed) out_ << "\n" << terminal_text(result.output);
    out_ << std::endl;
  }

  void trace(const Trace& trace, const ValidationStatus* status) override {
    out_ << padded("index", 6) << padded("label", 29) << padded("kind", 10) << padded("const", 9) << padded("dtype", 9)
         << padded("shape", 15) << "parents\n";
    for (const Op& op : trace.ops) {
      std::string parents;
      for (const ParentRef& parent : op.parents) parents += (parents.empty() ? "" : ",") + std::to_string(parent.op);
      out_ << padded(std::to_string(op.index), 5) << " " << padded(terminal_line(op.label), 28) << " "
           << padded(to_string(op.kind), 9) << " " << padded(terminal_line(op.constant_kind.value_or("-")), 8) << " "
           << padded(op.dtype.name, 8) << " " << padded(shape_string(op.shape), 14) << " " << parents << "\n";
    }
    out_ << trace.size() << " ops; outputs:";
    for (std::size_t output : trace.outputs) out_ << " " << output;
    out_ << "\n";
    if (!trace.loaded_from.empty()) {
      // a bundle's: every field comes from its manifest
      out_ << "backend " << terminal_line(trace.backend) << ", framework " << terminal_line(trace.framework_version)
           << ", device " << terminal_line(trace.device) << ", "
           << (trace.ops.empty() || trace.ops[0].out ? "payloads included (audit-only: no live replay)\n"
                                                     : "saved without payloads (audit-only)\n")
           << "\n";
    } else {
      out_ << trace.stats.evaluations << " evaluation(s), " << trace.stats.kernels << " kernel(s), device "
           << terminal_line(trace.device) << "\n";
    }
    if (status) {
      out_ << "validation: " << to_string(status->state) << " (" << status->replayed << " ops replayed)"
           << (status->message.empty() ? "" : ": ") << terminal_text(status->message) << "\n";
    }
  }

  void validation(const ValidationStatus& status) override {
    out_ << padded("op", 6) << padded("label", 29) << padded("phase", 14) << padded("decision", 11) << "reason\n";
    for (const Decision& d : status.decisions) {
      out_ << padded(std::to_string(d.op), 5) << " " << padded(terminal_line(d.label), 28) << " "
           << padded(to_string(d.phase), 13) << " " << padded(to_string(d.verdict), 10) << " " << terminal_line(d.reason) << "\n";
    }
    out_ << "state: " << to_string(status.state) << " (" << status.replayed << " ops replayed)";
    if (!status.message.empty()) out_ << ": " << terminal_text(status.message);
    out_ << "\n";
  }

  void doctor(const std::vector<DoctorRow>& rows) override { out_ << terminal_text(doctor_text(rows)); }

  void capabilities(const std::string&, const std::vector<CapabilityRow>& rows) override {
    for (const CapabilityRow& row : rows)
      out_ << to_string(row.state) << "\t" << terminal_line(row.capability.name) << "\t(" << terminal_line(row.why) << ")\n";
  }

  void spec(const nlohmann::json& fields) override {
    for (const auto& [key, value] : fields.items()) {
      out_ << key << "\t" << value.get<std::string>();
      if (key == "install_extra") out_ << "\t(pip install '" << value.get<std::string>() << "')";
      if (key == "spec_install_extra") out_ << "\t(the name on the backend's page, which is upstream's; here: install_extra)";
      out_ << "\n";
    }
  }

 private:
  std::ostream& out_;
};

}  // namespace

std::unique_ptr<Reporter> make_console_reporter(std::ostream& out) { return std::make_unique<ConsoleReporter>(out); }

}  // namespace tl
