// tlconform: the conformance harness's command line.
#include <exception>
#include <iostream>
#include <map>
#include <string>

#include "cli/commands.h"
#include "harness/io/atomic_file.h"
#include "harness/io/json_file.h"
#include "harness/io/text_escape.h"
#include "harness/model/errors.h"
#include "harness/model/refusal.h"
#include "harness/model/tlspec.h"
#include "harness/report/scorecard.h"
#include "harness/runs/cell_records.h"
#include "harness/runs/cell_runs.h"
#include "harness/supervise/child_supervisor.h"

namespace {

constexpr const char* kUsage = R"(usage: tlconform COMMAND [--backend NAME] [options]
Every command works on one backend: --backend NAME (default tinygrad; `tlconform spec` for one).
Every command that prints results takes --format console|json|markdown (--json, --markdown for
short); run and scorecard also junit.
commands:
  list [--roster FILE ...] [--shard K/N] [--ctest [--record DIR]]
                                              rows and cells (no Python is started); --shard:
                                              only the rows `run --shard K/N` runs
  trace --row ID [--roster FILE ...] [--format F] [--save DIR [--no-payloads]] [--graph FILE [--validate]]
                                              capture one row and print its ops; save a .tlspec;
                                              draw it with Graphviz (FILE.svg, .png, .pdf, or .dot
                                              for the DOT text), with --validate coloured by its
                                              replay validation (exit 1 when that fails)
  validate --row ID [--roster FILE ...] [--format F]
                                              replay-validate one row; print every decision
  inspect DIR [--format F]                    print a saved .tlspec bundle (no Python started)
  cell --row ID [--roster FILE ...] [--format F] [--record DIR] [--isolate [--timeout S] [--memory SIZE]]
                                              run one row's cell in this process, or with --isolate
                                              in a supervised child (--record also writes DIR/ID.json
                                              for scorecard --from)
  run [--roster FILE ...] [--row ID ... | --shard K/N] [--record DIR] [--out FILE] [--leg NAME]
      [--timeout SECONDS] [--memory SIZE] [--jobs N] [--format console|json|markdown|junit] [--json]
                                              run cells, each in its own supervised process (time
                                              limit, default @TIMEOUT@ s; memory limit for its processes,
                                              e.g. 8G, default a share of the available memory);
                                              report each cell as it ends and a summary on stdout
                                              (--format; every failing check is listed); write a
                                              scorecard (default ./scorecard.json); --shard K/N:
                                              a stable 1/N of the rows, by id; --record DIR: each
                                              cell's result and the run's manifest, for
                                              scorecard --from
  scorecard [--write] [--check [--baseline FILE]] [--leg NAME] [--from DIR ...] [--out FILE]
            [--jobs N] [--timeout SECONDS] [--memory SIZE] [--format F]
                                              every cell as a scorecard; --write updates the committed
                                              one (pinned leg), --check reports drift against it (or
                                              FILE), fails on regressions; --from merges recorded
                                              cells (shards) instead of running them, and refuses a
                                              cell recorded nowhere or twice, or a corrupt record
                                              (exit 3); writes ./scorecard-LEG.json unless --out
  doctor [--format F] [--scorecard FILE]      environment and backend health rows
  spec [--backend NAME] [--format F | --field F]  the backend's requirement table (no Python started)
  capabilities [--scorecard FILE] [--format F]
                                              the can-and-cannot table, states computed from the
                                              cells of a pinned scorecard (default: the committed one)
  report --out DIR [--graphs [--row ID ...] [--roster FILE ...]] SCORECARD...
                                              a static HTML page DIR/index.html: a row per cell, a
                                              column per scorecard (oldest first), states coloured,
                                              regressions and fixes against the previous column
                                              marked, counts, a trend chart for several cards, the
                                              capability table; links DIR/graphs/ID.svg where it
                                              exists, and --graphs draws them (trace --validate per
                                              row of the last card, 2 at a time; --row limits them)
)";

struct Command {
  int (*run)(const tl::cli::Args&);
  std::set<std::string> valued;
  std::set<std::string> switches;
  std::string positional;           // the name a bare argument is stored under, if the command takes one
  bool positional_repeats = false;  // every bare argument is kept (report's SCORECARD...)
};

