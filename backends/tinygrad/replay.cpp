// Replay validation. The phases run in order and stop at the first one that fails:
//   structure    the trace's ops are the captured graph's nodes: the same op, the same parents at
//                the same argument positions, parents before children;
//   ground truth the caller's outputs equal the trace's output payloads, bit for bit;
//   replay       each compute and view op rebuilt as the capture computed it, over fresh buffers of
//                the saved payloads it read, equals its saved payload bit for bit (an op whose payload
//                is eager's: over its parents' payloads, or else as eager computed it; a broadcast:
//                by numpy on the host);
//   perturbation each parent of a compute op replaced by tried values (perturbation.h): verified when
//                the op's first elements change, unverified with a reason when no try changes them;
//   final state  failed on any failure, unverified when an op that computes was not replayed,
//                passed otherwise (a trace that computes nothing is checked whole by the ground truth).
// Jobs are built and evaluated by python/tl_replay.py in one tinygrad evaluation per round (a second
// round holds the later tries of edges the first try left unchanged); this file decides.
#include <pybind11/pybind11.h>

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <utility>

#include "backends/tinygrad/evaluation.h"
#include "backends/tinygrad/live_graph.h"
#include "backends/tinygrad/perturbation.h"
#include "backends/tinygrad/python_modules.h"
#include "harness/backend/python_runtime.h"

namespace tl::tinygrad {

namespace py = pybind11;

namespace {

using Verdict = DecisionVerdict;
using Phase = ValidationPhase;

// Records one decision; the first failure becomes the status message.
void decide(ValidationStatus& status, const Op& op, Phase phase, Verdict verdict, const std::string& reason) {
  status.decisions.push_back({.op = op.index, .label = op.label, .phase = phase, .verdict = verdict, .reason = reason});
  if (verdict == Verdict::Fail && status.message.empty()) {
    status.message = "op " + op.label + " (index " + std::to_string(op.index) + ") failed " + to_string(phase) + ": " + reason;
  }
}

bool has_failed(const ValidationStatus& status) { return !status.message.empty(); }

std::string parents_string(const std::vector<ParentRef>& parents) {
  std::string text;
  for (const ParentRef& parent : parents)
    text += (text.empty() ? "" : ", ") + std::to_string(parent.op) + "@" + std::to_string(parent.position);
  return "[" + text + "]";
}

// Structure, first: one op per captured node. When the counts differ, names the first op out of
// place and returns false (nothing else can be checked against the capture).
bool same_op_count(const Trace& trace, const std::vector<py::object>& uops, ValidationStatus& status) {
  if (trace.ops.size() == uops.size()) return true;
  with_python_errors([&] {
    std::size_t first = 0;
    while (first < trace.ops.size() && first < uops.size() && trace.ops[first].index == first &&
           trace.ops[first].framework_op == op_name(uops[first])) {
      ++first;
    }
    const Op missing{.index = first,
                     .label = first < uops.size() ? "(a " + op_name(uops[first]) + " in the capture)" : "(past the capture)"};
    decide(status, missing, Phase::Structure, Verdict::Fail,
           "is missing from the trace or out of place: the trace has " + std::to_string(trace.ops.size()) +
               " ops, the capture recorded " + std::to_string(uops.size()));
  });
  return false;
}

// Structure, per op: the same UOp op as captured, and exactly the captured graph's parent edges (a
// computed op's; inputs and constants have none), each before it.
void check_structure(const Trace& trace, const std::vector<py::object>& uops, const py::list& expected,
                     ValidationStatus& status) {
  for (const Op& op : trace.ops) {
    const std::string recorded = op_name(uops[op.index]);
    if (op.framework_op != recorded)
      decide(status, op, Phase::Structure, Verdict::Fail, "is " + op.framework_op + " but the capture recorded " + recorded);
    std::vector<ParentRef> graph;
    if (op.kind == OpKind::Compute || op.kind == OpKind::View) {
      for (py::handle edge : expected[op.index])
        graph.push_back({.op = edge[py::int_(0)].cast<std::size_t>(), .position = edge[py::int_(1)].cast<std::size_t>()});
    }
    if (op.parents != graph) {
      decide(status, op, Phase::Structure, Verdict::Fail,
             "has parents " + parents_string(op.parents) + " but the captured graph has " + parents_string(graph));
    }
    for (const ParentRef& parent : op.parents) {
      if (parent.op >= op.index)
        decide(status, op, Phase::Structure, Verdict::Fail, "parent " + std::to_string(parent.op) + " does not precede it");
    }
  }
}

// Ground truth: the caller's outputs equal the trace's output payloads, bit for bit.
void check_ground_truth(const Trace& trace, const std::vector<Payload>& outputs, ValidationStatus& status) {
  if (outputs.size() != trace.outputs.size()) {
    decide(status, trace.ops[trace.outputs.at(0)], Phase::GroundTruth, Verdict::Fail,
           std::to_string(outputs.size()) + " outputs given, the trace has " + std::to_string(trace.outputs.size()));
    return;
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const Op& op = trace.ops[trace.outputs[i]];
    const Comparison comparison = compare(outputs[i], *op.out);
    decide(status, op, Phase::GroundTruth, comparison.equal ? Verdict::Pass : Verdict::Fail,
           comparison.equal ? "equals the given output" : comparison.message);
  }
}

// The jobs of one evaluation, as tl_replay.Job dicts, and the perturbation tries they reference.
struct JobList {
  py::list jobs;
  std::vector<Payload> tried;

