#include "harness/report/report_site.h"

#include "harness/io/name_table.h"

#include <ctime>
#include <set>
#include <sstream>

#include "harness/model/cell_state.h"
#include "harness/report/report_assets.h"

namespace tl {
namespace {

constexpr NameTable<Transition, 4> kTransitionNames{{
    {Transition::None, ""},
    {Transition::Regression, "regression"},
    {Transition::Fixed, "fixed"},
    {Transition::Changed, "changed"},
}};

// The why of a cell that did not pass: its message, then each failing check with its detail (the
// card keeps details only for failures), then failing checks the card names without a detail.
std::string why_of(const ScorecardCell& cell) {
  std::string why = cell.message;
  std::set<std::string> described;
  for (const CheckFailure& failure : cell.failures) {
    described.insert(failure.check);
    why += (why.empty() ? "" : "\n") + failure.check + (failure.detail.empty() ? "" : ": " + failure.detail);
  }
  for (const std::string& name : cell.failed_checks) {
    if (!described.contains(name)) why += (why.empty() ? "" : "\n") + name;
  }
  return why;
}

// `pinned_leg`: the later card's leg is pinned, whose rule (is_regression) scorecard --check applies.
Transition transition_of(const std::string& before, const std::string& after, bool pinned_leg) {
  if (before == after) return Transition::None;
  const std::optional<CellState> was = cell_state_from_string(before);
  const std::optional<CellState> now = cell_state_from_string(after);
  if (was && now && is_regression(*was, *now, pinned_leg)) return Transition::Regression;
  // A cell that proved something and is gone is lost the way scorecard --check counts it.
  if (was && !now && info(*was).proves) return Transition::Regression;
  if (was && is_failure(*was) && now == CellState::Passed) return Transition::Fixed;
  return Transition::Changed;
}

ReportColumn column_of(const ReportCard& card) {
  ReportColumn column;
  column.source = card.source;
  column.leg = card.card.provenance_of("leg");
  column.framework_version = card.card.provenance_of("framework_version_seen");
  column.commit = card.card.provenance_of("git_commit").substr(0, 7);
  const auto date = card.card.run.find("date");
  if (date != card.card.run.end() && date->is_number()) column.date = utc_date_time(date->get<long long>());
  const std::string date_text = column.date.empty() ? "" : column.date.substr(0, column.date.size() - 4);  // without " UTC"
  for (const std::string& part : {column.leg, column.framework_version, date_text, column.commit}) {
    if (!part.empty()) column.label += (column.label.empty() ? "" : " · ") + part;
  }
  if (column.label.empty()) column.label = card.source;
  if (card.card.interrupted) column.label += " · interrupted by " + card.card.interrupted->signal;
  column.short_label =
      date_text.size() >= 16 ? date_text.substr(5, 11) + (column.commit.empty() ? "" : " · " + column.commit) : column.label;
  for (const ScorecardCell& cell : card.card.cells) {
    ++column.counts[to_string(cell.state)];
    ++column.total;
    if (cell.state == CellState::Passed) ++column.passed;
    if (is_failure(cell.state)) ++column.failing;
  }
  return column;
}

}  // namespace

std::string_view to_string(Transition transition) { return name_in(kTransitionNames, transition); }

std::string utc_date_time(long long seconds) {
  const std::time_t time = static_cast<std::time_t>(seconds);
  std::tm parts{};
  if (gmtime_r(&time, &parts) == nullptr) return "";
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", &parts);
  return text;
}

ReportModel build_report_model(const std::vector<ReportCard>& cards) {
  ReportModel model;
  for (const ReportCard& card : cards) model.columns.push_back(column_of(card));

  // Rows: the last card's order, then (newest card first) ids only earlier cards have.
  std::map<std::string, std::size_t> row_at;
  ReportEntry absent;
  absent.state = "absent";
  for (std::size_t c = cards.size(); c-- > 0;) {
    for (const ScorecardCell& cell : cards[c].card.cells) {
      if (row_at.contains(cell.id)) continue;
      row_at.emplace(cell.id, model.rows.size());
      ReportRow row{cell.id, cell.family, cell.roster, std::nullopt, std::vector<ReportEntry>(cards.size(), absent)};
      if (cell.ops) row.ops = static_cast<std::size_t>(*cell.ops);
      model.rows.push_back(std::move(row));
    }
  }
  for (std::size_t c = 0; c < cards.size(); ++c) {
    for (const ScorecardCell& cell : cards[c].card.cells) {
      ReportEntry& entry = model.rows[row_at.at(cell.id)].entries[c];
      entry.state = to_string(cell.state);
      entry.message = why_of(cell);
      entry.refusal_code = cell.refusal_code;
    }
  }
  for (ReportRow& row : model.rows) {
    for (std::size_t c = 1; c < row.entries.size(); ++c) {
      row.entries[c].transition =
          transition_of(row.entries[c - 1].state, row.entries[c].state, cards[c].card.provenance_of("leg") == "pinned");
      if (row.entries[c].transition != Transition::None) row.entries[c].before = row.entries[c - 1].state;
    }
  }

  if (cards.empty()) return model;
  for (const CapabilityRow& capability : cards.back().card.capabilities) {
    const Capability& c = capability.capability;
    ReportCapability row{
        c.name, c.declared_supported ? "supported" : "unsupported", to_string(capability.state), c.refusal, c.notes, {}};
    for (const ReportCard& card : cards) {
      std::string state = "absent";
      for (const CapabilityRow& other : card.card.capabilities) {
        if (other.capability.name == row.name) state = to_string(other.state);
      }
      row.states.push_back(state);
    }
    model.capabilities.push_back(std::move(row));
  }
  return model;
}

namespace {

// Sorting rank of a state in a column: failures first, then what ran to no verdict, then the rest.
int rank_of(const std::string& state) {
  const std::optional<CellState> parsed = cell_state_from_string(state);
  if (!parsed) return 1;  // absent
  if (is_failure(*parsed)) return 0;
  if (*parsed == CellState::Passed) return 3;
  return 2;
}

// At most `limit` bytes of `text` and an ellipsis, never cutting a UTF-8 character in two.
std::string shortened(const std::string& text, std::size_t limit) {
  if (text.size() <= limit) return text;
  std::size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end) + "…";
}

// A tooltip stays readable: the start of a long message (the <details> has all of it).
std::string tooltip(const std::string& text) { return shortened(text, 600); }

// A column label that wraps only between its parts, never inside a date.
std::string label_html(const std::string& label) {
  std::string html;
  std::size_t start = 0;
  const std::string separator = " · ";
  while (true) {
    const std::size_t end = label.find(separator, start);
    html += "<span class=\"part\">" + html_escape(label.substr(start, end - start)) + "</span>";
    if (end == std::string::npos) return html;
    html += " · ";
    start = end + separator.size();
  }
}

void render_counts(std::ostream& out, const ReportColumn& column) {
  out << "<div class=\"counts\" data-total=\"" << column.total << "\">";
  for (const CellStateInfo& state : cell_states()) {
    const auto found = column.counts.find(std::string(state.name));
    if (found == column.counts.end()) continue;
    out << "<span class=\"count state-" << state.name << "\" data-state=\"" << state.name << "\" data-count=\"" << found->second
        << "\" title=\"" << html_escape(state.meaning) << "\">" << found->second << " " << state.name << "</span> ";
  }
  out << "<span class=\"total\">" << column.total << " cells</span></div>";
}

void render_entry(std::ostream& out, const ReportEntry& entry, std::size_t column) {
  std::string title = entry.state;
  if (entry.transition != Transition::None) title += " (was " + entry.before + ")";
  if (!entry.refusal_code.empty()) title += "\nrefusal code: " + entry.refusal_code;
  if (!entry.message.empty()) title += "\n" + tooltip(entry.message);
  out << "<td class=\"cell state-" << html_escape(entry.state) << "\" data-column=\"" << column << "\" data-state=\""
      << html_escape(entry.state) << "\" data-rank=\"" << rank_of(entry.state) << "\"";
  if (entry.transition != Transition::None) out << " data-transition=\"" << to_string(entry.transition) << "\"";
  out << " title=\"" << html_escape(title) << "\"><span class=\"state\">" << html_escape(entry.state) << "</span>";
  if (entry.transition != Transition::None) {
    out << " <span class=\"mark mark-" << to_string(entry.transition) << "\" data-transition=\"" << to_string(entry.transition)
        << "\">" << html_escape(entry.before) << " -&gt; " << html_escape(entry.state) << "</span>";
  }
  // A passed refusal row's code is what it expected: the tooltip names it, with nothing to explain.
  if (!entry.message.empty() || (!entry.refusal_code.empty() && entry.state != "passed")) {
    // A regression's why is open from the start: it is what the reader came for.
    out << "<details" << (entry.transition == Transition::Regression ? " open" : "") << "><summary>why</summary>";
    if (!entry.refusal_code.empty()) out << "<p>refusal code: <code>" << html_escape(entry.refusal_code) << "</code></p>";
    if (!entry.message.empty()) out << "<pre>" << html_escape(entry.message) << "</pre>";
    out << "</details>";
  }
  out << "</td>";
}

void render_graph_cell(std::ostream& out, const ReportRow& row, const ReportPage& page) {
  out << "<td class=\"graph\">";
  const auto found = page.graphs.find(row.id);
  if (found != page.graphs.end()) {
    if (!found->second.href.empty()) {
      out << "<a href=\"" << html_escape(found->second.href) << "\" data-graph=\"" << html_escape(row.id) << "\">graph</a>";
    } else if (!found->second.note.empty()) {
      out << "<span class=\"note\" data-graph-missing=\"" << html_escape(row.id) << "\" title=\""
          << html_escape(found->second.note) << "\">" << html_escape(shortened(found->second.note, 48)) << "</span>";
    }
  }
  out << "</td>";
}

void render_cells_table(std::ostream& out, const ReportModel& model, const ReportPage& page) {
  out << "<table id=\"cells\">\n<thead><tr>"
      << "<th data-sort=\"id\" class=\"sortable\">cell</th><th data-sort=\"family\" class=\"sortable\">family</th>"
      << "<th data-sort=\"roster\" class=\"sortable\">roster</th><th data-sort=\"ops\" class=\"sortable num\">ops</th>"
      << "<th>graph</th>";
  for (std::size_t c = 0; c < model.columns.size(); ++c) {
    const ReportColumn& column = model.columns[c];
    out << "<th class=\"column sortable\" data-sort=\"column-" << c << "\" data-column=\"" << c << "\" title=\""
        << html_escape(column.source + "\n" + column.date) << "\"><div class=\"label\">" << label_html(column.label) << "</div>";
    render_counts(out, column);
    out << "</th>";
  }
  out << "</tr></thead>\n<tbody>\n";
  for (const ReportRow& row : model.rows) {
    std::set<std::string> transitions;
    for (const ReportEntry& entry : row.entries) {
      if (entry.transition != Transition::None) transitions.insert(std::string(to_string(entry.transition)));
    }
    std::string changes;
    for (const std::string& transition : transitions) changes += (changes.empty() ? "" : " ") + transition;
    const std::string last = row.entries.empty() ? "absent" : row.entries.back().state;
    out << "<tr data-id=\"" << html_escape(row.id) << "\" data-family=\"" << html_escape(row.family) << "\" data-roster=\""
        << html_escape(row.roster) << "\" data-ops=\"" << (row.ops ? std::to_string(*row.ops) : "") << "\" data-changes=\""
        << changes << "\" data-failing=\"" << (rank_of(last) == 0 ? "1" : "0") << "\">"
        << "<td class=\"id\"><code>" << html_escape(row.id) << "</code></td><td class=\"family\">" << html_escape(row.family)
        << "</td><td class=\"roster\">" << html_escape(row.roster) << "</td><td class=\"ops num\">"
        << (row.ops ? std::to_string(*row.ops) : "") << "</td>";
    render_graph_cell(out, row, page);
    for (std::size_t c = 0; c < row.entries.size(); ++c) render_entry(out, row.entries[c], c);
    out << "</tr>\n";
  }
  out << "</tbody></table>\n";
}

void render_capabilities(std::ostream& out, const ReportModel& model) {
  if (model.capabilities.empty()) return;
  out << "<section id=\"capabilities\"><h2>Capabilities <small>(from the last scorecard; states per column)</small></h2>\n"
      << "<table class=\"capabilities\"><thead><tr><th>capability</th><th>declared</th><th>state</th><th>refusal</th>"
      << "<th>notes</th>";
  for (const ReportColumn& column : model.columns)
    out << "<th class=\"short\" title=\"" << html_escape(column.label + "\n" + column.source) << "\">"
        << html_escape(column.short_label) << "</th>";
  out << "</tr></thead>\n<tbody>\n";
  for (const ReportCapability& capability : model.capabilities) {
    out << "<tr data-capability=\"" << html_escape(capability.name) << "\"><td>" << html_escape(capability.name) << "</td><td>"
        << html_escape(capability.declared) << "</td><td class=\"cap cap-" << html_escape(capability.state) << "\">"
        << html_escape(capability.state) << "</td><td><code>" << html_escape(capability.refusal)
        << "</code></td><td class=\"notes\">" << html_escape(capability.notes) << "</td>";
    for (const std::string& state : capability.states)
      out << "<td class=\"cap cap-" << html_escape(state) << "\">" << html_escape(state) << "</td>";
    out << "</tr>\n";
  }
  out << "</tbody></table></section>\n";
}

void render_legend(std::ostream& out) {
  out << "<p class=\"legend\">";
  for (const CellStateInfo& state : cell_states())
    out << "<span class=\"chip state-" << state.name << "\" title=\"" << html_escape(state.meaning) << "\">" << state.name
        << "</span> ";
  out << "<span class=\"chip state-absent\" title=\"the scorecard has no such cell\">absent</span> "
      << "<span class=\"mark mark-regression\">regression</span> <span class=\"mark mark-fixed\">fixed</span> "
      << "<span class=\"mark mark-changed\">changed</span></p>\n";
}

}  // namespace

