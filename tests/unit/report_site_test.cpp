// The report page (harness/report_site.h, harness/trend_chart.h) and `tlconform report`'s refusals of
// bad input. Cards are built here, cell by cell, so no test leans on the committed card's contents.
// `tlconform report` starts no Python, so neither does this test.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "cli_support.h"
#include "harness/report/report_site.h"
#include "harness/report/scorecard.h"
#include "harness/report/trend_chart.h"

namespace tl {
namespace {

namespace fs = std::filesystem;

struct CellSpec {
  std::string id;
  std::string state;
  std::string message;
};

// A card of the shape make_scorecard writes, checked as the report's reader checks it.
nlohmann::json card_of(const std::vector<CellSpec>& cells, long long date = 1796198557,
                       const std::string& commit = "287e0dc1234") {
  nlohmann::json card{{"schema_version", 1},
                      {"backend", "toy"},
                      {"spec", {{"pinned_version", "1.0"}}},
                      {"provenance", {{"leg", "pinned"}, {"framework_version_seen", "1.0.3"}, {"git_commit", commit}}},
                      {"run", {{"date", date}}},
                      {"capabilities", nlohmann::json::array()},
                      {"cells", nlohmann::json::array()}};
  nlohmann::json by_state = nlohmann::json::object();
  for (const CellSpec& cell : cells) {
    nlohmann::json entry{{"id", cell.id},
                         {"family", "fam"},
                         {"roster", "rosters/toy/rows.yaml:3"},
                         {"state", cell.state},
                         {"checks", {"output_matches"}},
                         {"ops", 4u}};
    if (!cell.message.empty()) {
      entry["message"] = cell.message;
      entry["failed_checks"] = {"output_matches"};
      entry["failures"] = {{{"check", "output_matches"}, {"detail", "max |a-b| 3 > 1e-5"}}};
    }
    card["cells"].push_back(entry);
    by_state[cell.state] = by_state.value(cell.state, 0) + 1;
  }
  card["summary"] = {{"total", cells.size()}, {"by_state", by_state}};
  Scorecard::from_json(card, "test card");  // a card the reader takes
  return card;
}

// A card as the report reads it: through the one reader.
ReportCard report_card(const std::string& source, const nlohmann::json& card) {
  return {source, Scorecard::from_json(card, source)};
}

std::string page_of(const std::vector<nlohmann::json>& cards) {
  std::vector<ReportCard> inputs;
  for (std::size_t i = 0; i < cards.size(); ++i) {
    const std::string source = "night" + std::to_string(i) + ".json";
    inputs.push_back({source, Scorecard::from_json(cards[i], source)});
  }
  return render_report_html(build_report_model(inputs), ReportPage{});
}

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++count;
  return count;
}

TEST(ReportSite, EscapesEverythingACardCanSay) {
  const std::string hostile = "<script>alert(\"x\")</script> & 'q'";
  nlohmann::json card = card_of({{"a<b", "failed", hostile}});
  card["capabilities"] = {{{"name", "cap<i>"}, {"state", "supported"}, {"notes", "n & <b>"}, {"declared", "supported"}}};
  std::vector<ReportCard> inputs{{"dir/<odd>&name.json", Scorecard::from_json(card, "dir/<odd>&name.json")}};
  const std::string page = render_report_html(build_report_model(inputs), ReportPage{});
  EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  EXPECT_EQ(page.find("<b>"), std::string::npos);
  EXPECT_EQ(page.find("<i>"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;"), std::string::npos);
  EXPECT_NE(page.find("data-id=\"a&lt;b\""), std::string::npos);
  EXPECT_NE(page.find("dir/&lt;odd&gt;&amp;name.json"), std::string::npos);
  EXPECT_NE(page.find("cap&lt;i&gt;"), std::string::npos);
  // The message and each failing check with its detail, in the tooltip and the expandable block.
  EXPECT_NE(page.find("<pre>" + html_escape(hostile) + "\noutput_matches: max |a-b| 3 &gt; 1e-5</pre>"), std::string::npos);
  EXPECT_EQ(html_escape("a\nb\tc\x01"), "a\nb\tc ");
}

TEST(ReportSite, MarksRegressionsAndFixesAgainstThePreviousColumn) {
  const std::string page = page_of({card_of({{"steady", "passed"}, {"breaks", "passed"}, {"heals", "failed", "was broken"}}),
                                    card_of({{"steady", "passed"}, {"breaks", "failed", "now broken"}, {"heals", "passed"}})});
  EXPECT_EQ(occurrences(page, "<span class=\"mark mark-regression\" data-transition=\"regression\">"), 1u);
  EXPECT_EQ(occurrences(page, "<span class=\"mark mark-fixed\" data-transition=\"fixed\">"), 1u);
  EXPECT_NE(page.find("data-transition=\"regression\">passed -&gt; failed</span>"), std::string::npos);
  EXPECT_NE(page.find("data-transition=\"fixed\">failed -&gt; passed</span>"), std::string::npos);
  const std::regex breaks_row("<tr data-id=\"breaks\"[^\n]*data-changes=\"regression\"");
  EXPECT_TRUE(std::regex_search(page, breaks_row));
  const std::regex steady_row("<tr data-id=\"steady\"[^\n]*data-changes=\"\"");
  EXPECT_TRUE(std::regex_search(page, steady_row));

  // Skipped proved nothing, so losing it is a change, not a regression (is_regression decides).
  const ReportModel model = build_report_model({report_card("a", card_of({{"x", "skipped"}, {"y", "expected_fail"}})),
                                                report_card("b", card_of({{"x", "failed", "m"}, {"y", "crashed", "m"}}))});
  EXPECT_EQ(model.rows[0].entries[1].transition, Transition::Changed);
  EXPECT_EQ(model.rows[1].entries[1].transition, Transition::Regression);
  EXPECT_EQ(model.rows[1].entries[1].before, "expected_fail");
}

TEST(ReportSite, ShowsCellsACardLacksAsAbsentInTheLastCardsOrder) {
  const ReportModel model = build_report_model({report_card("old", card_of({{"gone", "passed"}, {"kept", "passed"}})),
                                                report_card("new", card_of({{"fresh", "failed", "m"}, {"kept", "passed"}}))});
  ASSERT_EQ(model.rows.size(), 3u);
  EXPECT_EQ(model.rows[0].id, "fresh");
  EXPECT_EQ(model.rows[1].id, "kept");
  EXPECT_EQ(model.rows[2].id, "gone");
  EXPECT_EQ(model.rows[0].entries[0].state, "absent");
  EXPECT_EQ(model.rows[0].entries[0].transition, Transition::None);
  EXPECT_EQ(model.rows[0].entries[1].transition, Transition::Changed);  // new, failing: no regression from nothing
  EXPECT_EQ(model.rows[2].entries[1].state, "absent");
  EXPECT_EQ(model.rows[2].entries[1].transition, Transition::Regression);  // a passing cell lost, as scorecard --check says
  const std::string page = render_report_html(model, ReportPage{});
  EXPECT_EQ(occurrences(page, "<tr data-id="), 3u);
  EXPECT_EQ(occurrences(page, "data-state=\"absent\""), 2u);
}

// Issue 37.8: a card whose run a signal stopped says so in its column, so its missing cells read
// as not run, not as lost.
TEST(ReportSite, AnInterruptedCardSaysSoInItsColumn) {
  nlohmann::json card = card_of({{"a", "passed"}});
  card["interrupted"] = {{"signal", "SIGTERM"}, {"unfinished", {"b"}}};
  const ReportModel model = build_report_model({report_card("stopped.json", card)});
  EXPECT_NE(model.columns.at(0).label.find("interrupted by SIGTERM"), std::string::npos) << model.columns.at(0).label;
}

TEST(ReportSite, ExplainsOnlyCellsThatDidNotPass) {
  nlohmann::json card = card_of({{"refused_as_expected", "passed"}, {"refused_unexpectedly", "refused"}});
  card["cells"][0]["refusal_code"] = "fastlog_unsupported";
  card["cells"][1]["refusal_code"] = "numpy_unsupported";
  const std::string page = render_report_html(build_report_model({report_card("c", card)}), ReportPage{});
  EXPECT_EQ(occurrences(page, "<details"), 1u);
  EXPECT_NE(page.find("<p>refusal code: <code>numpy_unsupported</code></p>"), std::string::npos);
  EXPECT_NE(page.find("title=\"passed\nrefusal code: fastlog_unsupported\""), std::string::npos);
}

TEST(ReportSite, CountsStatesFromTheCellsNotTheSummary) {
  nlohmann::json card = card_of({{"a", "passed"}, {"b", "passed"}, {"c", "timed_out", "slow"}, {"d", "unsupported"}});
  card["summary"]["by_state"] = {{"passed", 99}};  // a summary that lies
  const ReportModel model = build_report_model({report_card("card.json", card)});
  EXPECT_EQ(model.columns[0].counts.at("passed"), 2u);
  EXPECT_EQ(model.columns[0].counts.at("timed_out"), 1u);
  EXPECT_EQ(model.columns[0].passed, 2u);
  EXPECT_EQ(model.columns[0].failing, 1u);
  const std::string page = render_report_html(model, ReportPage{});
  EXPECT_NE(page.find("data-state=\"passed\" data-count=\"2\""), std::string::npos);
  EXPECT_NE(page.find("data-state=\"timed_out\" data-count=\"1\""), std::string::npos);
  EXPECT_EQ(page.find("data-count=\"99\""), std::string::npos);
  EXPECT_EQ(model.columns[0].label, "pinned · 1.0.3 · 2026-12-02 08:02 · 287e0dc");
}

TEST(ReportSite, LinksGraphsAndSaysBrieflyWhyOneIsMissing) {
  ReportPage page;
  page.graphs["drawn"].href = "graphs/drawn.svg";
  // 47 bytes, then a two-byte character where the table's 48-byte cut falls: it is not split.
  const std::string start = "not drawn: trace exited 1: <Error> x__________x";
  ASSERT_EQ(start.size(), 47u);
  page.graphs["broken"].note = start + "é and the rest of the reason";
  const std::string html = render_report_html(
      build_report_model({report_card("c", card_of({{"drawn", "passed"}, {"broken", "passed"}, {"plain", "passed"}}))}), page);
  EXPECT_NE(html.find("<a href=\"graphs/drawn.svg\" data-graph=\"drawn\">graph</a>"), std::string::npos);
  EXPECT_EQ(occurrences(html, "data-graph="), 1u);
  EXPECT_NE(html.find("title=\"" + html_escape(page.graphs["broken"].note) + "\">" + html_escape(start) + "…</span>"),
            std::string::npos)
      << html;
  EXPECT_EQ(occurrences(html, "data-graph-missing="), 1u);
}

TEST(ReportSite, DrawsTheTrendOfThreeCardsAsPolylines) {
  const TrendChart chart{"passed and failing",
                         {"12-01", "12-02", "12-03"},
                         {{"passed", "#2e7d32", {60, 63, 40}}, {"failing", "#c62828", {5, 2, 25}}}};
  const std::string svg = render_trend_svg(chart);
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_EQ(occurrences(svg, "<polyline"), 2u);
  for (const std::string label : {"12-01", "12-02", "12-03"}) EXPECT_NE(svg.find(">" + label + "</text>"), std::string::npos);
  // Each polyline has three points, and a larger count is drawn higher (a smaller y).
  const std::regex points(
      "data-series=\"passed\">\n<polyline[^>]*points=\"([0-9.]+),([0-9.]+) ([0-9.]+),([0-9.]+) ([0-9.]+),([0-9.]+)\"");
  std::smatch match;
  ASSERT_TRUE(std::regex_search(svg, match, points)) << svg;
  EXPECT_LT(std::stod(match[1]), std::stod(match[3]));
  EXPECT_LT(std::stod(match[3]), std::stod(match[5]));
  EXPECT_LT(std::stod(match[4]), std::stod(match[2]));   // 63 above 60
  EXPECT_GT(std::stod(match[6]), std::stod(match[2]));   // 40 below 60
  EXPECT_NE(svg.find(">80</text>"), std::string::npos);  // the y axis reaches a round count above 63
  EXPECT_EQ(render_trend_svg({"<t>", {"a&b"}, {}}).find("<t>"), std::string::npos);
}

// --- tlconform report on bad input: a typed error naming the file and what to do, nothing written.

struct Fixture {
  std::string dir = test::scratch("report");
  std::string out = dir + "/site";
  std::string write(const std::string& name, const std::string& text) {
    fs::create_directories(dir);
    std::string path = dir + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
};

TEST(ReportCommand, RefusesACorruptCardNamingIt) {
  Fixture fixture;
  nlohmann::json card = card_of({{"a", "passed"}});
  const std::string good = fixture.write("good.json", card.dump());
  card["cells"][0]["state"] = "passed-ish";
  const std::string bad = fixture.write("bad.json", card.dump());
  const ChildOutcome outcome = test::tlconform({"report", "--out", fixture.out, good, bad});
  EXPECT_EQ(outcome.exit_code, 3) << outcome.stderr_text;
  EXPECT_NE(outcome.stderr_text.find(bad + ": cell a has state 'passed-ish'"), std::string::npos) << outcome.stderr_text;
  EXPECT_FALSE(fs::exists(fixture.out + "/index.html"));
  const ChildOutcome truncated = test::tlconform({"report", "--out", fixture.out, fixture.write("cut.json", "{\"cells\": [")});
  EXPECT_EQ(truncated.exit_code, 3) << truncated.stderr_text;
  EXPECT_NE(truncated.stderr_text.find("cut.json"), std::string::npos) << truncated.stderr_text;
}

TEST(ReportCommand, UsageErrorsSayWhatToDo) {
  Fixture fixture;
  const std::string good = fixture.write("good.json", card_of({{"a", "passed"}}).dump());
  const ChildOutcome none = test::tlconform({"report", "--out", fixture.out});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.stderr_text.find("report needs at least one SCORECARD file"), std::string::npos) << none.stderr_text;
  const ChildOutcome missing = test::tlconform({"report", "--out", fixture.out, fixture.dir + "/nope.json"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.stderr_text.find("no scorecard at " + fixture.dir + "/nope.json"), std::string::npos) << missing.stderr_text;
  const std::string file = fixture.write("a_file", "x");
  const ChildOutcome onto_file = test::tlconform({"report", "--out", file, good});
  EXPECT_EQ(onto_file.exit_code, 2);
  EXPECT_NE(onto_file.stderr_text.find("exists and is not a directory"), std::string::npos) << onto_file.stderr_text;
  EXPECT_EQ(test::file_text(file), "x");
  const ChildOutcome row_alone = test::tlconform({"report", "--out", fixture.out, "--row", "a", good});
  EXPECT_EQ(row_alone.exit_code, 2);
  EXPECT_NE(row_alone.stderr_text.find("give --graphs too"), std::string::npos) << row_alone.stderr_text;
  EXPECT_FALSE(fs::exists(fixture.out + "/index.html"));
}

TEST(ReportCommand, UpdatesAnExistingDirectoryAndKeepsOtherFiles) {
  Fixture fixture;
  const std::string first = fixture.write("1.json", card_of({{"a", "passed"}}, 1796198557).dump());
  const std::string second = fixture.write("2.json", card_of({{"a", "failed", "boom"}}, 1796284957).dump());
  fs::create_directories(fixture.out + "/graphs");
  std::ofstream(fixture.out + "/notes.txt") << "mine";
  std::ofstream(fixture.out + "/graphs/a.svg") << "<svg/>";
  const ChildOutcome outcome = test::tlconform({"report", "--out", fixture.out, first, second});
  ASSERT_EQ(outcome.exit_code, 0) << outcome.stderr_text;
  EXPECT_EQ(test::file_text(fixture.out + "/notes.txt"), "mine");
  const std::string page = test::file_text(fixture.out + "/index.html");
  EXPECT_NE(page.find("<a href=\"graphs/a.svg\" data-graph=\"a\">"), std::string::npos);
  EXPECT_NE(page.find("data-transition=\"regression\""), std::string::npos);
  EXPECT_NE(page.find("<svg xmlns="), std::string::npos);
  EXPECT_EQ(test::file_text(fixture.out + "/report.js"), std::string(report_js()));
  EXPECT_EQ(test::file_text(fixture.out + "/report.css"), std::string(report_css()));
  EXPECT_EQ(test::file_text(fixture.out + "/trend.svg").rfind("<svg xmlns=", 0), 0u);
}

}  // namespace
}  // namespace tl
