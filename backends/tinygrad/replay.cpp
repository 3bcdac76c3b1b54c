// Replay validation: every compute and view op re-run from its parents' saved payloads (shape
// arguments and literal constants kept as in the graph), plus parent perturbation, all in one
// tinygrad evaluation. The phases run in order and stop at the first one that fails:
//   structure    the trace's ops are still the captured graph's nodes, parents before children;
//   ground truth the caller's outputs equal the trace's output payloads;
//   replay jobs  each op rebuilt over fresh buffers of its parents' payloads, once plainly and once
//                per perturbed parent;
//   evaluation   every job's node in one tinygrad evaluation;
//   comparison   each plain replay against the saved payload, each perturbed one against the plain
//                replay (an unchanged output fails unless an exemption explains it);
//   final state  failed, unverified or passed.
#include <pybind11/pybind11.h>

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <utility>

#include "backends/tinygrad/buffer_write.h"
#include "backends/tinygrad/evaluation.h"
#include "backends/tinygrad/live_graph.h"
#include "backends/tinygrad/perturbation_exemptions.h"
#include "harness/python_runtime.h"

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

bool same_bytes(const Payload& a, const Payload& b) { return a.bytes == b.bytes && a.shape == b.shape; }

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

// Structure, per op: the same UOp op as captured, every parent before it.
void check_structure(const Trace& trace, const std::vector<py::object>& uops, ValidationStatus& status) {
  for (const Op& op : trace.ops) {
    const std::string recorded = op_name(uops[op.index]);
    if (op.framework_op != recorded)
      decide(status, op, Phase::Structure, Verdict::Fail, "is " + op.framework_op + " but the capture recorded " + recorded);
    for (const ParentRef& parent : op.parents) {
      if (parent.op >= op.index)
        decide(status, op, Phase::Structure, Verdict::Fail, "parent " + std::to_string(parent.op) + " does not precede it");
    }
  }
}

// Ground truth: the caller's outputs equal the trace's output payloads.
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

// One node of the replay evaluation: an op rebuilt plainly, or with one parent perturbed.
struct ReplayJob {
  std::size_t op;
  std::optional<std::size_t> perturbed_position;  // nullopt: the plain replay
};

struct ReplayJobs {
  std::vector<ReplayJob> jobs;
  std::vector<py::object> nodes;  // nodes[j] is jobs[j]'s rebuilt UOp
};

// Rebuilds ops over fresh buffers holding their parents' saved payloads.
class ReplayBuilder {
 public:
  ReplayBuilder(const TinygradApi& api, const Trace& trace, const std::vector<py::object>& uops)
      : api_(api), trace_(trace), uops_(uops) {}

  // The plain replay of every compute and view op, and one perturbed replay per non-literal parent
  // of each compute op. An op that cannot be rebuilt fails the replay phase.
  ReplayJobs build(ValidationStatus& status) {
    ReplayJobs replay;
    for (const Op& op : trace_.ops) {
      if (op.kind != OpKind::Compute && op.kind != OpKind::View) continue;
      try {
        add_jobs(op, replay);
      } catch (py::error_already_set& error) {
        decide(status, op, Phase::Replay, Verdict::Fail,
               std::string("cannot rebuild the op from its parents: ") + py::str(error.value()).cast<std::string>());
      } catch (const std::exception& error) {
        decide(status, op, Phase::Replay, Verdict::Fail, std::string("cannot rebuild the op from its parents: ") + error.what());
      }
    }
    return replay;
  }

 private:
  using Replacement = std::pair<std::size_t, py::object>;  // argument position, the node to read there

  void add_jobs(const Op& op, ReplayJobs& replay) {
    replay.nodes.push_back(rebuild(op, std::nullopt));
    replay.jobs.push_back({.op = op.index, .perturbed_position = std::nullopt});
    // A movement op rebuilt over a parent reads that parent by construction: perturbing it would
    // tell nothing the plain replay has not, so views skip the perturbation phase.
    if (op.kind == OpKind::View) return;
    for (const ParentRef& parent : op.parents) {
      const Op& parent_op = trace_.ops[parent.op];
      if (parent_op.framework_op == "CONST") continue;  // literals are part of the op's definition
      replay.nodes.push_back(rebuild(op, Replacement{parent.position, buffer_from_payload(api_, perturbed(*parent_op.out))}));
      replay.jobs.push_back({.op = op.index, .perturbed_position = parent.position});
    }
  }

  // Fresh buffers for every saved payload a replay reads (literal CONSTs stay as in the graph). A
  // buffer write's buffer is never shared: each replay writes into its own.
  py::object input_for(std::size_t parent, bool written) {
    const Op& op = trace_.ops[parent];
    if (op.framework_op == "CONST") return uops_[parent];
    if (written) return buffer_from_payload(api_, *op.out);
    auto found = saved_.find(parent);
    if (found == saved_.end()) found = saved_.emplace(parent, buffer_from_payload(api_, *op.out)).first;
    return found->second;
  }

  py::object rebuild(const Op& op, const std::optional<Replacement>& replaced) {
    const py::object& original = uops_[op.index];
    py::list sources(op_sources(original));
    const bool writes = is_buffer_write(original);
    for (const ParentRef& parent : op.parents) {
      if (parent.position >= sources.size()) throw std::runtime_error("parent position out of range");
      sources[parent.position] = replaced && replaced->first == parent.position
                                     ? replaced->second
                                     : input_for(parent.op, writes && parent.position == 0);
    }
    if (writes) return rebuild_buffer_write(api_, original, sources[0], sources[1]);
    return api_.UOp(original.attr("op"), original.attr("dtype"), py::tuple(sources), original.attr("arg"));
  }

