#include "harness/report/trace_graph.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "harness/report/dot_text.h"
#include "harness/report/graph_style.h"
#include "harness/report/graphviz.h"
#include "harness/report/op_verdicts.h"

namespace tl {
namespace {

// The validation message is long for some failures; the first failure's tooltip has its reason whole.
constexpr std::size_t kTitleMessageChars = 160;
// A run's label names its most frequent framework ops, up to this many.
constexpr std::size_t kRunOpsShown = 4;
// The longest repeating step a run's label spells out (a relu-and-affine step is 5 ops).
constexpr std::size_t kRunPeriodShown = 8;
// Runs this short are spelled out op by op ("CONST→RESHAPE→EXPAND").
constexpr std::size_t kRunSpelledOut = 5;
// A run's tooltip lists its ops, up to this many.
constexpr std::size_t kRunTooltipOps = 40;

std::string small(const std::string& html, const char* colour = "#333333") {
  return "<BR/><FONT POINT-SIZE=\"9\" COLOR=\"" + std::string(colour) + "\">" + html + "</FONT>";
}

std::string op_tooltip(const Op& op, const OpVerdict* verdict) {
  std::ostringstream text;
  text << op.label << " (op " << op.index << ")\n" << op.framework_op << ", " << to_string(op.kind);
  if (op.constant_kind) text << " (" << *op.constant_kind << ")";
  text << "\n" << op.dtype.name << " " << shape_string(op.shape);
  if (!op.parents.empty()) {
    text << "\nparents:";
    for (const ParentRef& parent : op.parents) text << " " << parent.op << "@" << parent.position;
  }
  if (!op.module.empty()) text << "\nmodule: " << op.module;
  if (!op.call_site.empty()) text << "\nat " << op.call_site;
  if (verdict != nullptr) {
    for (const std::string& note : verdict->notes) text << "\n" << note;
  }
  return text.str();
}

std::string op_node(const std::string& name, const Op& op, const OpVerdict* verdict, std::optional<std::size_t> output) {
  std::string label = "<B>" + dot_html(op.label) + "</B>";
  std::string what = op.framework_op;
  if (op.constant_kind) what += " · " + *op.constant_kind;
  label += small(dot_html(what)) + small(dot_html(op.dtype.name + " " + shape_string(op.shape)), "#555555");
  if (output) label += small("<B>output " + std::to_string(*output) + "</B>", "#000000");
  if (verdict != nullptr && verdict->verdict == DecisionVerdict::Fail) {
    label += verdict->first_failure ? small("<B>FIRST FAILURE (" + dot_html(verdict->first_failure_phase) + ")</B>", kFailureText)
                                    : small("failed", kFailureText);
  }
  NodeStyle style = node_style(op.kind, op.constant_kind, verdict);
  style.output = output.has_value();
  return "  " + name + " [label=<" + label + ">, tooltip=" + dot_quoted(op_tooltip(op, verdict)) + ", " +
         style_attributes(style) + "];\n";
}

// "ADD×118 MUL×59 CMPLT×59 ...": the run's framework ops, most frequent first.
std::string op_histogram(const Trace& trace, const OpRun& run) {
  std::map<std::string, std::size_t> counts;
  for (std::size_t i = run.first; i <= run.last; ++i) ++counts[trace.ops[i].framework_op];
  std::vector<std::pair<std::string, std::size_t>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text;
  for (std::size_t k = 0; k < sorted.size() && k < kRunOpsShown; ++k)
    text += (k ? " " : "") + sorted[k].first + "×" + std::to_string(sorted[k].second);
  return sorted.size() > kRunOpsShown ? text + " …" : text;
}

// "59 × ADD→CMPLT→WHERE→ADD→MUL" when the run repeats one short step (a deep chain does), else the
// histogram: either way the reader sees what the run is made of.
std::string run_ops_summary(const Trace& trace, const OpRun& run) {
  const auto op_at = [&](std::size_t k) -> const std::string& { return trace.ops[run.first + k].framework_op; };
  if (run.size() <= kRunSpelledOut) {
    std::string sequence;
    for (std::size_t k = 0; k < run.size(); ++k) sequence += (k ? "→" : "") + op_at(k);
    return sequence;
  }
  for (std::size_t period = 1; period <= kRunPeriodShown && period * 3 <= run.size(); ++period) {
    std::size_t k = 0;
    while (k + period < run.size() && op_at(k) == op_at(k + period)) ++k;
    if (k + period < run.size()) continue;
    std::string step;
    for (std::size_t j = 0; j < period; ++j) step += (j ? "→" : "") + op_at(j);
    const std::size_t rest = run.size() % period;
    return std::to_string(run.size() / period) + " × " + step + (rest ? " (+" + std::to_string(rest) + ")" : "");
  }
  return op_histogram(trace, run);
}

// "float32/bool (1, 3)": the distinct dtypes and shapes of the run's ops.
std::string run_types(const Trace& trace, const OpRun& run) {
  std::vector<std::string> dtypes;
  std::vector<std::string> shapes;
  for (std::size_t i = run.first; i <= run.last; ++i) {
    const Op& op = trace.ops[i];
    if (std::find(dtypes.begin(), dtypes.end(), op.dtype.name) == dtypes.end()) dtypes.push_back(op.dtype.name);
    const std::string shape = shape_string(op.shape);
    if (std::find(shapes.begin(), shapes.end(), shape) == shapes.end()) shapes.push_back(shape);
  }
  const auto joined = [](const std::vector<std::string>& parts) {
    if (parts.size() > kRunOpsShown) return std::to_string(parts.size()) + " kinds";
    std::string text;
    for (const std::string& part : parts) text += (text.empty() ? "" : "/") + part;
    return text;
  };
  return joined(dtypes) + " " + (shapes.size() == 1 ? shapes[0] : std::to_string(shapes.size()) + " shapes");
}

// The run's verdict (its worst op's) and how many of its ops got each verdict.
OpVerdict run_verdict(const std::vector<OpVerdict>& verdicts, const OpRun& run, std::string& counts) {
  OpVerdict worst;
  std::map<std::string, std::size_t> tally;
  for (std::size_t i = run.first; i <= run.last; ++i) {
    const OpVerdict& verdict = verdicts[i];
    if (!verdict.decided) continue;
    ++tally[verdict.verdict == DecisionVerdict::Pass ? "replayed" : to_string(verdict.verdict)];
    if (!worst.decided || verdict_severity(verdict.verdict) > verdict_severity(worst.verdict)) worst.verdict = verdict.verdict;
    worst.decided = true;
    worst.notes.insert(worst.notes.end(), verdict.notes.begin(), verdict.notes.end());
  }
  for (const auto& [name, count] : tally) counts += (counts.empty() ? "" : " · ") + name + " " + std::to_string(count);
  return worst;
}

std::string run_node(const Trace& trace, const OpRun& run, const std::vector<OpVerdict>* verdicts) {
  const Op& first = trace.ops[run.first];
  const Op& last = trace.ops[run.last];
  std::size_t inner_edges = 0;
  for (std::size_t i = run.first; i <= run.last; ++i) {
    for (const ParentRef& parent : trace.ops[i].parents) inner_edges += parent.op >= run.first ? 1 : 0;
  }
  std::string label = "<B>" + std::to_string(run.size()) + " ops</B>" + small(dot_html(first.label + " … " + last.label)) +
                      small(dot_html(run_ops_summary(trace, run))) + small(dot_html(run_types(trace, run)), "#555555");
  std::string counts;
  const OpVerdict verdict = verdicts != nullptr ? run_verdict(*verdicts, run, counts) : OpVerdict{};
  if (!counts.empty()) label += small(dot_html(counts));
  std::string tooltip = std::to_string(run.size()) + " ops drawn as one: ops " + std::to_string(run.first) + " to " +
                        std::to_string(run.last) + ", only the last read outside";
  for (std::size_t i = run.first; i <= run.last && i < run.first + kRunTooltipOps; ++i)
    tooltip += "\n" + std::to_string(i) + " " + trace.ops[i].label + " " + trace.ops[i].framework_op;
  if (run.size() > kRunTooltipOps) tooltip += "\n…";
  for (const std::string& note : verdict.notes) tooltip += "\n" + note;
  // Filled as what it computes: its first op that is not a view (a view only re-indexes).
  const Op* leader = &first;
  for (std::size_t i = run.first; i <= run.last && leader->kind == OpKind::View; ++i) leader = &trace.ops[i];
  NodeStyle style = node_style(leader->kind, leader->constant_kind, verdicts != nullptr ? &verdict : nullptr);
  style.dashes.clear();  // the worst verdict's colour, solid: the tally line says how many ops got which
  return "  run" + std::to_string(run.first) + "_" + std::to_string(run.last) + " [shape=box3d, label=<" + label +
         ">, tooltip=" + dot_quoted(tooltip) + ", " + style_attributes(style) + ", tl_ops=" + std::to_string(run.size()) +
         ", tl_edges=" + std::to_string(inner_edges) + "];\n";
}

// One edge per parent reference between plain ops; references into or out of a run merged per pair
// of nodes (tl_refs); references inside a run drawn by nothing (the run's tl_edges counts them).
std::string edges(const Trace& trace, const std::vector<std::string>& node_of, const std::vector<bool>& in_run) {
  std::ostringstream out;
  std::vector<std::pair<std::string, std::string>> merged_order;
  std::map<std::pair<std::string, std::string>, std::size_t> merged;
  std::set<std::size_t> missing;
  for (std::size_t child = 0; child < trace.ops.size(); ++child) {
    const Op& op = trace.ops[child];
    for (const ParentRef& parent : op.parents) {
      if (parent.op >= trace.ops.size()) {  // a malformed trace: drawn, never dropped
        missing.insert(parent.op);
        out << "  missing" << parent.op << " -> " << node_of[child] << " [color=\"" << kFailureText << "\"];\n";
        continue;
      }
      const std::pair<std::string, std::string> ends{node_of[parent.op], node_of[child]};
      if (in_run[child] && ends.first == ends.second) continue;
      if (!in_run[parent.op] && !in_run[child]) {
        out << "  " << ends.first << " -> " << ends.second;
        if (op.parents.size() > 1) out << " [headlabel=\"" << parent.position << "\"]";
        out << ";\n";
        continue;
      }
      if (merged[ends]++ == 0) merged_order.push_back(ends);
    }
  }
  for (const auto& ends : merged_order) {
    const std::size_t refs = merged[ends];
    out << "  " << ends.first << " -> " << ends.second << " [tl_refs=" << refs;
    if (refs > 1) out << ", label=\"×" << refs << "\", penwidth=2";
    out << "];\n";
  }
  for (const std::size_t index : missing)
    out << "  missing" << index << " [label=\"missing op " << index << "\", color=\"" << kFailureText << "\"];\n";
  return out.str();
}

// The title, the counts, the validation state and the legend, as the graph's label.
std::string graph_label(const Trace& trace, const GraphOptions& options, const std::vector<OpRun>& runs) {
  std::size_t collapsed = 0;
  for (const OpRun& run : runs) collapsed += run.size();
  std::string heading = options.title.empty() ? "trace" : options.title;
  std::string counts = std::to_string(trace.size()) + " ops, " + trace.backend + " " + trace.framework_version;
  if (!runs.empty()) {
    counts +=
        "; " + std::to_string(collapsed) + " of them drawn as " + std::to_string(runs.size()) + " collapsed run(s) (box stacks)";
  }
  std::string rows = "<TR><TD COLSPAN=\"6\" ALIGN=\"LEFT\"><B>" + dot_html(heading) + "</B>  " + dot_html(counts) + "</TD></TR>";
  if (options.validation != nullptr) {
    const ValidationStatus& status = *options.validation;
    std::string message =
        status.message.size() > kTitleMessageChars ? status.message.substr(0, kTitleMessageChars) + "…" : status.message;
    const bool failed = status.state == ValidationState::Failed;
    rows += "<TR><TD COLSPAN=\"6\" ALIGN=\"LEFT\"><FONT COLOR=\"" + std::string(failed ? kFailureText : "#000000") +
            "\">validation: <B>" + to_string(status.state) + "</B> (" + std::to_string(status.replayed) + " ops replayed)" +
            (message.empty() ? "" : ": " + dot_html(message)) + "</FONT></TD></TR>";
  }
  return "<<TABLE BORDER=\"0\" CELLSPACING=\"3\" CELLPADDING=\"3\">" + rows + legend_rows(options.validation != nullptr) +
         "</TABLE>>";
}

std::string header(const Trace& trace, const GraphOptions& options, const std::vector<OpRun>& runs) {
  return "digraph trace {\n  graph [rankdir=TB, labelloc=t, labeljust=l, fontname=\"Helvetica\", nodesep=0.3, ranksep=0.45, "
         "label=" +
         graph_label(trace, options, runs) + "];\n" +
         "  node [shape=box, fontname=\"Helvetica\", fontsize=11, margin=\"0.12,0.05\"];\n"
         "  edge [color=\"#707070\", arrowsize=0.6, fontname=\"Helvetica\", fontsize=9, fontcolor=\"#1f4e9c\", "
         "labelfontcolor=\"#1f4e9c\", labeldistance=1.4];\n";
}

// Ops that stay visible whatever the size: inputs, outputs and failed ops.
std::vector<bool> kept_ops(const Trace& trace, const std::vector<OpVerdict>* verdicts) {
  std::vector<bool> keep(trace.ops.size(), false);
  for (std::size_t i = 0; i < keep.size(); ++i) {
    keep[i] = trace.ops[i].kind == OpKind::Input || (verdicts != nullptr && (*verdicts)[i].verdict == DecisionVerdict::Fail);
  }
  for (const std::size_t output : trace.outputs) {
    if (output < keep.size()) keep[output] = true;
  }
  return keep;
}

}  // namespace

std::string trace_to_dot(const Trace& trace, const GraphOptions& options) {
  const std::size_t n = trace.ops.size();
  std::optional<std::vector<OpVerdict>> verdicts;
  if (options.validation != nullptr) verdicts = op_verdicts(trace, *options.validation);
  const std::vector<OpVerdict>* verdicts_or_null = verdicts ? &*verdicts : nullptr;
  const std::vector<OpRun> runs =
      n > options.collapse_above ? collapsible_runs(trace, kept_ops(trace, verdicts_or_null)) : std::vector<OpRun>{};
  std::vector<std::string> node_of(n);
  std::vector<bool> in_run(n, false);
  for (std::size_t i = 0; i < n; ++i) node_of[i] = "op" + std::to_string(i);
  for (const OpRun& run : runs) {
    for (std::size_t i = run.first; i <= run.last; ++i) {
      node_of[i] = "run" + std::to_string(run.first) + "_" + std::to_string(run.last);
      in_run[i] = true;
    }
  }
  std::map<std::size_t, std::size_t> output_number;
  for (std::size_t k = 0; k < trace.outputs.size(); ++k) output_number.emplace(trace.outputs[k], k);
  std::string dot = header(trace, options, runs);
  auto next_run = runs.begin();
  for (std::size_t i = 0; i < n; ++i) {
    if (next_run != runs.end() && next_run->first == i) {
      dot += run_node(trace, *next_run, verdicts_or_null);
      i = (next_run++)->last;
      continue;
    }
    const auto output = output_number.find(i);
    dot += op_node(node_of[i], trace.ops[i], verdicts ? &(*verdicts)[i] : nullptr,
                   output == output_number.end() ? std::nullopt : std::optional<std::size_t>(output->second));
  }
  return dot + edges(trace, node_of, in_run) + "}\n";
}

void draw_trace(const Trace& trace, const std::string& path, const GraphOptions& options) {
  write_graph(trace_to_dot(trace, options), path);
}

}  // namespace tl
