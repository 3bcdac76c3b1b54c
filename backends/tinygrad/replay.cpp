// Replay validation: every compute and view op re-run from its parents' saved payloads (shape
// arguments and literal constants kept as in the graph), plus parent perturbation, all in one
// tinygrad evaluation.
#include <pybind11/pybind11.h>

#include <cmath>
#include <map>
#include <optional>

#include "backends/tinygrad/buffer_write.h"
#include "backends/tinygrad/evaluation.h"
#include "backends/tinygrad/live_graph.h"
#include "harness/python_runtime.h"

namespace tl::tinygrad {

namespace py = pybind11;

namespace {

// How far a float parent's value moves under perturbation.
double float_shift(double v) { return 1.0 + 0.5 * std::fabs(v); }

// A parent's payload shifted so that any op that depends on it sees different values.
Payload perturbed(const Payload& payload) {
  std::vector<double> values = payload.to_doubles();
  for (double& v : values) {
    if (payload.dtype.kind == DTypeKind::Bool)
      v = v != 0.0 ? 0.0 : 1.0;
    else if (payload.dtype.is_float())
      v = v + float_shift(v);
    else
      v = v + 1.0;
  }
  return Payload::from_doubles(payload.dtype, payload.shape, values);
}

// The spacing of floats of `dtype` at |v| (one unit in the last place), or 0 for an unknown dtype.
double ulp_at(const DType& dtype, double v) {
  static const std::map<std::string, int> mantissa_bits = {{"float16", 10}, {"bfloat16", 7}, {"float32", 23}, {"float64", 52}};
  const auto bits = mantissa_bits.find(dtype.name);
  if (bits == mantissa_bits.end() || v == 0.0) return 0.0;
  return std::ldexp(1.0, std::ilogb(v) - bits->second);
}

// Whether each element's shift is under one ulp of the sum it is added to, so rounding can swallow
// it (a small bias added to a huge activation).
bool absorbed_by_rounding(const Payload& parent, const Payload& sum) {
  if (!parent.dtype.is_float() || parent.numel() != sum.numel()) return false;
  for (std::int64_t i = 0; i < sum.numel(); ++i) {
    if (float_shift(parent.element(i)) >= ulp_at(sum.dtype, sum.element(i))) return false;
  }
  return true;
}

bool all_values(const Payload& payload, bool (*predicate)(double)) {
  for (std::int64_t i = 0; i < payload.numel(); ++i) {
    if (!predicate(payload.element(i))) return false;
  }
  return true;
}

bool finite(const Payload& payload) {
  return all_values(payload, [](double v) { return std::isfinite(v); });
}

// Why an op may legitimately ignore a perturbation of its parent at `position`; nullopt when it may
// not (then the replay graph does not really depend on that parent: a failure).
std::optional<std::string> exemption(const Trace& trace, const Op& op, std::size_t position) {
  const std::string& name = op.framework_op;
  auto parent_at = [&](std::size_t pos) -> const Op* {
    for (const ParentRef& parent : op.parents) {
      if (parent.position == pos) return &trace.ops[parent.op];
    }
    return nullptr;
  };
  if (op.out->numel() == 0) return "the output is empty (a slice past the end)";
  if (const Op* perturbed_parent = parent_at(position);
      perturbed_parent != nullptr && perturbed_parent->out && perturbed_parent->out->numel() == 0) {
    return "the parent is empty (e.g. a zero-width slice): it holds no value to change";
  }
  if (!finite(*op.out)) return "the output holds non-finite values";
  if (name == "CMPLT" || name == "CMPNE" || name == "CMPEQ") return "a comparison far from its boundary";
  if (name == "WHERE") {
    const Op* condition = parent_at(0);
    if (position == 0) return "both branches hold the same values where the condition flips";
    if (condition != nullptr && position == 1 && all_values(*condition->out, [](double v) { return v == 0.0; })) {
      return "the condition never selects this branch (e.g. a relu whose inputs are all negative)";
    }
    if (condition != nullptr && position == 2 && all_values(*condition->out, [](double v) { return v != 0.0; })) {
      return "the condition never selects this branch";
    }
    return std::nullopt;
  }
  if (name == "MUL") {
    const Op* other = parent_at(position == 0 ? 1 : 0);
    if (other != nullptr && all_values(*other->out, [](double v) { return v == 0.0; })) return "multiplied by zero";
    return std::nullopt;
  }
  if (name == "MAX") return "the other operand dominates the maximum";
  if (name == "AFTER" && position == 0) {
    const Op* value = parent_at(1);
    if (value != nullptr && value->out->numel() == op.out->numel()) return "the write covers the whole buffer";
    return std::nullopt;
  }
  if (name == "ADD") {
    const Op* perturbed_parent = parent_at(position);
    if (perturbed_parent != nullptr && absorbed_by_rounding(*perturbed_parent->out, *op.out)) {
      return "the shift is under one ulp of the sum, so rounding absorbs it";
    }
    return std::nullopt;
  }
  if (name == "AND" || name == "OR" || name == "XOR" || name == "SHL" || name == "SHR" || name == "IDIV" || name == "MOD" ||
      (name == "CAST" && !op.dtype.is_float())) {
    return "an integer or boolean op absorbs the perturbation";
  }
  return std::nullopt;
}

bool same_bytes(const Payload& a, const Payload& b) { return a.bytes == b.bytes && a.shape == b.shape; }

}  // namespace

ValidationStatus TinygradLiveGraph::validate(const Trace& trace, const std::vector<Payload>& outputs) const {
  ValidationStatus status;
  auto decide = [&](const Op& op, const std::string& phase, const std::string& decision, const std::string& reason) {
    status.decisions.push_back({op.index, op.label, phase, decision, reason});
    if (decision == "fail" && status.message.empty()) {
      status.message = "op " + op.label + " (index " + std::to_string(op.index) + ") failed " + phase + ": " + reason;
    }
  };

  // Structure: the trace's ops must still be the captured graph's nodes, one to one.
  if (trace.ops.size() != uops_.size()) {
    with_python_errors([&] {
      std::size_t first = 0;
      while (first < trace.ops.size() && first < uops_.size() && trace.ops[first].index == first &&
             trace.ops[first].framework_op == op_name(uops_[first])) {
        ++first;
      }
      Op missing;
      missing.index = first;
      missing.label = first < uops_.size() ? "(a " + op_name(uops_[first]) + " in the capture)" : "(past the capture)";
      decide(missing, "structure", "fail",
             "is missing from the trace or out of place: the trace has " + std::to_string(trace.ops.size()) +
                 " ops, the capture recorded " + std::to_string(uops_.size()));
    });
    status.state = ValidationState::Failed;
    return status;
  }

  with_python_errors([&] {
    const TinygradApi api;
    for (const Op& op : trace.ops) {
      const std::string recorded = op_name(uops_[op.index]);
      if (op.framework_op != recorded)
        decide(op, "structure", "fail", "is " + op.framework_op + " but the capture recorded " + recorded);
      for (const ParentRef& parent : op.parents) {
        if (parent.op >= op.index)
          decide(op, "structure", "fail", "parent " + std::to_string(parent.op) + " does not precede it");
      }
    }

    // Ground truth: the caller's outputs equal the trace's output payloads.
    if (outputs.size() != trace.outputs.size()) {
      decide(trace.ops[trace.outputs.at(0)], "ground_truth", "fail",
             std::to_string(outputs.size()) + " outputs given, the trace has " + std::to_string(trace.outputs.size()));
    } else {
      for (std::size_t i = 0; i < outputs.size(); ++i) {
        const Op& op = trace.ops[trace.outputs[i]];
        const Comparison comparison = compare(outputs[i], *op.out);
        decide(op, "ground_truth", comparison.equal ? "pass" : "fail",
               comparison.equal ? "equals the given output" : comparison.message);
      }
    }
    if (!status.message.empty()) return;

    // Fresh buffers for every saved payload a replay reads (literal CONSTs stay as in the graph).
    std::map<std::size_t, py::object> saved;
    // A buffer write's buffer is never shared: each replay writes into its own.
    auto input_for = [&](std::size_t parent, bool written) -> py::object {
      const Op& op = trace.ops[parent];
      if (op.framework_op == "CONST") return uops_[parent];
      if (written) return buffer_from_payload(api, *op.out);
      auto found = saved.find(parent);
      if (found == saved.end()) found = saved.emplace(parent, buffer_from_payload(api, *op.out)).first;
      return found->second;
    };
    auto rebuild = [&](const Op& op, std::optional<std::pair<std::size_t, py::object>> replaced) {
      const py::object& original = uops_[op.index];
      py::list sources(op_sources(original));
      const bool writes = is_buffer_write(original);
      for (const ParentRef& parent : op.parents) {
        if (parent.position >= sources.size()) throw std::runtime_error("parent position out of range");
        sources[parent.position] = replaced && replaced->first == parent.position
                                       ? replaced->second
                                       : input_for(parent.op, writes && parent.position == 0);
      }
      if (writes) return rebuild_buffer_write(api, original, sources[0], sources[1]);
      return api.UOp(original.attr("op"), original.attr("dtype"), py::tuple(sources), original.attr("arg"));
    };

    struct Job {
      std::size_t op;
      std::optional<std::size_t> perturbed_position;  // nullopt: the plain replay
    };
    std::vector<Job> jobs;
    std::vector<py::object> nodes;
    for (const Op& op : trace.ops) {
      if (op.kind != OpKind::Compute && op.kind != OpKind::View) continue;
      try {
        nodes.push_back(rebuild(op, std::nullopt));
        jobs.push_back({op.index, std::nullopt});
        // A movement op rebuilt over a parent reads that parent by construction: perturbing it
        // would tell nothing the plain replay has not, so views skip the perturbation phase.
        if (op.kind == OpKind::View) continue;
        for (const ParentRef& parent : op.parents) {
          if (trace.ops[parent.op].framework_op == "CONST") continue;  // literals are part of the op's definition
          nodes.push_back(
              rebuild(op, std::make_pair(parent.position, buffer_from_payload(api, perturbed(*trace.ops[parent.op].out)))));
          jobs.push_back({op.index, parent.position});
        }
      } catch (py::error_already_set& error) {
        decide(op, "replay", "fail",
               std::string("cannot rebuild the op from its parents: ") + py::str(error.value()).cast<std::string>());
      } catch (const std::exception& error) {
        decide(op, "replay", "fail", std::string("cannot rebuild the op from its parents: ") + error.what());
      }
    }
    if (!status.message.empty()) return;

    CaptureStats stats;
    std::vector<Payload> results;
    try {
      results = evaluate_once(api, nodes, stats);
    } catch (py::error_already_set& error) {
      Op whole;
      whole.label = "(replay evaluation)";
      decide(whole, "replay", "fail", "tinygrad could not evaluate the replay: " + py::str(error.value()).cast<std::string>());
      return;
    }

    std::map<std::size_t, const Payload*> replayed;
    std::map<std::size_t, std::vector<std::string>> perturbation_decisions;
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      const Op& op = trace.ops[jobs[j].op];
      if (!jobs[j].perturbed_position) {
        const Comparison comparison = compare(*op.out, results[j]);
        decide(op, "replay", comparison.equal ? "pass" : "fail",
               comparison.equal ? "replayed from its parents' payloads"
                                : "replay differs from the saved payload: " + comparison.message);
        replayed[op.index] = &results[j];
        ++status.replayed;
        continue;
      }
      const std::size_t position = *jobs[j].perturbed_position;
      std::string parent_label;
      for (const ParentRef& parent : op.parents) {
        if (parent.position == position) parent_label = trace.ops[parent.op].label;
      }
      const Payload& base = *replayed.at(op.index);
      std::string decision;
      std::string reason;
      if (!same_bytes(base, results[j])) {
        decision = "pass";
        reason = "perturbing " + parent_label + " changes the output";
      } else if (const auto why = exemption(trace, op, position)) {
        decision = "exempt";
        reason = "perturbing " + parent_label + " leaves the output as it was: " + *why;
      } else {
        decision = "fail";
        reason = "perturbing " + parent_label + " did not change the output";
      }
      decide(op, "perturbation", decision, reason);
      perturbation_decisions[op.index].push_back(decision);
    }
    for (const auto& [index, decisions] : perturbation_decisions) {
      if (std::all_of(decisions.begin(), decisions.end(), [](const std::string& d) { return d == "exempt"; })) {
        decide(trace.ops[index], "perturbation", "unverified", "every parent's perturbation was exempt");
      }
    }
  });

  // Failed on any failure; unverified when nothing was replayed or every replayed op went unverified.
  const bool failed = !status.message.empty();
  std::size_t unverified = 0;
  for (const Decision& d : status.decisions) unverified += d.decision == "unverified" ? 1 : 0;
  if (failed) {
    status.state = ValidationState::Failed;
  } else if (status.replayed == 0 || unverified == status.replayed) {
    status.state = ValidationState::Unverified;
    status.message = status.replayed == 0 ? "no op was replayed" : "every replayed op was unverified by perturbation";
  } else {
    status.state = ValidationState::Passed;
  }
  return status;
}

}  // namespace tl::tinygrad