std::string render_report_html(const ReportModel& model, const ReportPage& page) {
  std::ostringstream out;
  out << "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" << html_escape(page.title)
      << "</title>\n<link rel=\"stylesheet\" href=\"" << html_escape(page.stylesheet)
      << "\">\n</head>\n<body>\n<div class=\"top\">\n<header><h1>" << html_escape(page.title) << "</h1><p class=\"lede\">"
      << model.rows.size() << " cells, " << model.columns.size() << (model.columns.size() == 1 ? " scorecard" : " scorecards")
      << " (oldest first; marks compare each column with the one before)</p>";
  render_legend(out);
  out << "</header>\n";
  // Beside the header where the window is wide enough, so the table starts high on the page.
  if (!page.trend_svg.empty()) out << "<section id=\"trend\">\n" << page.trend_svg << "</section>\n";
  out << "</div>\n";
  out << "<section id=\"table\"><h2>Cells</h2>\n<form id=\"controls\" onsubmit=\"return false\">"
      << "<input id=\"filter\" type=\"search\" placeholder=\"filter: id, family, state, message\" aria-label=\"filter rows\"> "
      << "<select id=\"show\" aria-label=\"which rows\"><option value=\"all\">all rows</option>"
      << "<option value=\"changed\">changed against the previous column</option>"
      << "<option value=\"regression\">regressions</option><option value=\"fixed\">fixed</option>"
      << "<option value=\"failing\">failing in the last column</option></select> "
      << "<output id=\"shown\"></output></form>\n";
  render_cells_table(out, model, page);
  out << "</section>\n";
  render_capabilities(out, model);
  out << "<script src=\"" << html_escape(page.script) << "\"></script>\n</body>\n</html>\n";
  return out.str();
}

std::string_view report_css() { return kReportCss; }
std::string_view report_js() { return kReportJs; }

}  // namespace tl
