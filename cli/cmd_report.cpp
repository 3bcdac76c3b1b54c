// tlconform report: scorecards (the legs of one run, or nights in a row, oldest first) as a static
// site in --out: index.html with its stylesheet and script, trend.svg when there are several cards,
// and with --graphs the traced graph of each capturing row of the last card (graphs/ID.svg), each
// drawn by a supervised `tlconform trace` child. No Python is started in this process.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <regex>
#include <set>

#include "cli/commands.h"
#include "harness/io/atomic_file.h"
#include "harness/io/text_escape.h"
#include "harness/report/report_site.h"
#include "harness/report/scorecard.h"
#include "harness/report/trend_chart.h"
#include "harness/runs/cell_runs.h"
#include "harness/supervise/child_supervisor.h"

namespace tl::cli {
namespace {

namespace fs = std::filesystem;

constexpr std::chrono::seconds kGraphTimeLimit = kDefaultCellTimeout;
constexpr int kGraphJobs = 2;

// --out is a directory the report owns files in: made when missing, updated in place when there
// (only the files the report writes are replaced), and never a file.
std::string out_directory(const Args& args) {
  std::string out = args.required("out");
  std::error_code error;
  const fs::file_status status = fs::status(out, error);
  if (fs::exists(status) && !fs::is_directory(status))
    throw UsageError("--out " + out +
                     " exists and is not a directory; give a directory for the site (made, or updated in place)");
  fs::create_directories(out, error);
  if (error) throw UsageError("cannot make --out " + out + ": " + error.message() + "; give a directory you can write");
  if (::access(out.c_str(), W_OK | X_OK) != 0)
    throw UsageError("cannot write in --out " + out + ": " + std::strerror(errno) + "; give a directory you can write");
  return out;
}

// Every card is read and checked before anything is written or drawn. A card that is not there is a
// wrong argument (exit 2); one that is there but corrupt stays a ScorecardError (exit 3).
std::vector<ReportCard> read_cards(const Args& args) {
  const std::vector<std::string> paths = args.all("scorecard");
  if (paths.empty()) {
    throw UsageError(
        "report needs at least one SCORECARD file, oldest first (the committed scorecards/<backend>/scorecard.json, or a card "
        "`tlconform run --out FILE` or `scorecard --out FILE` wrote)");
  }
  std::vector<ReportCard> cards;
  for (const std::string& path : paths) {
    try {
      cards.push_back({path, read_scorecard(path)});
    } catch (const ScorecardError& error) {
      if (!error.missing()) throw;
      throw UsageError("no scorecard at " + path + "; give the path of a card tlconform run or scorecard wrote");
    }
  }
  return cards;
}

// Row ids become file names; a card from elsewhere could hold any text, so only plain names do.
bool is_file_name(const std::string& id) {
  static const std::regex plain("[A-Za-z0-9_][A-Za-z0-9_.-]*");
  return std::regex_match(id, plain);
}

std::string graph_file(const std::string& dir, const std::string& id) {
  return (fs::path(dir) / "graphs" / (id + ".svg")).string();
}

// Why a trace child left no picture, in a few words, with the last line it printed.
std::string not_drawn_because(const ChildOutcome& outcome) {
  std::string why = outcome.timed_out         ? "timed out after " + std::to_string(kGraphTimeLimit.count()) + " s"
                    : outcome.memory_exceeded ? "memory limit"
                    : outcome.signal          ? "killed by signal " + std::to_string(outcome.signal)
                                              : "trace exited " + std::to_string(outcome.exit_code);
  std::string text = outcome.stderr_text;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  const std::size_t line = text.rfind('\n');
  const std::string last = line == std::string::npos ? text : text.substr(line + 1);
  return "not drawn: " + why + (last.empty() ? "" : ": " + last.substr(0, 300));
}

// --graphs: one `tlconform trace --graph DIR/graphs/ID.svg --validate` child per drawable row of the
// last card (it has ops and is in the loaded rosters), 2 at a time. A failed validation still draws
// the picture (coloured by it), so it is linked; a row whose picture is missing says why.
std::map<std::string, std::string> draw_graphs(const Args& args, const ReportCard& last, const std::string& dir) {
  const BackendSpec& backend = backend_of(args);
  const std::string& card_backend = last.card.backend;
  if (card_backend != backend.name)
    throw UsageError("the last scorecard (" + last.source + ") is for backend " + card_backend + "; give --backend " +
                     card_backend + " to draw its graphs");
  std::map<std::string, std::string> roster_of;  // row id -> roster file
  for (const Roster& roster : load_rosters(args)) {
    for (const RosterRow& row : roster.rows) roster_of[row.id] = roster_path(roster);
  }
  std::map<std::string, bool> drawable;  // id -> has ops
  for (const ScorecardCell& cell : last.card.cells) drawable[cell.id] = cell.ops.has_value();
  const std::vector<std::string> wanted = args.all("row");
  for (const std::string& id : wanted) {
    if (!drawable.contains(id)) throw UsageError("--row " + id + ": the last scorecard has no such cell");
    if (!drawable.at(id)) throw UsageError("--row " + id + ": its cell recorded no ops, so there is no graph to draw");
  }
  const std::set<std::string> only(wanted.begin(), wanted.end());

  std::map<std::string, std::string> notes;
  std::vector<std::string> ids;
  std::vector<ChildCommand> commands;
  const std::string self = fs::canonical("/proc/self/exe").string();
  fs::create_directories(fs::path(dir) / "graphs");
  for (const ScorecardCell& cell : last.card.cells) {
    const std::string& id = cell.id;
    if (!cell.ops || (!only.empty() && !only.contains(id))) continue;
    if (!is_file_name(id)) {
      notes[id] = "not drawn: the id is not a plain file name";
    } else if (!roster_of.contains(id)) {
      notes[id] = "not drawn: the row is in none of the rosters loaded (give --roster)";
    } else {
      // A picture from an earlier report must not pass for this one if the trace now fails.
      std::error_code ignored;
      fs::remove(graph_file(dir, id), ignored);
      ids.push_back(id);
      ChildCommand command;
      command.argv = {self,    "trace", "--backend", backend.name,        "--roster",  roster_of.at(id),
                      "--row", id,      "--graph",   graph_file(dir, id), "--validate"};
      command.time_limit = kGraphTimeLimit;
      command.memory_limit = default_cell_memory(kGraphJobs);
      command.output_budget = 64 << 10;  // the op table it prints is not needed, only its last words
      commands.push_back(std::move(command));
    }
  }
  const std::vector<ChildOutcome> outcomes =
      run_supervised(commands, ids, kGraphJobs, "drawing", [&](std::size_t index, const ChildOutcome& outcome, std::size_t done) {
        const std::string& id = ids[index];
        const bool drawn = fs::exists(graph_file(dir, id));
        if (!drawn) notes[id] = not_drawn_because(outcome);
        std::cerr << "[" << done << "/" << ids.size() << "] " << terminal_line(id) << ": "
                  << (!drawn                   ? terminal_line(notes[id])
                      : outcome.exit_code == 0 ? "drawn, validation passed"
                                               : "drawn; validation did not pass (trace exited 1; the picture is coloured by it)")
                  << " (" << static_cast<int>(outcome.seconds) << " s)" << std::endl;
      });
  if (const int signal = interrupting_signal(outcomes)) throw RunInterrupted(signal, {}, {});  // no page from a stopped run
  return notes;
}

// The trend of passed and failing cells, one point per card; x labels thinned to about six, evenly
// spaced back from the newest card, which is always labelled.
std::string trend_of(const ReportModel& model) {
  TrendChart chart{.title = "passed and failing cells per scorecard", .x_labels = {}, .series = {}};
  TrendSeries passed{"passed", "#2e7d32", {}}, failing{"failing", "#c62828", {}};
  const std::size_t stride = (model.columns.size() + 5) / 6;
  for (std::size_t c = 0; c < model.columns.size(); ++c) {
    const ReportColumn& column = model.columns[c];
    const std::string when = column.date.size() >= 16 ? column.date.substr(5, 11) : "#" + std::to_string(c + 1);
    chart.x_labels.push_back((model.columns.size() - 1 - c) % stride == 0 ? when : "");
    passed.values.push_back(column.passed);
    failing.values.push_back(column.failing);
  }
  chart.series = {passed, failing};
  return render_trend_svg(chart);
}

}  // namespace

int report_command(const Args& args) {
  if (!args.has("graphs")) {
    if (args.values.contains("row")) throw UsageError("--row picks the rows --graphs draws; give --graphs too");
    if (args.values.contains("roster")) throw UsageError("--roster names the rows --graphs draws; give --graphs too");
  }
  const std::vector<ReportCard> cards = read_cards(args);
  const std::string dir = out_directory(args);
  const ReportModel model = build_report_model(cards);

  const std::map<std::string, std::string> notes =
      args.has("graphs") ? draw_graphs(args, cards.back(), dir) : std::map<std::string, std::string>{};
  ReportPage page;
  page.title = "tlconform report: " + cards.back().card.backend;
  std::size_t links = 0;
  for (const ReportRow& row : model.rows) {
    if (is_file_name(row.id) && fs::exists(graph_file(dir, row.id))) {
      page.graphs[row.id].href = "graphs/" + row.id + ".svg";
      ++links;
    } else if (notes.contains(row.id)) {
      page.graphs[row.id].note = notes.at(row.id);
    }
  }
  if (cards.size() > 1) {
    page.trend_svg = trend_of(model);
    write_file_atomically((fs::path(dir) / "trend.svg").string(), page.trend_svg);
  }
  write_file_atomically((fs::path(dir) / page.stylesheet).string(), std::string(report_css()));
  write_file_atomically((fs::path(dir) / page.script).string(), std::string(report_js()));
  const std::string index = (fs::path(dir) / "index.html").string();
  write_file_atomically(index, render_report_html(model, page));
  std::cerr << "wrote " << terminal_line(index) << " (" << model.rows.size() << " cells, " << cards.size()
            << (cards.size() == 1 ? " scorecard" : " scorecards") << ", " << links << " graph link(s))" << std::endl;
  return kExitPassed;
}

}  // namespace tl::cli
