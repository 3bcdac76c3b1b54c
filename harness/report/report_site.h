// The report page: one or more scorecards (legs of one run, or nights in a row) as one static HTML
// table, a row per cell and a column per card, with what changed between neighbouring columns
// marked. The model is built from the cards alone and rendered without a server or a framework; the
// command (cli/cmd_report.cpp) decides which graphs exist and writes the files.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/io/text_escape.h"  // html_escape
#include "harness/report/scorecard.h"

namespace tl {

// A card as given on the command line: where it came from (for tooltips and errors) and its content.
struct ReportCard {
  std::string source;
  Scorecard card;
};

// A cell's change against the column before it. Regression and fixed are what a reader looks for;
// any other change of state is shown plainly.
enum class Transition { None, Regression, Fixed, Changed };
std::string_view to_string(Transition transition);

// One card's entry for one row. `state` is a cell state name, or "absent" when the card lacks it.
struct ReportEntry {
  std::string state;
  std::string message;  // the cell's message, then each failing check "name: detail"
  std::string refusal_code;
  Transition transition = Transition::None;
  std::string before;  // the previous column's state, when there is a transition
};

struct ReportRow {
  std::string id;
  std::string family;
  std::string roster;  // file:line
  std::optional<std::size_t> ops;
  std::vector<ReportEntry> entries;  // one per column
};

struct ReportColumn {
  std::string source;       // the card's file
  std::string label;        // "pinned · 0.13.0 · 2026-12-02 14:02 · 287e0dc"
  std::string short_label;  // "12-02 14:02 · 287e0dc", for narrow headers (the capability table)
  std::string leg, framework_version, date, commit;
  std::map<std::string, std::size_t> counts;  // by state, counted from the cells (never the card's summary)
  std::size_t total = 0;
  std::size_t passed = 0, failing = 0;  // failing: states whose is_failure is true
};

struct ReportCapability {
  std::string name, declared, state, refusal, notes;
  std::vector<std::string> states;  // one per column; "absent" when that card lacks the capability
};

struct ReportModel {
  std::vector<ReportColumn> columns;
  std::vector<ReportRow> rows;                 // the last card's order, then ids only earlier cards have
  std::vector<ReportCapability> capabilities;  // the last card's
};

// Builds the model. Cards must have passed check_scorecard; their optional fields are read
// defensively (a missing or odd one shows as empty, never throws).
ReportModel build_report_model(const std::vector<ReportCard>& cards);

// What the page shows about a row's traced graph: a link (relative to the page), or why there is none.
struct GraphLink {
  std::string href;
  std::string note;
};

struct ReportPage {
  std::string title = "tlconform report";
  std::map<std::string, GraphLink> graphs;  // by row id; rows not in it show nothing
  std::string trend_svg;                    // inline SVG, shown when not empty
  std::string stylesheet = "report.css";
  std::string script = "report.js";
};

std::string render_report_html(const ReportModel& model, const ReportPage& page);

// "2026-12-02 14:02 UTC" from unix seconds.
std::string utc_date_time(long long seconds);

// The embedded stylesheet and script (harness/report/report_assets/), written next to index.html.
std::string_view report_css();
std::string_view report_js();

}  // namespace tl
