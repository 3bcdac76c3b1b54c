#include "harness/cells/finite_differences.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include "harness/model/live_graph.h"

namespace tl {
namespace {

// The step and the tolerance follow the narrowest float dtype downstream of the perturbed op (its
// own included): every value the perturbation reaches is rounded to that dtype, whose machine
// epsilon is eps = 2^-fraction_bits. A central difference with step h has a truncation error
// ~ h^2 |f'''| / 6 and a rounding error ~ eps |f| / h; their sum is smallest near h ~ cbrt(eps),
// where both are of order eps^(2/3) (relative, for a function of unit scale). So:
//   step      h = max(1e-2, cbrt(eps), ulp(x)): float64 and float32 1e-2 (cbrt(2^-23) = 4.9e-3 is
//             under the floor, which keeps the step the float32 rows were tuned with), float16
//             0.099, bfloat16 0.198. Absolute, not scaled by |x|: the truncation error follows the
//             function's curvature, not |x|, and x's own rounding costs nothing since the quotient
//             divides by the stored difference; at least one ulp of x in the narrowest dtype, so
//             that x+ and x- are distinct values there;
//   relative  max(3e-2, 3 eps^(2/3)): float64/float32/float16 3% (float16's 3 * 2^(-20/3) = 2.95%),
//             bfloat16 11.8%: a gradient 1.5x too large or of the wrong sign is still caught;
//   absolute  2e-3, plus the rounding of the outputs the loss sums, eps * sum|outputs| / (x+ - x-),
//             for elements whose gradient is small next to the outputs (negligible for float32).
// x + h and x - h are rounded to the narrowest dtype's grid, then stored in the op's dtype, and the
// quotient divides by the difference of the values as stored, not by 2h.
constexpr double kMinStep = 1e-2;
constexpr double kMinRelative = 3e-2;
constexpr double kRelativePerEps = 3.0;  // times eps^(2/3)
constexpr double kAbsolute = 2e-3;
constexpr std::int64_t kElementsPerOp = 3;
constexpr std::size_t kIntermediateOps = 3;

struct Sample {
  std::size_t op;
  std::int64_t element;
  double below;  // x - h and x + h as stored
  double above;
  double eps;  // of the narrowest float dtype downstream
};

// The float dtype with the fewest fraction bits among `start` and every op that reads it, directly
// or not.
DType narrowest_downstream(const Trace& trace, const std::vector<std::vector<std::size_t>>& children, std::size_t start) {
  DType narrowest = trace.ops[start].dtype;
  std::vector<bool> seen(trace.ops.size(), false);
  std::vector<std::size_t> stack{start};
  seen[start] = true;
  while (!stack.empty()) {
    const Op& op = trace.ops[stack.back()];
    stack.pop_back();
    if (op.dtype.is_float() && op.dtype.fraction_bits < narrowest.fraction_bits) narrowest = op.dtype;
    for (std::size_t child : children[op.index]) {
      if (!seen[child]) {
        seen[child] = true;
        stack.push_back(child);
      }
    }
  }
  return narrowest;
}

// `value` as it is stored after rounding to `dtype`.
double stored(const DType& dtype, double value) { return Payload::from_doubles(dtype, {1}, {value}).element(0); }

std::vector<std::vector<std::size_t>> children_of(const Trace& trace);

}  // namespace

std::vector<DType> narrowest_float_downstream(const Trace& trace, const std::vector<std::size_t>& starts) {
  const std::vector<std::vector<std::size_t>> children = children_of(trace);
  std::vector<DType> narrowest;
  narrowest.reserve(starts.size());
  for (std::size_t start : starts) narrowest.push_back(narrowest_downstream(trace, children, start));
  return narrowest;
}

// The float compute ops whose samples are cheapest to re-evaluate: each sample recomputes what lies
// below the op, so the ones with the fewest elements downstream (later ops first on a tie). A
// matmul's inputs would cost a whole 64x64x64 product per sample; the rule checked is the same.
std::vector<std::size_t> cheapest_intermediates(const Trace& trace, const std::vector<std::vector<std::size_t>>& children) {
  std::vector<std::pair<std::int64_t, std::size_t>> costs;  // (elements downstream, -index order)
  for (const Op& op : trace.ops) {
    if (op.kind != OpKind::Compute || !op.dtype.is_float()) continue;
    std::vector<bool> seen(trace.ops.size(), false);
    std::vector<std::size_t> stack{op.index};
    std::int64_t elements = 0;
    while (!stack.empty()) {
      const std::size_t at = stack.back();
      stack.pop_back();
      for (std::size_t child : children[at]) {
        if (seen[child]) continue;
        seen[child] = true;
        elements += trace.ops[child].out ? trace.ops[child].out->numel() : 0;
        stack.push_back(child);
      }
    }
    costs.emplace_back(elements, op.index);
  }
  std::stable_sort(costs.begin(), costs.end(),
                   [](const auto& a, const auto& b) { return a.first != b.first ? a.first < b.first : a.second > b.second; });
  std::vector<std::size_t> chosen;
  for (std::size_t i = 0; i < costs.size() && chosen.size() < kIntermediateOps; ++i) chosen.push_back(costs[i].second);
  return chosen;
}

namespace {

std::vector<std::vector<std::size_t>> children_of(const Trace& trace) {
  std::vector<std::vector<std::size_t>> children(trace.ops.size());
  for (const Op& op : trace.ops) {
    for (const ParentRef& parent : op.parents) {
      if (parent.op < children.size()) children[parent.op].push_back(op.index);
    }
  }
  return children;
}

// The float inputs (unless only intermediates are asked for) and the cheapest intermediates; a
// forward with neither (it returns a closure tensor) gets its closures, and only then, since a bias
// perturbed as a whole moves every element it reaches across a kink.
std::vector<std::size_t> checked_ops(const Trace& trace, const std::vector<std::vector<std::size_t>>& children,
                                     bool intermediates_only) {
  std::vector<std::size_t> ops;
  for (const Op& op : trace.ops) {
    if (!intermediates_only && op.kind == OpKind::Input && op.dtype.is_float()) ops.push_back(op.index);
  }
  for (std::size_t index : cheapest_intermediates(trace, children)) ops.push_back(index);
  if (ops.empty() && !intermediates_only) {
    for (const Op& op : trace.ops) {
      if (op.kind == OpKind::Constant && op.constant_kind == "closure" && op.dtype.is_float()) ops.push_back(op.index);
    }
  }
  return ops;
}

// The scale of the loss's own rounding: the default loss sums every float output. Not finite when an
// output holds inf or nan.
double output_magnitude(const Trace& trace) {
  double magnitude = 0.0;
  for (const Op* output : trace.output_ops()) {
    if (!output->dtype.is_float()) continue;
    for (double v : output->out->to_doubles()) magnitude += std::fabs(v);
  }
  return magnitude;
}

// Up to kElementsPerOp samples of `index`, spread over its elements, each with the two payloads
// (x + h, then x - h in that element) the loss is re-evaluated with.
void add_samples(const Trace& trace, const std::vector<std::vector<std::size_t>>& children, std::size_t index,
                 std::vector<Sample>& samples, std::vector<std::map<std::size_t, Payload>>& replacements) {
  const Op& op = trace.ops[index];
  const DType narrowest = narrowest_downstream(trace, children, index);
  const double eps = std::ldexp(1.0, -narrowest.fraction_bits);
  const std::int64_t numel = op.out->numel();
  for (std::int64_t k = 0; k < std::min(numel, kElementsPerOp); ++k) {
    const std::int64_t element = (k * 7919) % numel;
    const double x = op.out->element(element);
    const double ulp = x == 0.0 || !std::isfinite(x) ? 0.0 : std::ldexp(eps, std::ilogb(x));
    const double step = std::max({kMinStep, std::cbrt(eps), ulp});
    Sample sample{index, element, stored(op.dtype, stored(narrowest, x - step)), stored(op.dtype, stored(narrowest, x + step)),
                  eps};
    if (!std::isfinite(sample.below) || !std::isfinite(sample.above) || !(sample.above > sample.below)) continue;
    for (double value : {sample.above, sample.below}) {
      std::vector<double> values = op.out->to_doubles();
      values[static_cast<std::size_t>(element)] = value;
      replacements.push_back({{index, Payload::from_doubles(op.dtype, op.shape, values)}});
    }
    samples.push_back(sample);
  }
}

// Each sample's derived gradient against its central difference, at the dtype's precision; the
// first disagreement fails the check, naming the element, else the detail names the worst agreement.
void compare_samples(const Trace& trace, const std::vector<Sample>& samples, const std::vector<double>& losses, double magnitude,
                     GradientCheck& check) {
  double worst = -1.0;
  std::string worst_text;
  check.passed = true;
  for (std::size_t s = 0; s < samples.size(); ++s) {
    const Sample& sample = samples[s];
    const Op& op = trace.ops[sample.op];
    const double spread = sample.above - sample.below;
    // A loss that is inf or nan (an output holds one) has no finite difference to compare.
    if (!std::isfinite(losses[2 * s]) || !std::isfinite(losses[2 * s + 1])) {
      ++check.skipped;
      continue;
    }
    const double numeric = (losses[2 * s] - losses[2 * s + 1]) / spread;
    const double derived = op.grad->element(sample.element);
    const double error = std::fabs(numeric - derived);
    const double relative = std::max(kMinRelative, kRelativePerEps * std::cbrt(sample.eps * sample.eps));
    const double allowed =
        relative * std::max(std::fabs(numeric), std::fabs(derived)) + kAbsolute + sample.eps * magnitude / spread;
    std::ostringstream text;
    text << op.label << "[" << sample.element << "]: derived " << derived << ", finite difference " << numeric;
    if (!(error <= allowed)) {  // a NaN on either side fails too
      text << " (allowed " << allowed << ")";
      check.passed = false;
      check.detail = text.str();
      return;
    }
    if (error > worst) {
      worst = error;
      worst_text = text.str();
    }
    ++check.compared;
  }
  check.detail = std::to_string(check.compared) + " elements agree; worst " + worst_text +
                 (check.skipped != 0 ? "; " + std::to_string(check.skipped) + " sample(s) with an inf or nan loss skipped" : "");
}

}  // namespace

GradientCheck check_grads_against_finite_differences(const Trace& trace, const GradOptions& options, bool intermediates_only) {
  GradientCheck check =
      check_grads_against_finite_differences(trace, options, checked_ops(trace, children_of(trace), intermediates_only));
  // Nothing comparable: passed only where autograd checked the inputs already.
  if (check.incomparable) check.passed = intermediates_only;
  return check;
}

GradientCheck check_grads_against_finite_differences(const Trace& trace, const GradOptions& options,
                                                     const std::vector<std::size_t>& ops) {
  GradientCheck check;
  if (options.loss.empty() && !std::isfinite(output_magnitude(trace))) {
    // The default loss sums every float output: with an inf or nan among them at the captured values,
    // no difference of it is finite (nor, across the singularity that made it, meaningful).
    check.incomparable = true;
    check.detail = "no finite loss to compare (an output holds inf or nan)";
    return check;
  }
  const std::vector<std::vector<std::size_t>> children = children_of(trace);
  std::vector<Sample> samples;
  std::vector<std::map<std::size_t, Payload>> replacements;
  for (std::size_t index : ops) {
    if (!trace.ops[index].grad) {
      check.detail = "op " + trace.ops[index].label + " has no derived gradient";
      return check;
    }
    add_samples(trace, children, index, samples, replacements);
  }
  if (samples.empty()) {
    check.incomparable = true;
    check.detail = "no float op to compare";
    return check;
  }
  compare_samples(trace, samples, trace.live->losses(trace, options, replacements), output_magnitude(trace), check);
  if (check.passed && check.compared == 0) {
    check.passed = false;
    check.incomparable = true;
    check.detail = "no finite loss to compare (" + std::to_string(check.skipped) + " sample(s) with an inf or nan loss)";
  }
  return check;
}

}  // namespace tl
