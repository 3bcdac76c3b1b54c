// Pictures of traces: the DOT text has one node per op and one edge per parent reference, is filled
// by kind, outlines ops by their validation (the first failure marked), collapses a 300-op chain
// into something legible without losing count, and `tlconform trace --graph` writes an SVG with
// the row's ops and edges, checked like every other output path.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "backends/tinygrad/protocol.h"
#include "cli_support.h"
#include "harness/judge/replay_validation.h"
#include "harness/report/graph_style.h"
#include "harness/report/graphviz.h"
#include "harness/report/trace_graph.h"
#include "python_scope.h"
#include "tutorial.h"

namespace tl {
namespace {

namespace fs = std::filesystem;
namespace py = pybind11;
using test::file_text;
using test::Invocation;
using test::scratch;
using test::tlconform;

// The statements of a DOT text as trace_to_dot writes them: one node or edge per line.
struct Dot {
  std::map<std::string, std::string> nodes;                                        // name -> its attribute list
  std::vector<std::pair<std::pair<std::string, std::string>, std::string>> edges;  // (from, to) -> attributes

  std::size_t count(const std::string& attributes, const std::string& name, std::size_t absent) const {
    std::smatch match;
    return std::regex_search(attributes, match, std::regex(name + "=(\\d+)")) ? std::stoul(match[1]) : absent;
  }
  std::size_t ops() const {
    std::size_t total = 0;
    for (const auto& [name, attributes] : nodes) total += count(attributes, "tl_ops", 1);
    return total;
  }
  std::size_t parent_refs() const {
    std::size_t total = 0;
    for (const auto& [ends, attributes] : edges) total += count(attributes, "tl_refs", 1);
    for (const auto& [name, attributes] : nodes) total += count(attributes, "tl_edges", 0);
    return total;
  }
  std::string attribute(const std::string& node, const std::string& name) const {
    std::smatch match;
    const std::string& attributes = nodes.at(node);
    return std::regex_search(attributes, match, std::regex("[ \\[]" + name + "=\"([^\"]*)\"")) ? match[1].str() : "";
  }
};

Dot parse_dot(const std::string& text) {
  Dot dot;
  const std::regex edge(R"(^  (\w+) -> (\w+)(?: \[(.*)\])?;$)");
  const std::regex node(R"(^  (\w+) \[(.*)\];$)");
  std::istringstream lines(text);
  std::smatch match;
  for (std::string line; std::getline(lines, line);) {
    if (std::regex_match(line, match, edge)) {
      dot.edges.push_back({{match[1], match[2]}, match[3]});
    } else if (std::regex_match(line, match, node) && match[1] != "graph" && match[1] != "node" && match[1] != "edge") {
      EXPECT_TRUE(dot.nodes.emplace(match[1], match[2]).second) << "node twice: " << match[1];
    }
  }
  return dot;
}

std::size_t parent_refs(const Trace& trace) {
  std::size_t refs = 0;
  for (const Op& op : trace.ops) refs += op.parents.size();
  return refs;
}

std::size_t occurrences(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
  return count;
}

Op op(Trace& trace, std::string label, std::string framework_op, OpKind kind, std::vector<ParentRef> parents = {},
      std::optional<std::string> constant_kind = std::nullopt) {
  Op made{.index = trace.ops.size(),
          .label = std::move(label),
          .framework_op = std::move(framework_op),
          .kind = kind,
          .constant_kind = std::move(constant_kind),
          .dtype = *dtype_from_name("float32"),
          .shape = {2, 3},
          .parents = std::move(parents)};
  trace.ops.push_back(made);
  return made;
}

// x * w + 2, then squared (a parent read twice): every kind, multi-parent ops, one output.
Trace small_trace() {
  Trace trace{.backend = "test", .framework_version = "1"};
  op(trace, "input0:0", "BUFFER", OpKind::Input);
  op(trace, "weight:0", "BUFFER", OpKind::Constant, {}, "closure");
  op(trace, "literal:0", "CONST", OpKind::Constant, {}, "literal");
  op(trace, "add.expand:0", "EXPAND", OpKind::View, {{2, 0}});
  op(trace, "mul:0", "MUL", OpKind::Compute, {{0, 0}, {1, 1}});
  op(trace, "add:0", "ADD", OpKind::Compute, {{4, 0}, {3, 1}});
  op(trace, "square:0", "MUL", OpKind::Compute, {{5, 0}, {5, 1}});
  trace.inputs = {0};
  trace.outputs = {6};
  return trace;
}

TEST(TraceGraph, OneNodePerOpAndOneEdgePerParentReference) {
  const Trace trace = small_trace();
  const Dot dot = parse_dot(trace_to_dot(trace));
  ASSERT_EQ(dot.nodes.size(), trace.size());
  EXPECT_EQ(dot.edges.size(), parent_refs(trace));  // square:0 reads add:0 twice: two edges
  for (const Op& op : trace.ops) EXPECT_TRUE(dot.nodes.contains("op" + std::to_string(op.index))) << op.label;
  std::multiset<std::string> into_square;
  for (const auto& [ends, attributes] : dot.edges) {
    const bool several = trace.ops[std::stoul(ends.second.substr(2))].parents.size() > 1;
    EXPECT_EQ(attributes.find("headlabel") != std::string::npos, several) << ends.first << " -> " << ends.second;
    if (ends.second == "op6") into_square.insert(attributes);
  }
  EXPECT_EQ(into_square, (std::multiset<std::string>{"headlabel=\"0\"", "headlabel=\"1\""}));
  // The output is marked; its label says so. Labels show the label, op, dtype and shape.
  EXPECT_NE(dot.nodes.at("op6").find("peripheries=2"), std::string::npos);
  EXPECT_NE(dot.nodes.at("op6").find("output 0"), std::string::npos);
  EXPECT_EQ(dot.nodes.at("op5").find("peripheries"), std::string::npos);
  EXPECT_NE(dot.nodes.at("op5").find("<B>add:0</B>"), std::string::npos) << dot.nodes.at("op5");
  EXPECT_NE(dot.nodes.at("op5").find("ADD"), std::string::npos);
  EXPECT_NE(dot.nodes.at("op5").find("float32 (2, 3)"), std::string::npos);
}

TEST(TraceGraph, FillsFollowTheKind) {
  const Dot dot = parse_dot(trace_to_dot(small_trace()));
  const std::string input = dot.attribute("op0", "fillcolor");
  const std::string closure = dot.attribute("op1", "fillcolor");
  const std::string literal = dot.attribute("op2", "fillcolor");
  const std::string view = dot.attribute("op3", "fillcolor");
  const std::string compute = dot.attribute("op4", "fillcolor");
  EXPECT_EQ((std::set<std::string>{input, closure, literal, view, compute}).size(), 5u)
      << input << " " << closure << " " << literal << " " << view << " " << compute;
  EXPECT_FALSE(compute.empty());
  EXPECT_EQ(dot.attribute("op5", "fillcolor"), compute);
  EXPECT_EQ(dot.attribute("op6", "fillcolor"), compute);
}

// A label, reason or module with DOT's and HTML's special characters renders as written.
TEST(TraceGraph, TextIsEscaped) {
  Trace trace = small_trace();
  trace.ops[5].label = "a\"b<c>&\\d";
  trace.ops[5].module = "line one\nline \"two\"";
  ValidationStatus status{.state = ValidationState::Passed};
  status.decisions.push_back({.op = 5,
                              .label = trace.ops[5].label,
                              .phase = ValidationPhase::Perturbation,
                              .verdict = DecisionVerdict::Unverified,
                              .reason = "x < 0 & \"quoted\""});
  const std::string svg_path = scratch("escaped.svg");
  draw_trace(trace, svg_path, {.title = "<title & more>", .validation = &status});
  const std::string svg = file_text(svg_path);
  EXPECT_NE(svg.find("a&quot;b&lt;c&gt;&amp;\\d"), std::string::npos) << svg;
  EXPECT_NE(svg.find("&lt;title &amp; more&gt;"), std::string::npos);
  EXPECT_NE(svg.find("x &lt; 0 &amp; &quot;quoted&quot;"), std::string::npos);  // the reason, in the tooltip
}

Trace tutorial_trace() {
  py::dict scope = testing::python_scope(testing::kTutorialSetup);
  return tl::tinygrad::trace(scope["mlp"], py::make_tuple(scope["x"]));
}

std::vector<Payload> own_outputs(const Trace& trace) {
  std::vector<Payload> outputs;
  for (const Op* op : trace.output_ops()) outputs.push_back(*op->out);
  return outputs;
}

// A real capture, a real failing validation: the corrupted op is the first failure and red.
TEST(TraceGraph, AFailingValidationMarksTheFirstOffendingOp) {
  Trace trace = tutorial_trace();
  std::size_t reduce = 0;
  while (trace.ops[reduce].framework_op != "REDUCE") ++reduce;
  trace.ops[reduce].out->bytes[0] ^= 0x40;
  const ValidationStatus status = validate(trace, own_outputs(trace));
  ASSERT_EQ(status.state, ValidationState::Failed);
  const std::string text = trace_to_dot(trace, {.title = "tutorial", .validation = &status});
  const Dot dot = parse_dot(text);
  ASSERT_EQ(dot.nodes.size(), trace.size());
  OpVerdict failed{.decided = true, .verdict = DecisionVerdict::Fail};
  const std::string red = node_style(OpKind::Compute, std::nullopt, &failed).line;
  const std::string node = "op" + std::to_string(reduce);
  EXPECT_EQ(dot.attribute(node, "color"), red);
  EXPECT_NE(dot.nodes.at(node).find("FIRST FAILURE (replay)"), std::string::npos) << dot.nodes.at(node);
  std::size_t first_failures = 0;
  for (const auto& [name, attributes] : dot.nodes) first_failures += attributes.find("FIRST FAILURE") != std::string::npos;
  EXPECT_EQ(first_failures, 1u);
  EXPECT_NE(text.find("validation: <B>failed</B>"), std::string::npos);

  // The same trace uncorrupted: replayed ops are green and nothing is marked.
  trace.ops[reduce].out->bytes[0] ^= 0x40;
  const ValidationStatus passed = validate(trace, own_outputs(trace));
  ASSERT_EQ(passed.state, ValidationState::Passed) << passed.message;
  const Dot clean = parse_dot(trace_to_dot(trace, {.validation = &passed}));
  OpVerdict replayed{.decided = true, .verdict = DecisionVerdict::Pass};
  EXPECT_EQ(clean.attribute(node, "color"), node_style(OpKind::Compute, std::nullopt, &replayed).line);
  for (const auto& [name, attributes] : clean.nodes) EXPECT_EQ(attributes.find("FIRST FAILURE"), std::string::npos) << name;
}

TEST(TraceGraph, AnUnverifiedOpCarriesItsReason) {
  const Trace trace = small_trace();
  ValidationStatus status{.state = ValidationState::Passed};
  status.decisions.push_back({.op = 4, .label = "mul:0", .phase = ValidationPhase::Replay, .verdict = DecisionVerdict::Pass});
  status.decisions.push_back({.op = 4,
                              .label = "mul:0",
                              .phase = ValidationPhase::Perturbation,
                              .verdict = DecisionVerdict::Unverified,
                              .reason = "the weight never selects"});
  const Dot dot = parse_dot(trace_to_dot(trace, {.validation = &status}));
  EXPECT_NE(dot.attribute("op4", "tooltip").find("perturbation unverified: the weight never selects"), std::string::npos);
  EXPECT_NE(dot.attribute("op4", "style").find("dotted"), std::string::npos);
  EXPECT_EQ(dot.attribute("op5", "style"), "filled,rounded");  // no decision: drawn plain
}

// The shape tinygrad gives a deep elementwise chain: shared constants read by every step, relu
// reading its input twice (compare and where), then sub, mul, add.
Trace chain_trace(std::size_t ops) {
  Trace trace{.backend = "test", .framework_version = "1"};
  op(trace, "input0:0", "BUFFER", OpKind::Input);
  std::vector<std::size_t> consts;
  for (int k = 0; k < 4; ++k) {
    op(trace, "literal:" + std::to_string(k), "CONST", OpKind::Constant, {}, "literal");
    consts.push_back(op(trace, "expand:" + std::to_string(k), "EXPAND", OpKind::View, {{trace.ops.size() - 1, 0}}).index);
  }
  std::size_t x = 0;
  for (int step = 0; trace.ops.size() < ops; ++step) {
    const std::string n = std::to_string(step);
    const std::size_t less = op(trace, "cmplt:" + n, "CMPLT", OpKind::Compute, {{consts[0], 0}, {x, 1}}).index;
    x = op(trace, "where:" + n, "WHERE", OpKind::Compute, {{less, 0}, {x, 1}, {consts[0], 2}}).index;
    for (const char* name : {"ADD", "MUL", "ADD"}) {
      if (trace.ops.size() == ops) break;
      x = op(trace, std::string(name) + ":" + n, name, OpKind::Compute, {{x, 0}, {consts[1 + trace.ops.size() % 3], 1}}).index;
    }
  }
  trace.ops.resize(ops);
  trace.inputs = {0};
  trace.outputs = {ops - 1};
  return trace;
}

TEST(TraceGraph, A300OpChainCollapsesAndTheCountsAddUp) {
  const Trace trace = chain_trace(300);
  const Dot dot = parse_dot(trace_to_dot(trace));
  EXPECT_LT(dot.nodes.size(), 30u);  // legible: not 300 boxes
  EXPECT_EQ(dot.ops(), trace.size());
  EXPECT_EQ(dot.parent_refs(), parent_refs(trace));
  EXPECT_TRUE(dot.nodes.contains("op0"));    // the input stays visible
  EXPECT_TRUE(dot.nodes.contains("op299"));  // and so does the output
  std::size_t runs = 0;
  for (const auto& [name, attributes] : dot.nodes) runs += name.starts_with("run");
  EXPECT_GE(runs, 1u);
  // dot draws exactly what the text says.
  const std::string svg_path = scratch("chain.svg");
  draw_trace(trace, svg_path);
  EXPECT_EQ(occurrences(file_text(svg_path), "<g id=\"node"), dot.nodes.size());
}

// A constant leads the views that reshape it; compute and view ops mix; inputs and outputs stay alone.
TEST(TraceGraph, RunsAreAConstantsViewsOrComputeAndViewsMixed) {
  Trace trace{.backend = "test", .framework_version = "1"};
  op(trace, "input0:0", "BUFFER", OpKind::Input);
  op(trace, "literal:0", "CONST", OpKind::Constant, {}, "literal");
  op(trace, "reshape:0", "RESHAPE", OpKind::View, {{1, 0}});
  op(trace, "expand:0", "EXPAND", OpKind::View, {{2, 0}});
  op(trace, "mul:0", "MUL", OpKind::Compute, {{0, 0}, {3, 1}});
  op(trace, "reshape:1", "RESHAPE", OpKind::View, {{4, 0}});
  op(trace, "add:0", "ADD", OpKind::Compute, {{5, 0}, {3, 1}});
  op(trace, "exp:0", "EXP2", OpKind::Compute, {{6, 0}});
  const std::vector<bool> keep{true, false, false, false, false, false, false, true};
  const std::vector<OpRun> runs = collapsible_runs(trace, keep, 3);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].first, 1u);
  EXPECT_EQ(runs[0].last, 3u);
  EXPECT_EQ(runs[1].first, 4u);
  EXPECT_EQ(runs[1].last, 6u);
  // Longer runs only: the constant's three are too few, but its views join the compute after them,
  // ending at add:0, the last reader of the expand (a run never ends inside what it feeds).
  const std::vector<OpRun> longer = collapsible_runs(trace, keep, 4);
  ASSERT_EQ(longer.size(), 1u);
  EXPECT_EQ(longer[0].first, 2u);
  EXPECT_EQ(longer[0].last, 6u);
}