  const TinygradApi& api_;
  const Trace& trace_;
  const std::vector<py::object>& uops_;
  std::map<std::size_t, py::object> saved_;
};

// The one evaluation of every replay node; nullopt (and a replay failure) when tinygrad cannot run it.
std::optional<std::vector<Payload>> evaluate_replay(const TinygradApi& api, const std::vector<py::object>& nodes,
                                                    ValidationStatus& status) {
  CaptureStats stats;
  try {
    return evaluate_once(api, nodes, stats);
  } catch (py::error_already_set& error) {
    decide(status, Op{.label = "(replay evaluation)"}, Phase::Replay, Verdict::Fail,
           "tinygrad could not evaluate the replay: " + py::str(error.value()).cast<std::string>());
    return std::nullopt;
  }
}

// Judges the evaluated jobs in job order (each op's plain replay comes before its perturbations),
// so decisions and the first failure are reported in the order the ops were rebuilt.
class ReplayComparison {
 public:
  ReplayComparison(const Trace& trace, ValidationStatus& status) : trace_(trace), status_(status) {}

  void judge(const std::vector<ReplayJob>& jobs, const std::vector<Payload>& results) {
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      const Op& op = trace_.ops[jobs[j].op];
      if (jobs[j].perturbed_position)
        judge_perturbation(op, *jobs[j].perturbed_position, results[j]);
      else
        judge_replay(op, results[j]);
    }
    mark_unverified();
  }

 private:
  // The plain replay must equal the saved payload.
  void judge_replay(const Op& op, const Payload& result) {
    const Comparison comparison = compare(*op.out, result);
    decide(status_, op, Phase::Replay, comparison.equal ? Verdict::Pass : Verdict::Fail,
           comparison.equal ? "replayed from its parents' payloads"
                            : "replay differs from the saved payload: " + comparison.message);
    replayed_[op.index] = &result;
    ++status_.replayed;
  }

  // A perturbed replay must differ from the plain one, unless an exemption says why it may not.
  void judge_perturbation(const Op& op, std::size_t position, const Payload& result) {
    std::string parent_label;
    for (const ParentRef& parent : op.parents) {
      if (parent.position == position) parent_label = trace_.ops[parent.op].label;
    }
    const Payload& base = *replayed_.at(op.index);
    Verdict verdict = Verdict::Fail;
    std::string reason;
    if (!same_bytes(base, result)) {
      verdict = Verdict::Pass;
      reason = "perturbing " + parent_label + " changes the output";
    } else if (const auto why = exemption(trace_, op, position)) {
      verdict = Verdict::Exempt;
      reason = "perturbing " + parent_label + " leaves the output as it was: " + *why;
    } else {
      reason = "perturbing " + parent_label + " did not change the output";
    }
    decide(status_, op, Phase::Perturbation, verdict, reason);
    perturbation_verdicts_[op.index].push_back(verdict);
  }

  // An op whose every perturbation was exempt is unverified by perturbation.
  void mark_unverified() {
    for (const auto& [index, verdicts] : perturbation_verdicts_) {
      if (std::all_of(verdicts.begin(), verdicts.end(), [](Verdict v) { return v == Verdict::Exempt; })) {
        decide(status_, trace_.ops[index], Phase::Perturbation, Verdict::Unverified, "every parent's perturbation was exempt");
      }
    }
  }

  const Trace& trace_;
  ValidationStatus& status_;
  std::map<std::size_t, const Payload*> replayed_;
  std::map<std::size_t, std::vector<Verdict>> perturbation_verdicts_;
};

// Failed on any failure; unverified when nothing was replayed or every replayed op went unverified.
void settle_state(ValidationStatus& status) {
  const auto unverified = static_cast<std::size_t>(std::count_if(
      status.decisions.begin(), status.decisions.end(), [](const Decision& d) { return d.verdict == Verdict::Unverified; }));
  if (has_failed(status)) {
    status.state = ValidationState::Failed;
  } else if (status.replayed == 0 || unverified == status.replayed) {
    status.state = ValidationState::Unverified;
    status.message = status.replayed == 0 ? "no op was replayed" : "every replayed op was unverified by perturbation";
  } else {
    status.state = ValidationState::Passed;
  }
}

}  // namespace

ValidationStatus TinygradLiveGraph::validate(const Trace& trace, const std::vector<Payload>& outputs) const {
  ValidationStatus status;
  if (!same_op_count(trace, uops_, status)) {
    status.state = ValidationState::Failed;
    return status;
  }
  with_python_errors([&] {
    const TinygradApi api;
    check_structure(trace, uops_, status);
    check_ground_truth(trace, outputs, status);
    if (has_failed(status)) return;
    const ReplayJobs replay = ReplayBuilder(api, trace, uops_).build(status);
    if (has_failed(status)) return;
    const std::optional<std::vector<Payload>> results = evaluate_replay(api, replay.nodes, status);
    if (!results) return;
    ReplayComparison(trace, status).judge(replay.jobs, *results);
  });
  settle_state(status);
  return status;
}

}  // namespace tl::tinygrad
