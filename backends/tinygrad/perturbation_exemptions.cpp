#include "backends/tinygrad/perturbation_exemptions.h"

#include <cmath>
#include <cstdint>
#include <map>

namespace tl::tinygrad {

namespace {

// How far a float parent's value moves under perturbation.
double float_shift(double v) { return 1.0 + 0.5 * std::fabs(v); }

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

bool all_zero(const Payload& payload) {
  return all_values(payload, [](double v) { return v == 0.0; });
}

bool all_nonzero(const Payload& payload) {
  return all_values(payload, [](double v) { return v != 0.0; });
}

// The op's parent at argument `position`, or null when that argument is not an op (a literal kept
// in the graph, a shape argument).
const Op* parent_at(const Trace& trace, const Op& op, std::size_t position) {
  for (const ParentRef& parent : op.parents) {
    if (parent.position == position) return &trace.ops[parent.op];
  }
  return nullptr;
}

// Exemptions that hold whatever the op is: nothing to change, or nothing comparable.
std::optional<std::string> value_exemption(const Trace& trace, const Op& op, std::size_t position) {
  if (op.out->numel() == 0) return "the output is empty (a slice past the end)";
  if (const Op* perturbed_parent = parent_at(trace, op, position);
      perturbed_parent != nullptr && perturbed_parent->out && perturbed_parent->out->numel() == 0) {
    return "the parent is empty (e.g. a zero-width slice): it holds no value to change";
  }
  if (!finite(*op.out)) return "the output holds non-finite values";
  return std::nullopt;
}

// WHERE(condition, then, else): a branch the condition never selects cannot reach the output.
std::optional<std::string> where_exemption(const Trace& trace, const Op& op, std::size_t position) {
  const Op* condition = parent_at(trace, op, 0);
  if (position == 0) return "both branches hold the same values where the condition flips";
  if (condition != nullptr && position == 1 && all_zero(*condition->out)) {
    return "the condition never selects this branch (e.g. a relu whose inputs are all negative)";
  }
  if (condition != nullptr && position == 2 && all_nonzero(*condition->out)) return "the condition never selects this branch";
  return std::nullopt;
}

// Exemptions that depend on what the op computes.
std::optional<std::string> op_exemption(const Trace& trace, const Op& op, std::size_t position) {
  const std::string& name = op.framework_op;
  if (name == "CMPLT" || name == "CMPNE" || name == "CMPEQ") return "a comparison far from its boundary";
  if (name == "WHERE") return where_exemption(trace, op, position);
  if (name == "MUL") {
    const Op* other = parent_at(trace, op, position == 0 ? 1 : 0);
    if (other != nullptr && all_zero(*other->out)) return "multiplied by zero";
    return std::nullopt;
  }
  if (name == "MAX") return "the other operand dominates the maximum";
  if (name == "AFTER" && position == 0) {
    const Op* value = parent_at(trace, op, 1);
    if (value != nullptr && value->out->numel() == op.out->numel()) return "the write covers the whole buffer";
    return std::nullopt;
  }
  if (name == "ADD") {
    const Op* perturbed_parent = parent_at(trace, op, position);
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

}  // namespace

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

std::optional<std::string> exemption(const Trace& trace, const Op& op, std::size_t position) {
  if (auto why = value_exemption(trace, op, position)) return why;
  return op_exemption(trace, op, position);
}

}  // namespace tl::tinygrad
