// How a run of cells is shown: one interface, one file per format (as google/benchmark's reporters
// are). A command feeds a reporter each cell as it finishes, then the whole scorecard; it never
// formats results itself.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/cell_result.h"

namespace tl {

class Reporter {
 public:
  virtual ~Reporter() = default;
  // A cell finished (`done` of `total`, taking `seconds`): progress, shown as it happens.
  virtual void cell_finished(const CellResult& result, double seconds, std::size_t done, std::size_t total) = 0;
  // Every cell is done: `card` is the run's scorecard (scorecard.h) and `cells` its full results.
  virtual void run_finished(const nlohmann::json& card, const std::vector<CellResult>& cells) = 0;
};

// console: a line per cell as it ends with every failing check, then the summary (the default).
// json: the scorecard, once the run ends. markdown: a table of cells and their failing checks.
// junit: JUnit XML (a testsuite per family, a testcase per cell), as CI systems read it.
std::unique_ptr<Reporter> make_console_reporter(std::ostream& out);
std::unique_ptr<Reporter> make_json_reporter(std::ostream& out);
std::unique_ptr<Reporter> make_markdown_reporter(std::ostream& out);
std::unique_ptr<Reporter> make_junit_reporter(std::ostream& out);

// The reporter for a format name; std::invalid_argument names the formats for an unknown one.
std::unique_ptr<Reporter> make_reporter(const std::string& format, std::ostream& out);
std::vector<std::string> reporter_formats();

}  // namespace tl
