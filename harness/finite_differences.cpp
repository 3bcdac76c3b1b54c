#include "harness/finite_differences.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace tl {
namespace {

constexpr double kStep = 1e-2;
constexpr std::int64_t kElementsPerOp = 3;
constexpr std::size_t kIntermediateOps = 3;

struct Sample {
  std::size_t op;
  std::int64_t element;
};

}  // namespace

GradientCheck check_grads_against_finite_differences(const Trace& trace, const GradOptions& options) {
  GradientCheck check;
  std::vector<std::size_t> ops;
  for (const Op& op : trace.ops) {
    if (op.kind == OpKind::Input && op.dtype.is_float()) ops.push_back(op.index);
  }
  std::size_t intermediates = 0;
  for (auto it = trace.ops.rbegin(); it != trace.ops.rend() && intermediates < kIntermediateOps; ++it) {
    if (it->kind == OpKind::Compute && it->dtype.is_float() && it->dtype.itemsize >= 4) {
      ops.push_back(it->index);
      ++intermediates;
    }
  }
  std::vector<Sample> samples;
  std::vector<std::map<std::size_t, Payload>> replacements;
  for (std::size_t index : ops) {
    const Op& op = trace.ops[index];
    if (!op.grad) {
      check.detail = "op " + op.label + " has no derived gradient";
      return check;
    }
    const std::int64_t numel = op.out->numel();
    for (std::int64_t k = 0; k < std::min(numel, kElementsPerOp); ++k) {
      const std::int64_t element = (k * 7919) % numel;  // spread the samples over the tensor
      for (double sign : {1.0, -1.0}) {
        std::vector<double> values = op.out->to_doubles();
        values[static_cast<std::size_t>(element)] += sign * kStep;
        replacements.push_back({{index, Payload::from_doubles(op.dtype, op.shape, values)}});
      }
      samples.push_back({index, element});
    }
  }
  if (samples.empty()) {
    check.detail = "no float op to compare";
    return check;
  }
  const std::vector<double> losses = trace.live->losses(trace, options, replacements);
  double worst = -1.0;
  std::string worst_text;
  check.passed = true;
  for (std::size_t s = 0; s < samples.size(); ++s) {
    const Op& op = trace.ops[samples[s].op];
    const double numeric = (losses[2 * s] - losses[2 * s + 1]) / (2 * kStep);
    const double derived = op.grad->element(samples[s].element);
    const double error = std::fabs(numeric - derived);
    // float32 losses and a finite step: a few percent relative, with an absolute floor near zero.
    const double allowed = 3e-2 * std::max(std::fabs(numeric), std::fabs(derived)) + 2e-3;
    std::ostringstream text;
    text << op.label << "[" << samples[s].element << "]: derived " << derived << ", finite difference " << numeric;
    if (error > allowed) {
      check.passed = false;
      check.detail = text.str();
      return check;
    }
    if (error > worst) {
      worst = error;
      worst_text = text.str();
    }
    ++check.compared;
  }
  check.detail = std::to_string(check.compared) + " elements agree; worst " + worst_text;
  return check;
}

}  // namespace tl