  std::size_t add(py::dict job) {
    jobs.append(std::move(job));
    return py::len(jobs) - 1;
  }
  // A local job of `op` with the parent at `position` replaced by `payload`.
  std::size_t add_try(const Op& op, std::size_t position, Payload payload) {
    tried.push_back(std::move(payload));
    py::dict job, replacements;
    replacements[py::int_(position)] = tried.size() - 1;
    job["op"] = op.index;
    job["local"] = true;
    job["limit"] = kPerturbedElements;
    job["replacements"] = replacements;
    return add(job);
  }
};

// One perturbed edge: the op, the parent it reads at `position`, and what its tries showed.
struct Edge {
  std::size_t op;
  std::size_t position;
  std::size_t parent;
  std::size_t local_plain;  // the first round's job of the op's local replay over its saved parents
  std::vector<Payload> later_tries;
  bool changed = false;
  std::string error;
};

// The first round: every op's plain replay, and per edge its local plain replay and first try.
struct FirstRound {
  JobList list;
  std::vector<std::pair<std::size_t, std::size_t>> plain;  // (op, job)
  std::vector<Edge> edges;
  std::vector<std::size_t> first_try;  // per edge, its job
  std::vector<bool> eager;             // per op: its payload is eager's (tl_replay.eager_ops)
};

FirstRound plan_first_round(const Trace& trace, const py::list& constant, const py::list& eager) {
  FirstRound round;
  round.eager.assign(trace.ops.size(), false);
  for (py::handle op : eager) round.eager[op.cast<std::size_t>()] = true;
  for (const Op& op : trace.ops) {
    if (op.kind != OpKind::Compute && op.kind != OpKind::View) continue;
    py::dict job;
    job["op"] = op.index;
    round.plain.emplace_back(op.index, round.list.add(job));
  }
  for (const Op& op : trace.ops) {
    // A view's replay reads its parent by construction: perturbing it tells nothing more.
    if (op.kind != OpKind::Compute) continue;
    std::optional<std::size_t> local_plain;
    for (const ParentRef& parent : op.parents) {
      if (constant[parent.op].cast<bool>()) continue;  // a constant is part of the op's definition
      if (!local_plain) {
        py::dict job;
        job["op"] = op.index;
        job["local"] = true;
        job["limit"] = kPerturbedElements;
        local_plain = round.list.add(job);
      }
      std::vector<Payload> tries = perturbation_tries(*trace.ops[parent.op].out);
      round.first_try.push_back(round.list.add_try(op, parent.position, std::move(tries.front())));
      tries.erase(tries.begin());
      round.edges.push_back({op.index, parent.position, parent.op, *local_plain, std::move(tries)});
    }
  }
  return round;
}

// A job's value as a payload, or the reason there is none.
struct JobResult {
  std::optional<Payload> value;
  std::string error;
  bool on_host = false;  // a broadcast numpy replayed (tl_replay.broadcast)
};

std::vector<JobResult> evaluate_jobs(const TinygradLiveGraph& live, const Trace& trace, const JobList& list,
                                     std::optional<std::string>& failure) {
  py::list parents;
  for (const Op& op : trace.ops) {
    py::dict positions;
    for (const ParentRef& parent : op.parents) positions[py::int_(parent.position)] = parent.op;
    parents.append(positions);
  }
  py::list extra;
  for (const Payload& tried : list.tried) extra.append(payload_view(tried));
  py::tuple evaluated;
  try {
    evaluated = backend_module("tl_replay").attr("replay")(live.live(), parents, payload_views(trace), extra, list.jobs);
  } catch (py::error_already_set& error) {
    failure = "tinygrad could not evaluate the replay: " + py::str(error.value()).cast<std::string>();
    return {};
  }
  const py::list values = evaluated[0], errors = evaluated[1], shapes = evaluated[2], on_host = evaluated[3];
  std::vector<JobResult> results(py::len(list.jobs));
  for (std::size_t j = 0; j < results.size(); ++j) {
    if (!errors[j].is_none()) {
      results[j].error = errors[j].cast<std::string>();
      continue;
    }
    const py::dict job = list.jobs[j];
    const Op& op = trace.ops[job["op"].cast<std::size_t>()];
    // a limited local job holds only its first elements, flattened: as many as the backend built
    std::vector<std::int64_t> shape = op.shape;
    if (job.contains("limit")) {
      shape.clear();
      for (const py::handle extent : shapes[j]) shape.push_back(extent.cast<std::int64_t>());
    }
    results[j].on_host = on_host[j].cast<bool>();
    results[j].value = payload_from_value(values[j][py::int_(0)], op.dtype, shape, "the replay of " + op.label,
                                          values[j][py::int_(1)].cast<bool>());
  }
  return results;
}

// Whether a try's result differs from the local plain replay (an error is kept on the edge).
void observe(Edge& edge, const JobResult& plain, const JobResult& tried) {
  if (!tried.value)
    edge.error = tried.error;
  else if (plain.value)
    edge.changed = edge.changed || !compare(*plain.value, *tried.value).equal;
}

// Whether a plain replay's value is the op's saved payload.
bool replays(const Op& op, const JobResult& result) { return result.value && compare(*op.out, *result.value).equal; }

// Runs the first round, then a second with the later tries of every edge the first try left
// unchanged (most edges change at once, so most ops are evaluated twice, not four times) and, where an
// op whose payload is eager's differs from its replay over its parents' payloads, every such op as
// eager computed it (`as_eager`: op -> that result, for the ops that differed).
std::vector<JobResult> run_rounds(const TinygradLiveGraph& live, const Trace& trace, FirstRound& round,
                                  std::map<std::size_t, JobResult>& as_eager, std::optional<std::string>& failure) {
  std::vector<JobResult> results = evaluate_jobs(live, trace, round.list, failure);
  if (failure) return results;
  JobList second;
  // Where one differs, every such op is rebuilt as eager computed it, all in one schedule: tinygrad
  // splits them into eager's kernels only together (outputs that share a reduction share its kernel).
  std::vector<std::pair<std::size_t, std::size_t>> eager_jobs;  // (first round's plain job, job)
  const bool any_differs = std::any_of(round.plain.begin(), round.plain.end(), [&](const auto& plain) {
    return round.eager[plain.first] && !replays(trace.ops[plain.first], results[plain.second]);
  });
  for (const auto& [index, job] : round.plain) {
    if (!any_differs || !round.eager[index]) continue;
    py::dict again;
    again["op"] = index;
    again["as_eager"] = true;
    eager_jobs.emplace_back(job, second.add(again));
  }
  std::vector<std::pair<std::size_t, std::size_t>> second_jobs;  // (edge, job)
  for (std::size_t e = 0; e < round.edges.size(); ++e) {
    Edge& edge = round.edges[e];
    observe(edge, results[edge.local_plain], results[round.first_try[e]]);
    if (edge.changed || !edge.error.empty() || !results[edge.local_plain].value) continue;
    for (Payload& tried : edge.later_tries)
      second_jobs.emplace_back(e, second.add_try(trace.ops[edge.op], edge.position, std::move(tried)));
  }
  if (second_jobs.empty() && eager_jobs.empty()) return results;
  std::vector<JobResult> later = evaluate_jobs(live, trace, second, failure);
  if (failure) return results;
  for (const auto& [plain, job] : eager_jobs) {  // an op that replayed over its parents keeps that verdict
    const std::size_t index = round.list.jobs[plain]["op"].cast<std::size_t>();
    if (!replays(trace.ops[index], results[plain])) as_eager[index] = std::move(later[job]);
  }
  for (const auto& [e, job] : second_jobs) {
    Edge& edge = round.edges[e];
    observe(edge, results[edge.local_plain], later[job]);
  }
  return results;
}

void judge(const Trace& trace, const FirstRound& round, const std::vector<JobResult>& results,
           const std::map<std::size_t, JobResult>& as_eager, ValidationStatus& status) {
  for (const auto& [index, job] : round.plain) {
    const Op& op = trace.ops[index];
    const auto again = as_eager.find(index);
    const JobResult& result = again == as_eager.end() ? results[job] : again->second;
    if (!result.value) {
      decide(status, op, Phase::Replay, Verdict::Fail, "cannot rebuild the op from its parents: " + result.error);
      continue;
    }
    const Comparison comparison = compare(*op.out, *result.value);
    const std::string how = again != as_eager.end()
                                ? "replayed as eager computed it (its whole graph over the saved payloads it reads; "
                                  "over its parents' it differs)"
                            : result.on_host ? "broadcast from its parent's saved payload by numpy on the host"
                                             : "replayed from the saved payloads it reads";
    decide(status, op, Phase::Replay, comparison.equal ? Verdict::Pass : Verdict::Fail,
           comparison.equal ? how : "replay differs from the saved payload: " + comparison.message);
    ++status.replayed;
  }
  for (const Edge& edge : round.edges) {
    const Op& op = trace.ops[edge.op];
    const Op& parent = trace.ops[edge.parent];
    const JobResult& plain = results[edge.local_plain];
    if (!plain.value) {
      decide(status, op, Phase::Perturbation, Verdict::Fail, "cannot rebuild the op over its parents: " + plain.error);
    } else if (!edge.error.empty()) {
      decide(status, op, Phase::Perturbation, Verdict::Fail,
             "cannot rebuild the op with " + parent.label + " replaced: " + edge.error);
    } else {
      decide(status, op, Phase::Perturbation, edge.changed ? Verdict::Pass : Verdict::Unverified,
             edge.changed ? "replacing " + parent.label + " changes the output"
                          : "replacing " + parent.label +
                                " never changed the output: " + unverified_reason(trace, op, parent, *plain.value));
    }
  }
}

// Failed on any failure. Passed when an op was replayed, or when the trace computes nothing (its
// outputs are its inputs or constants, as for `x.flip(())`): the ground truth then checked all there
// is. Unverified when ops that compute were left unreplayed.
void settle_state(const Trace& trace, ValidationStatus& status) {
  const bool computes = std::any_of(trace.ops.begin(), trace.ops.end(),
                                    [](const Op& op) { return op.kind == OpKind::Compute || op.kind == OpKind::View; });
  if (has_failed(status)) {
    status.state = ValidationState::Failed;
  } else if (status.replayed == 0 && computes) {
    status.state = ValidationState::Unverified;
    status.message = "no op was replayed";
  } else {
    status.state = ValidationState::Passed;
  }
}

}  // namespace

py::list payload_views(const Trace& trace) {
  py::list views;
  for (const Op& op : trace.ops) views.append(op.out ? py::object(payload_view(*op.out)) : py::object(py::none()));
  return views;
}

ValidationStatus TinygradLiveGraph::validate(const Trace& trace, const std::vector<Payload>& outputs) const {
  ValidationStatus status;
  if (!same_op_count(trace, uops_, status)) {
    status.state = ValidationState::Failed;
    return status;
  }
  with_python_errors([&] {
    const py::module_ replay = backend_module("tl_replay");
    check_structure(trace, uops_, replay.attr("expected_parents")(live_), status);
    check_ground_truth(trace, outputs, status);
    if (has_failed(status)) return;
    FirstRound round = plan_first_round(trace, replay.attr("constant_ops")(live_), replay.attr("eager_ops")(live_));
    std::optional<std::string> failure;
    std::map<std::size_t, JobResult> as_eager;
    const std::vector<JobResult> results = run_rounds(*this, trace, round, as_eager, failure);
    if (failure) {
      decide(status, Op{.label = "(replay evaluation)"}, Phase::Replay, Verdict::Fail, *failure);
      return;
    }
    judge(trace, round, results, as_eager, status);
  });
  settle_state(trace, status);
  return status;
}

}  // namespace tl::tinygrad