TEST(TraceGraph, ATraceUnderTheThresholdIsNotCollapsed) {
  const Trace trace = chain_trace(kGraphCollapseAbove);
  const Dot dot = parse_dot(trace_to_dot(trace));
  EXPECT_EQ(dot.nodes.size(), trace.size());
  EXPECT_EQ(dot.edges.size(), parent_refs(trace));
}

// A failed op inside a long chain stays its own node, so the picture shows it.
TEST(TraceGraph, AFailedOpIsNeverCollapsed) {
  const Trace trace = chain_trace(300);
  ValidationStatus status{.state = ValidationState::Failed, .message = "op x failed"};
  status.decisions.push_back({.op = 150, .label = trace.ops[150].label, .verdict = DecisionVerdict::Fail, .reason = "differs"});
  const Dot dot = parse_dot(trace_to_dot(trace, {.validation = &status}));
  ASSERT_TRUE(dot.nodes.contains("op150"));
  EXPECT_NE(dot.nodes.at("op150").find("FIRST FAILURE"), std::string::npos);
  EXPECT_EQ(dot.ops(), trace.size());
  EXPECT_EQ(dot.parent_refs(), parent_refs(trace));
}

// A real 300-op capture (the chain of the elementwise_chain rows, 120 steps) collapses too.
TEST(TraceGraph, ARealDeepChainCollapses) {
  py::dict scope = testing::python_scope(
      "from tinygrad import Tensor\nx = Tensor([[1.0, -2.0, 3.0]])\n"
      "def chain(x):\n  for i in range(120):\n    x = (x * 1.001 + 0.001) if i % 2 else x.relu() - 0.0005\n  return x\n");
  const Trace trace = tl::tinygrad::trace(scope["chain"], py::make_tuple(scope["x"]));
  ASSERT_GT(trace.size(), 250u);
  const Dot dot = parse_dot(trace_to_dot(trace));
  EXPECT_LT(dot.nodes.size(), 40u);
  EXPECT_EQ(dot.ops(), trace.size());
  EXPECT_EQ(dot.parent_refs(), parent_refs(trace));
}

