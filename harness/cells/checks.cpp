#include "harness/cells/checks.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>

#include "harness/cells/alone_choice.h"
#include "harness/cells/finite_differences.h"
#include "harness/model/errors.h"
#include "harness/model/live_graph.h"
#include "harness/model/refusal.h"
#include "harness/model/trace_compare.h"

namespace tl {
namespace {

// One output against the roster's values, nullopt when equal within `atol`. For a float output the
// values are rounded to its dtype first; an integer or bool output is widened to float64 instead, so
// that an expected 1.7 is not truncated to the output's 1.
std::optional<std::string> output_mismatch(const TensorValues& values, const Payload& actual, double atol) {
  static const DType wide = *dtype_from_name("float64");
  const bool as_float = actual.dtype.is_float();
  const Payload expected = Payload::from_doubles(as_float ? actual.dtype : wide, values.shape, values.values);
  const Comparison comparison = compare_values(
      expected, as_float ? actual : Payload::from_doubles(wide, actual.shape, actual.to_doubles()), Tolerance{0, atol, 0.0});
  if (comparison.equal) return std::nullopt;
  return values.where.str() + ": " + comparison.message + " (output dtype " + actual.dtype.name + ")";
}

}  // namespace

Check check_structure(const Trace& trace) {
  // No silent holes: parents come first, and only inputs and constants stand without parents.
  for (const Op& op : trace.ops) {
    for (const ParentRef& parent : op.parents) {
      if (parent.op >= op.index)
        return {"structure", false, op.label + " has parent " + std::to_string(parent.op) + " that does not precede it"};
    }
    const bool leaf = op.kind == OpKind::Input || op.kind == OpKind::Constant;
    if (leaf != op.parents.empty())
      return {"structure", false, op.label + (leaf ? " is a leaf with parents" : " has no parent edge")};
    if (!op.out) return {"structure", false, op.label + " has no payload"};
  }
  if (trace.outputs.empty()) return {"structure", false, "the trace has no output op"};
  return {"structure", true, std::to_string(trace.size()) + " ops, parents before children, every op has a payload"};
}

Check check_one_evaluation(const RowCapture& capture) {
  const CaptureStats& stats = capture.trace.stats;
  const bool ok = capture.observed_evaluations == 1 && stats.evaluations == 1 && capture.observed_kernels == stats.kernels;
  return {"one_evaluation", ok,
          "probe saw " + std::to_string(capture.observed_evaluations) + " evaluation(s) and " +
              std::to_string(capture.observed_kernels) + " kernel(s); the trace reports " + std::to_string(stats.evaluations) +
              " evaluation(s) of " + std::to_string(stats.kernels) + " kernel(s)"};
}

Check check_outputs_equal_eager(const Trace& trace, const EagerRun& eager) {
  if (trace.outputs.size() != eager.outputs.size()) {
    return {"outputs_equal_eager", false,
            std::to_string(trace.outputs.size()) + " output ops, eager returned " + std::to_string(eager.outputs.size())};
  }
  for (std::size_t i = 0; i < eager.outputs.size(); ++i) {
    const Op& op = trace.ops[trace.outputs[i]];
    const Comparison comparison = compare(eager.outputs[i], *op.out);
    if (!comparison.equal)
      return {"outputs_equal_eager", false, "output " + std::to_string(i) + " (" + op.label + "): " + comparison.message};
  }
  return {"outputs_equal_eager", true, std::to_string(eager.outputs.size()) + " output(s) equal one eager forward"};
}

// `expect.output` checks the first output; `expect.outputs` checks every output and their count.
Check check_expected_output(const RosterRow& row, const Trace& trace) {
  const Expectations& expect = row.expect;
  if (trace.outputs.empty()) return {"expected_output", false, "the trace has no output op"};
  if (expect.output) {
    const auto mismatch = output_mismatch(*expect.output, *trace.ops[trace.outputs[0]].out, expect.output_atol);
    return {"expected_output", !mismatch, mismatch ? "output 0: " + *mismatch : "first output equals the roster's values"};
  }
  if (expect.outputs.size() != trace.outputs.size()) {
    return {"expected_output", false,
            expect.where.str() + ": expect.outputs lists " + std::to_string(expect.outputs.size()) +
                " output(s), the forward returned " + std::to_string(trace.outputs.size())};
  }
  for (std::size_t i = 0; i < expect.outputs.size(); ++i) {
    const auto mismatch = output_mismatch(expect.outputs[i], *trace.ops[trace.outputs[i]].out, expect.output_atol);
    if (mismatch) return {"expected_output", false, "output " + std::to_string(i) + ": " + *mismatch};
  }
  return {"expected_output", true, "every output (" + std::to_string(expect.outputs.size()) + ") equals the roster's values"};
}

Check check_constant_kinds(const RosterRow& row, const Trace& trace) {
  std::map<std::string, int> seen;
  for (const Op& op : trace.ops) {
    if (op.constant_kind) ++seen[*op.constant_kind];
  }
  std::string detail;
  bool ok = true;
  for (const auto& [kind, want] : *row.expect.constant_kinds) {
    ok = ok && seen[kind] == want;
    detail += (detail.empty() ? "" : ", ") + kind + "=" + std::to_string(seen[kind]) +
              (seen[kind] == want ? "" : " (expected " + std::to_string(want) + ")");
  }
  return {"constant_kinds", ok, "constants " + detail + (ok ? "" : " at " + row.expect.where.str())};
}

// Passes when the validation state is exactly the row's `expect.validation` (default passed): a row
// that expects unverified fails both when validation passes and when it fails.
Check check_replay_validation(BackendProtocol& backend, const RosterRow& row, const Trace& trace, const EagerRun& eager) {
  const ValidationStatus status = backend.validate(trace, eager.outputs);
  std::size_t verified = 0, unverified = 0;
  for (const Decision& decision : status.decisions) {
    if (decision.phase != ValidationPhase::Perturbation) continue;
    verified += decision.verdict == DecisionVerdict::Pass ? 1 : 0;
    unverified += decision.verdict == DecisionVerdict::Unverified ? 1 : 0;
  }
  const std::string state = to_string(status.state);
  const bool expected = state == row.expect.validation;
  const auto computed = static_cast<std::size_t>(std::count_if(
      trace.ops.begin(), trace.ops.end(), [](const Op& op) { return op.kind == OpKind::Compute || op.kind == OpKind::View; }));
  return {"replay_validation", expected,
          state + ": " + std::to_string(status.replayed) + " ops replayed, " + std::to_string(verified) +
              " edge(s) verified by perturbation, " + std::to_string(unverified) + " unverified" +
              (status.message.empty() ? "" : "; " + status.message) +
              (expected ? "" : " (the row expects " + row.expect.validation + ", " + row.expect.where.str() + ")"),
          Coverage{status.replayed, computed}};
}

bool has_float_output(const Trace& trace) {
  for (std::size_t index : trace.outputs) {
    if (trace.ops[index].dtype.is_float()) return true;
  }
  return false;
}

namespace {

// Where two readings of the objects' tensors differ (`when` says after what), or nullopt.
std::optional<std::string> state_difference(const std::vector<std::pair<std::string, Payload>>& got,
                                            const std::vector<std::pair<std::string, Payload>>& want, const std::string& when) {
  for (std::size_t i = 0; i < std::max(got.size(), want.size()); ++i) {
    if (i >= got.size() || i >= want.size() || got[i].first != want[i].first) {
      const std::string missing = i >= got.size() ? want[i].first : got[i].first;
      return "the captured objects and the eager twin's hold different tensors " + when + " (first: " + missing + ")";
    }
    const Comparison comparison = compare(want[i].second, got[i].second);
    if (!comparison.equal) return got[i].first + " " + when + " differs from the eager twin's: " + comparison.message;
  }
  return std::nullopt;
}

}  // namespace

Check check_model_afterwards(const RowCapture& capture, const EagerRun& eager) {
  if (capture.outputs_after.size() != eager.second_outputs.size()) {
    return {"model_afterwards", false,
            "called again, the captured forward returned " + std::to_string(capture.outputs_after.size()) +
                " output(s), the eager twin's second call " + std::to_string(eager.second_outputs.size())};
  }
  for (std::size_t i = 0; i < eager.second_outputs.size(); ++i) {
    const Comparison comparison = compare(eager.second_outputs[i], capture.outputs_after[i]);
    if (!comparison.equal) {
      return {"model_afterwards", false,
              "called again after the capture, output " + std::to_string(i) +
                  " differs from the eager twin's second call: " + comparison.message};
    }
  }
  if (auto difference = state_difference(capture.state_after_again, eager.state_after_again, "after the second call"))
    return {"model_afterwards", false, *difference};
  return {"model_afterwards", true,
          "called again after the capture, the forward gives what a second eager call gives, and the " +
              std::to_string(capture.state_after_again.size()) + " tensor(s) the objects hold after it equal the twin's"};
}

Check check_state_afterwards(const RowCapture& capture, const EagerRun& eager) {
  if (auto difference = state_difference(capture.state_after, eager.state_after, "after one forward"))
    return {"state_afterwards", false, *difference};
  if (capture.state_after.empty()) return {"state_afterwards", true, "the row's objects hold no tensors"};
  return {"state_afterwards", true,
          "the " + std::to_string(capture.state_after.size()) +
              " tensor(s) the row's objects hold equal the eager twin's after one forward, bit for bit"};
}

Check check_payloads_equal_alone(const Trace& trace) {
  const AloneChoice choice = choose_alone_ops(trace.live->judged_ops(trace));
  const std::vector<Payload> alone = trace.live->alone_values(trace, choice.ops);
  for (std::size_t k = 0; k < choice.ops.size(); ++k) {
    const Op& op = trace.ops[choice.ops[k]];
    // Values, every bit but a NaN's: the capture may compute an op from its parents' buffers where
    // tinygrad alone fuses them, two programs, and a NaN's sign follows the program that made it
    // (op_logsigmoid: -nan chained, nan fused).
    const Comparison comparison = compare_values(alone[k], *op.out);
    if (!comparison.equal)
      return {"payloads_equal_alone", false,
              op.label + " differs from its value realized on its own: " + comparison.message + choice.scope()};
  }
  const Coverage coverage{choice.ops.size(), choice.judged};
  if (!choice.every())
    return {"payloads_equal_alone", true, "equal their values realized on their own" + choice.scope(), coverage};
  return {"payloads_equal_alone", true,
          "all " + std::to_string(choice.ops.size()) +
              " ops the capture computed (outputs, views and leaves aside) equal their values realized on their own (costing " +
              std::to_string(choice.cost) + " graph nodes)",
          coverage};
}

namespace {

// An input op's argument position: capture labels inputs "input<position>:<n>".
std::optional<std::size_t> argument_position(const Op& op) {
  if (op.kind != OpKind::Input || !op.label.starts_with("input")) return std::nullopt;
  try {
    return static_cast<std::size_t>(std::stoul(op.label.substr(5)));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

namespace {

// Two evaluations of one gradient (the derivation over the whole graph, and the leaf's own) are two
// programs that round differently where tinygrad fuses differently, and the difference grows with
// the terms a gradient sums (a batch statistic's, a 500-step chain's) and does not shrink with a
// gradient that cancels to almost nothing (a causal mask's). So an element may differ from the leaf's
// by the larger of kLeafGradientUlps ulps of that gradient's largest element, in the narrowest float
// dtype downstream, and kLeafGradientShare of the largest gradient anywhere in the trace: a gradient
// 1% off is far outside both wherever it is not near zero.
constexpr double kLeafGradientUlps = 16.0;
constexpr double kLeafGradientShare = 0x1p-13;  // 1.2e-4

double largest_finite(const Payload& p, double largest = 0.0) {
  for (double v : p.to_doubles())
    if (std::isfinite(v)) largest = std::max(largest, std::fabs(v));
  return largest;
}

double leaf_gradient_slack(const Payload& a, const Payload& b, const DType& dtype, double trace_scale) {
  const double largest = largest_finite(b, largest_finite(a));
  int exponent = 0;
  std::frexp(largest == 0.0 ? std::numeric_limits<double>::min() : largest, &exponent);
  return std::max(kLeafGradientUlps * std::ldexp(1.0, exponent - 1 - dtype.fraction_bits), kLeafGradientShare * trace_scale);
}

}  // namespace

namespace {

// Whether a gradient differs from a truth only where the truth is inf or nan: two programs overflow
// in another order (a gelu at -300: the edges' sum gives nan where the derivation gives -inf), and
// the framework's own autograd divides 0 by 0 where its fused max equals none of the max's source's
// elements, so those elements are not judged; every other one still is. A derived inf or nan where
// the framework's gradient is finite is a difference (the derivation's own max gradient 0/0).
bool differs_only_where_not_finite(const Payload& truth, const Payload& grad, double slack) {
  const std::vector<double> want = truth.to_doubles();
  const std::vector<double> got = grad.to_doubles();
  bool not_finite = false;
  for (std::size_t k = 0; k < want.size() && k < got.size(); ++k) {
    if (!std::isfinite(want[k])) {
      not_finite = true;
    } else if (!std::isfinite(got[k]) || std::fabs(want[k] - got[k]) > slack) {
      return false;
    }
  }
  return not_finite && want.size() == got.size();
}

enum class GradientVerdict { Equal, DiffersOnlyWhereNotFinite, Differs };

// One gradient against its truth from the framework's autograd, within leaf_gradient_slack; on
// Differs, `failed` says which truth (`how`) and where.
GradientVerdict judge_gradient(const Op& op, const Payload& truth, const DType& narrowest, double trace_scale,
                               const std::string& how, Check& failed) {
  const double slack = leaf_gradient_slack(truth, *op.grad, narrowest, trace_scale);
  const Comparison comparison = compare_values(truth, *op.grad, Tolerance{.abs = slack});
  if (comparison.equal) return GradientVerdict::Equal;
  if (differs_only_where_not_finite(truth, *op.grad, slack)) return GradientVerdict::DiffersOnlyWhereNotFinite;
  failed = {"derived_grads", false,
            op.label + "'s derived gradient differs from the framework's autograd " + how + ": " + comparison.message +
                " (by more than " + std::to_string(static_cast<int>(kLeafGradientUlps)) +
                " ulps of its largest element in the narrowest float dtype downstream, and than 2^-13 of the trace's "
                "largest gradient)"};
  return GradientVerdict::Differs;
}

}  // namespace

// Every intermediate float op's derived gradient against the framework's autograd one edge at a time
// (every op the framework answers for), then with the op as a leaf: the ops the edges could not
// answer for (up to kLeafGradientLimit, evenly spread) and kLeafAnchorLimit of the others, whose
// truth is then the whole graph downstream (what the edges' tolerances could let drift, layer by
// layer). Within kLeafGradientUlps of the gradient's scale; an element where the framework's is inf or nan
// is not judged (judge_gradient), and the summary counts the ops that had one.
Check check_intermediate_grads(const Trace& trace, const GradOptions& options, std::vector<std::size_t>* unanswered) {
  std::vector<std::size_t> derived;
  for (const Op& op : trace.ops) {
    const bool intermediate = op.kind == OpKind::Compute || op.kind == OpKind::View;
    if (intermediate && op.dtype.is_float() && op.grad && op.out && op.out->numel() != 0) derived.push_back(op.index);
  }
  double trace_scale = 0.0;
  for (const Op& op : trace.ops)
    if (op.grad && op.dtype.is_float()) trace_scale = largest_finite(*op.grad, trace_scale);
  // ulps of the narrowest float dtype each gradient flows back through (a float16 layer's)
  const std::vector<DType> narrowest = narrowest_float_downstream(trace, derived);
  const std::vector<std::optional<Payload>> by_edge = trace.live->edge_gradients(trace, options, derived);
  std::vector<std::size_t> edge_checked, not_by_edge;
  std::size_t not_finite = 0;  // of not_by_edge: ops the edges' sum and the derivation overflow differently
  std::map<std::size_t, DType> narrowest_of;
  // From the outputs down: the first op whose gradient differs has readers whose gradients held, so the
  // message names the op whose own gradient is wrong, not the ops below it that read it.
  for (std::size_t k = derived.size(); k-- > 0;) {
    narrowest_of.emplace(derived[k], narrowest[k]);
    if (k >= by_edge.size() || !by_edge[k]) {
      not_by_edge.push_back(derived[k]);
      continue;
    }
    const Op& op = trace.ops[derived[k]];
    Check failed;
    const GradientVerdict verdict =
        judge_gradient(op, *by_edge[k], narrowest[k], trace_scale,
                       "one edge at a time (the sum of its readers' vector-Jacobian products "
                       "with their derived gradients, and the loss's own gradient where it is an output)",
                       failed);
    if (verdict == GradientVerdict::Differs) return failed;
    if (verdict == GradientVerdict::DiffersOnlyWhereNotFinite) {
      not_by_edge.push_back(derived[k]);
      ++not_finite;
      continue;
    }
    edge_checked.push_back(derived[k]);
  }
  std::reverse(edge_checked.begin(), edge_checked.end());
  std::reverse(not_by_edge.begin(), not_by_edge.end());
  // Then with the op as a leaf: what the edges left, and an anchor of the rest.
  const std::vector<std::size_t> left = evenly_spread(not_by_edge, kLeafGradientLimit);
  const std::vector<std::size_t> anchors = evenly_spread(edge_checked, kLeafAnchorLimit);
  std::vector<std::size_t> ops = left;
  ops.insert(ops.end(), anchors.begin(), anchors.end());
  const std::vector<std::optional<Payload>> by_leaf = trace.live->leaf_gradients(trace, options, ops);
  std::size_t leaf_checked = 0;
  std::size_t leaf_not_finite = 0;  // differ from the leaf's truth only where the framework's is inf or nan
  std::size_t leaf_cannot = 0;      // of `left`: ops the framework's autograd cannot take as a leaf
  for (std::size_t k = 0; k < ops.size(); ++k) {
    if (k >= by_leaf.size() || !by_leaf[k]) {
      if (k < left.size()) {
        ++leaf_cannot;
        if (unanswered != nullptr) unanswered->push_back(ops[k]);
      }
      continue;
    }
    const Op& op = trace.ops[ops[k]];
    Check failed;
    const GradientVerdict verdict =
        judge_gradient(op, *by_leaf[k], narrowest_of.at(ops[k]), trace_scale, "with " + op.label + " as a leaf", failed);
    if (verdict == GradientVerdict::Differs) return failed;
    if (verdict == GradientVerdict::DiffersOnlyWhereNotFinite) {
      ++leaf_not_finite;
      continue;
    }
    leaf_checked += k < left.size();
  }
  std::string summary = std::to_string(edge_checked.size()) + " of " + std::to_string(derived.size()) +
                        " intermediate gradient(s) equal the framework's autograd one edge at a time (each reader's "
                        "vector-Jacobian product with its derived gradient, summed; within " +
                        std::to_string(static_cast<int>(kLeafGradientUlps)) +
                        " ulps of each gradient's largest element, or 2^-13 of the trace's largest gradient)";
  if (!anchors.empty())
    summary += ", and " + std::to_string(anchors.size()) + " of those, evenly spread, also with the op as a leaf";
  if (!not_by_edge.empty()) {
    summary += "; the edges could not answer for " + std::to_string(not_by_edge.size());
    if (not_finite > 0)
      summary += " (" + std::to_string(not_finite) + " differ from the edges' sum only where the framework's is inf or nan)";
    summary += ": " + std::to_string(leaf_checked) + " equal the framework's autograd with the op as a leaf";
    if (not_by_edge.size() > kLeafGradientLimit) summary += " (a sample, evenly spread; the rest are not checked this way)";
    if (leaf_cannot > 0) summary += ", " + std::to_string(leaf_cannot) + " it cannot take as a leaf";
  }
  if (leaf_not_finite > 0)
    summary += "; " + std::to_string(leaf_not_finite) +
               " differ from the leaf's gradient only where the framework's is inf or nan, and are not judged there";
  return {"derived_grads", true, summary, Coverage{edge_checked.size() + leaf_checked, derived.size()}};
}

Check check_derived_grads(Trace& trace, const EagerRun& eager) {
  GradOptions options;
  options.intermediate_grads = true;
  trace.derive_grads(options);
  std::size_t exact = 0;
  std::size_t float_inputs = 0;
  std::vector<std::size_t> unanswered;  // what the framework's autograd cannot be asked about
  for (const Op* input : trace.input_ops()) {
    if (!input->dtype.is_float()) continue;
    ++float_inputs;
    const auto position = argument_position(*input);
    const auto twin = position ? eager.input_grads.find(*position) : eager.input_grads.end();
    if (twin == eager.input_grads.end()) {
      if (eager.input_grads_error.empty())
        return {"derived_grads", false, input->label + " has no gradient from the framework's autograd to compare with"};
      unanswered.push_back(input->index);
      continue;
    }
    if (!input->grad) return {"derived_grads", false, input->label + " has no derived gradient"};
    // Values, not bits: autograd on the twin and the derivation over the saved payloads are two
    // programs, and a NaN's sign follows the program (README, "What a verdict means").
    const Comparison comparison = compare_values(twin->second, *input->grad);
    if (!comparison.equal)
      return {"derived_grads", false, input->label + "'s gradient differs from the framework's autograd: " + comparison.message};
    ++exact;
  }
  const std::size_t unanswered_inputs = unanswered.size();
  Check leaves = check_intermediate_grads(trace, options, &unanswered);
  if (!leaves.passed) return leaves;
  const std::string autograd = std::to_string(exact) + " input gradient(s) equal the framework's autograd; " + leaves.detail;
  // What autograd checked; finite differences look at a few elements, so what they check counts as unchecked.
  const Coverage coverage{exact + leaves.coverage->checked, float_inputs + leaves.coverage->of};
  // Finite differences (a tolerance) only where autograd could not answer.
  if (unanswered.empty()) return {"derived_grads", true, autograd, coverage};
  const GradientCheck check = check_grads_against_finite_differences(trace, options, unanswered);
  // Nothing comparable: a fail where an input has no check at all, else the detail says what is unchecked.
  const bool passed = check.incomparable ? unanswered_inputs == 0 : check.passed;
  return {"derived_grads", passed,
          autograd + "; finite differences on the " + std::to_string(unanswered.size()) +
              " op(s) autograd could not answer for: " + check.detail,
          coverage};
}

Check check_tlspec_round_trip(const Trace& trace, const std::string& id) {
  const auto directory = std::filesystem::temp_directory_path() / ("tl-" + id + "-" + std::to_string(::getpid()) + ".tlspec");
  trace.save(directory.string());
  const Trace loaded = Trace::load(directory.string());
  std::filesystem::remove_all(directory);
  const auto difference = first_difference(trace, loaded);
  if (difference) return {"tlspec_round_trip", false, *difference};
  if (loaded.has_live_payloads()) return {"tlspec_round_trip", false, "a loaded bundle claims live payloads"};
  return {"tlspec_round_trip", true,
          std::to_string(loaded.size()) + " ops, payloads and gradients identical after save and load"};
}

void record_escape(CellResult& result, const std::string& check, const std::exception_ptr& escaped) {
  try {
    std::rethrow_exception(escaped);
  } catch (const BackendUnsupportedError& error) {
    result.checks.push_back({check, false, error.what()});
    result.refusal_code = std::string(error.code_name());
    result.message = error.what();
  } catch (const PythonError& error) {
    result.checks.push_back({check, false, error.what()});
    result.message = std::string(error.what()) + "\n" + error.traceback();
  } catch (const std::exception& error) {
    result.checks.push_back({check, false, error.what()});
    result.message = error.what();
  }
}

void settle(CellResult& result, bool refusal_expected) {
  const auto failed = std::find_if(result.checks.begin(), result.checks.end(), [](const Check& check) { return !check.passed; });
  if (failed == result.checks.end()) {
    result.state = CellState::Passed;
    return;
  }
  result.state = !refusal_expected && !result.refusal_code.empty() ? CellState::Refused : CellState::Failed;
  if (result.message.empty()) result.message = failed->name + ": " + failed->detail;
}

}  // namespace tl
