#include "backends/tinygrad/perturbation.h"

#include <cmath>
#include <limits>

namespace tl::tinygrad {

namespace {

// The largest magnitude an integer dtype holds, for keeping tried values in range.
double integer_limit(const DType& dtype) {
  return std::ldexp(1.0, static_cast<int>(dtype.itemsize) * 8 - (dtype.kind == DTypeKind::UnsignedInt ? 0 : 1)) - 1.0;
}

Payload tried(const Payload& parent, double (*value)(double, std::int64_t, const DType&)) {
  std::vector<double> values = parent.to_doubles();
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = value(values[i], static_cast<std::int64_t>(i), parent.dtype);
  return Payload::from_doubles(parent.dtype, parent.shape, values);
}

double shifted(double v, std::int64_t, const DType& dtype) {
  if (dtype.kind == DTypeKind::Bool) return v != 0.0 ? 0.0 : 1.0;
  if (dtype.is_float()) return v + 1.0 + 0.5 * std::fabs(v);
  return v + 1.0 <= integer_limit(dtype) ? v + 1.0 : v - 1.0;
}

double negated(double v, std::int64_t, const DType& dtype) {
  if (dtype.kind == DTypeKind::Bool) return 1.0;
  if (dtype.is_float()) return -v - 1.0;
  if (dtype.kind == DTypeKind::UnsignedInt) return v + 3.0 <= integer_limit(dtype) ? v + 3.0 : v - 3.0;
  return -v - 3.0 >= -integer_limit(dtype) ? -v - 3.0 : v - 3.0;
}

double spread(double, std::int64_t i, const DType& dtype) {
  static constexpr double kFloats[] = {0.5, -1.5, 2.25, -0.75, 3.0, 1e-3, -7.0, 0.0, 1.25, -3.5, -1e-4};
  static constexpr double kIntegers[] = {1, -2, 3, 5, -7, 0, 11, 2, -1, 7};
  if (dtype.kind == DTypeKind::Bool) return static_cast<double>(i % 2);
  if (dtype.is_float()) return kFloats[static_cast<std::size_t>(i) % std::size(kFloats)];
  const double v = kIntegers[static_cast<std::size_t>(i) % std::size(kIntegers)];
  return dtype.kind == DTypeKind::UnsignedInt ? std::fabs(v) : v;
}

bool all_of(const Payload& payload, bool (*predicate)(double)) {
  for (std::int64_t i = 0; i < payload.numel(); ++i) {
    if (!predicate(payload.element(i))) return false;
  }
  return true;
}

const Op* parent_at(const Trace& trace, const Op& op, std::size_t position) {
  for (const ParentRef& parent : op.parents) {
    if (parent.position == position) return &trace.ops[parent.op];
  }
  return nullptr;
}

}  // namespace

std::vector<Payload> perturbation_tries(const Payload& parent) {
  return {tried(parent, shifted), tried(parent, negated), tried(parent, spread)};
}

std::string unverified_reason(const Trace& trace, const Op& op, const Op& parent, const Payload& plain) {
  if (parent.out->numel() == 0) return "the parent is empty: it holds no value to change";
  if (plain.numel() == 0) return "the output is empty";
  if (all_of(plain, [](double v) { return !std::isfinite(v); })) return "the output is inf or nan wherever it was checked";
  if (op.framework_op == "POW") {
    const Op* exponent = parent_at(trace, op, 1);
    if (exponent != nullptr && exponent != &parent && all_of(*exponent->out, [](double v) { return v == 0.0; }))
      return "the exponent is zero";
  }
  if (op.framework_op == "WHERE") return "the condition selects the other branch wherever it was checked";
  if (!op.dtype.is_float() || !parent.dtype.is_float())
    return "integer arithmetic, a comparison or a cast truncates every tried change away";
  return "saturated: no tried value of this parent changed the output where it was checked";
}

}  // namespace tl::tinygrad