// What each command accepts: its options with a value, its switches, and a bare argument's name.
const std::map<std::string, Command>& commands() {
  using namespace tl::cli;
  static const std::map<std::string, Command> table{
      {"list", {list_command, {"roster", "record", "shard"}, {"ctest"}, ""}},
      {"trace",
       {trace_command, {"roster", "row", "save", "graph", "format"}, {"json", "markdown", "no-payloads", "validate"}, ""}},
      {"validate", {validate_command, {"roster", "row", "format"}, {"json", "markdown"}, ""}},
      {"inspect", {inspect_command, {"bundle", "format"}, {"json", "markdown"}, "bundle"}},
      {"cell",
       {cell_command,
        {"roster", "row", "record", "result-fd", "key-fd", "timeout", "memory", "format"},
        {"json", "markdown", "isolate"},
        ""}},
      {"run",
       {run_command,
        {"roster", "row", "out", "timeout", "jobs", "leg", "memory", "format", "shard", "record"},
        {"json", "markdown"},
        ""}},
      {"scorecard",
       {scorecard_command,
        {"backend", "roster", "out", "timeout", "jobs", "leg", "from", "memory", "baseline", "format"},
        {"write", "check", "json", "markdown"},
        ""}},
      {"doctor", {doctor_command, {"scorecard", "format"}, {"json", "markdown"}, ""}},
      {"spec", {spec_command, {"backend", "field", "format"}, {"json", "markdown"}, ""}},
      {"capabilities", {capabilities_command, {"scorecard", "format"}, {"json", "markdown"}, ""}},
      {"report", {report_command, {"out", "row", "roster"}, {"graphs"}, "scorecard", true}},
  };
  return table;
}

// The command argv names, run with its arguments parsed.
int run_command_line(int argc, char** argv) {
  using namespace tl::cli;
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "help") {
    std::string usage = kUsage;  // the one default time limit, as the supervisor holds it
    usage.replace(usage.find("@TIMEOUT@"), 9, std::to_string(tl::kDefaultCellTimeout.count()));
    std::cout << usage;
    return argc < 2 ? kExitUsage : kExitPassed;
  }
  const auto found = commands().find(argv[1]);
  if (found == commands().end()) throw UsageError(std::string("unknown command '") + argv[1] + "'");
  std::set<std::string> valued = found->second.valued;
  valued.insert("backend");  // every command works on one backend (backend_of)
  const Args args =
      parse_args(argc, argv, valued, found->second.switches, found->second.positional, found->second.positional_repeats);
  return found->second.run(args);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tl::cli;
  // Every error line below may quote a user's file, a bundle or a forward: shown escaped for the
  // terminal (text_escape.h), never acted on.
  try {
    return run_command_line(argc, argv);
  } catch (const UsageError& error) {
    std::cerr << "tlconform: " << tl::terminal_text(error.what()) << "\n(tlconform help lists the commands and their options)\n";
    return kExitUsage;
  } catch (const tl::TlspecError& error) {
    std::cerr << "tlconform: bad .tlspec bundle: " << tl::terminal_text(error.what()) << "\n";
    return kExitUsage;
  } catch (const tl::RunInterrupted& stop) {
    std::cerr << "tlconform: " << stop.what() << ": its processes were killed and nothing more was written\n";
    return kExitInterruptedBase + stop.signal();
  } catch (const tl::RunRequestError& error) {
    std::cerr << "tlconform: " << tl::terminal_text(error.what()) << "\n(tlconform help lists the commands and their options)\n";
    return kExitUsage;
  } catch (const tl::FileWriteError& error) {
    std::cerr << "tlconform: " << tl::terminal_line(error.what()) << "\n";
    return kExitWriteFailed;
  } catch (const tl::RecordDirectoryError& error) {
    std::cerr << "tlconform: " << tl::terminal_text(error.what()) << "\n";
    return kExitUsage;
  } catch (const tl::CorruptRecord& error) {
    std::cerr << "tlconform: corrupt record: " << tl::terminal_text(error.what()) << "\n";
    return kExitBadInput;
  } catch (const tl::MergeRefused& error) {
    std::cerr << "tlconform: merge refused: " << tl::terminal_text(error.what()) << "\n";
    return kExitBadInput;
  } catch (const tl::ScorecardError& error) {
    std::cerr << "tlconform: bad scorecard: " << tl::terminal_text(error.what()) << "\n";
    return kExitBadInput;
  } catch (const tl::InputFileError& error) {
    std::cerr << "tlconform: unreadable input: " << tl::terminal_text(error.what()) << "\n";
    return kExitBadInput;
  } catch (const tl::BackendUnsupportedError& error) {
    std::cerr << "tlconform: refused (" << error.code_name() << "): " << tl::terminal_text(error.what()) << "\n";
    return kExitFailed;
  } catch (const tl::RosterError& error) {
    std::cerr << "tlconform: roster error: " << tl::terminal_text(error.what()) << "\n";
    return kExitUsage;
  } catch (const tl::PythonError& error) {
    std::cerr << "tlconform: " << tl::terminal_text(error.what()) << "\n" << tl::terminal_text(error.traceback());
    return kExitFailed;
  } catch (const std::exception& error) {
    std::cerr << "tlconform: " << tl::terminal_text(error.what()) << "\n";
    return kExitFailed;
  }
}