// Drawing runs dot and waits for it alone: a process that draws (a user's Python, say) keeps its
// other children, and its files, when dot fails, keep their previous content.
TEST(TraceGraph, DrawingLeavesTheCallersOtherChildrenAndFilesAlone) {
  const pid_t sleeper = ::fork();
  ASSERT_GE(sleeper, 0);
  if (sleeper == 0) {
    ::execl("/bin/sleep", "sleep", "60", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const std::string svg_path = scratch("beside_a_child.svg");
  draw_trace(small_trace(), svg_path);
  int status = 0;
  EXPECT_EQ(::waitpid(sleeper, &status, WNOHANG), 0) << "the caller's child was reaped or killed";
  ::kill(sleeper, SIGKILL);
  ::waitpid(sleeper, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  EXPECT_TRUE(file_text(svg_path).starts_with("<?xml"));

  try {
    write_graph("digraph { a -> }", svg_path);
    ADD_FAILURE() << "dot accepted broken DOT";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("syntax error"), std::string::npos) << error.what();
  }
  EXPECT_TRUE(file_text(svg_path).starts_with("<?xml"));  // the earlier picture is intact
}

TEST(TraceGraph, UnknownExtensionsAreRefused) {
  EXPECT_EQ(graph_format("a/b.SVG"), "svg");
  EXPECT_EQ(graph_format("b.gv"), "dot");
  EXPECT_EQ(graph_format("b.txt"), std::nullopt);
  EXPECT_EQ(graph_format("svg"), std::nullopt);
  EXPECT_THROW(draw_trace(small_trace(), scratch("picture.jpeg")), std::invalid_argument);
}

// The row's picture, from a relative path, replacing what was there: its node and edge groups are
// the ops and parent references `trace --json` reports.
TEST(TraceGraphCli, TheRowsPictureHasItsOpsAndEdges) {
  const ChildOutcome json = tlconform({"trace", "--row", "tutorial_mlp", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.stderr_text;
  const nlohmann::json ops = nlohmann::json::parse(json.stdout_text)["ops"];
  std::size_t edges = 0;
  for (const auto& op : ops) edges += op["parents"].size();
  const fs::path home = scratch("graph_home");
  fs::create_directories(home / "pictures");
  std::ofstream(home / "pictures" / "mlp.svg") << "an older picture\n";
  const ChildOutcome drawn =
      tlconform(Invocation{{"trace", "--row", "tutorial_mlp", "--graph", "pictures/mlp.svg"}, home.string()});
  ASSERT_EQ(drawn.exit_code, 0) << drawn.stderr_text;
  const std::string svg = file_text(home / "pictures" / "mlp.svg");
  ASSERT_TRUE(svg.starts_with("<?xml")) << svg.substr(0, 200);
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.rfind("</svg>"), std::string::npos);
  EXPECT_EQ(occurrences(svg, "<g "), occurrences(svg, "</g>"));  // groups balanced
  EXPECT_EQ(occurrences(svg, "<g id=\"node"), ops.size());
  EXPECT_EQ(occurrences(svg, "<g id=\"edge"), edges);
  EXPECT_GT(edges, 0u);
}

TEST(TraceGraphCli, ValidateColoursThePictureAndSaysTheState) {
  const std::string svg_path = scratch("validated.svg");
  const ChildOutcome drawn = tlconform({"trace", "--row", "tutorial_mlp", "--graph", svg_path, "--validate"});
  ASSERT_EQ(drawn.exit_code, 0) << drawn.stderr_text;
  EXPECT_NE(drawn.stdout_text.find("validation: passed"), std::string::npos) << drawn.stdout_text;
  OpVerdict replayed{.decided = true, .verdict = DecisionVerdict::Pass};
  const std::string green = node_style(OpKind::Compute, std::nullopt, &replayed).line;
  EXPECT_NE(file_text(svg_path).find("stroke=\"" + green + "\""), std::string::npos);
  const ChildOutcome alone = tlconform({"trace", "--row", "tutorial_mlp", "--validate"}, 60);
  EXPECT_EQ(alone.exit_code, 2) << alone.stderr_text;
}

// --graph is checked as --out is, before anything runs.
TEST(TraceGraphCli, ABadGraphPathIsAUsageErrorBeforeTheCapture) {
  const fs::path blocker = scratch("graph_blocker");
  std::ofstream(blocker) << "not a directory\n";
  const fs::path directory = scratch("graph_directory.svg");
  fs::create_directories(directory);
  for (const auto& [path, why] :
       std::vector<std::pair<std::string, std::string>>{{(blocker / "mlp.svg").string(), "give a path in a writable directory"},
                                                        {directory.string(), "is a directory"},
                                                        {scratch("mlp.txt"), "give a file name ending in .svg"}}) {
    // With no venv, a capture would fail on its own: the refusal must come first.
    const ChildOutcome outcome =
        tlconform(Invocation{{"trace", "--row", "tutorial_mlp", "--graph", path}, "", {"TL_VENV=" + scratch("no-venv")}, 60});
    EXPECT_EQ(outcome.exit_code, 2) << path << ": " << outcome.stderr_text;
    EXPECT_NE(outcome.stderr_text.find(why), std::string::npos) << outcome.stderr_text;
    EXPECT_EQ(outcome.stdout_text.find("ops; outputs"), std::string::npos) << "it captured: " << outcome.stdout_text;
  }
  EXPECT_EQ(file_text(blocker), "not a directory\n");
}

// Without Graphviz the user is told to install it, before the capture; a .dot file needs none.
TEST(TraceGraphCli, MissingGraphvizSaysToInstallIt) {
  const fs::path empty = scratch("no_graphviz_bin");
  fs::create_directories(empty);
  const std::string svg_path = scratch("no_dot.svg");
  // With no venv a capture would fail on its own: Graphviz is missed first.
  const ChildOutcome outcome = tlconform(Invocation{{"trace", "--row", "tutorial_mlp", "--graph", svg_path},
                                                    "",
                                                    {"PATH=" + empty.string(), "TL_VENV=" + scratch("no-venv")},
                                                    60});
  EXPECT_EQ(outcome.exit_code, 1) << outcome.stderr_text;
  EXPECT_NE(outcome.stderr_text.find("install graphviz"), std::string::npos) << outcome.stderr_text;
  EXPECT_EQ(outcome.stdout_text.find("ops; outputs"), std::string::npos) << outcome.stdout_text;
  EXPECT_FALSE(fs::exists(svg_path));
  const std::string dot_path = scratch("mlp.dot");
  const ChildOutcome text =
      tlconform(Invocation{{"trace", "--row", "tutorial_mlp", "--graph", dot_path}, "", {"PATH=" + empty.string()}});
  ASSERT_EQ(text.exit_code, 0) << text.stderr_text;
  EXPECT_TRUE(file_text(dot_path).starts_with("digraph trace {"));
}

}  // namespace
}  // namespace tl
