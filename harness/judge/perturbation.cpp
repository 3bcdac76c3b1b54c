#include "harness/judge/perturbation.h"

#include <cmath>
#include <limits>

namespace tl {

namespace {

// An integer dtype's range, and its elements read and written as integers of their width: a
// double holds neither an int64 near 2^63 nor a uint64 past 2^53 exactly.
__extension__ using Wide = __int128;  // holds every int64 and uint64, and their sums with small numbers

struct IntegerRange {
  Wide low;
  Wide high;
};

IntegerRange range_of(const DType& dtype) {
  const int bits = static_cast<int>(dtype.itemsize) * 8;
  if (dtype.kind == DTypeKind::UnsignedInt) return {0, (Wide{1} << bits) - 1};
  return {-(Wide{1} << (bits - 1)), (Wide{1} << (bits - 1)) - 1};
}

Wide integer_at(const Payload& payload, std::int64_t i) {
  const std::uint64_t raw = payload.bits(i);
  if (payload.dtype.kind == DTypeKind::UnsignedInt) return raw;
  const unsigned unused = 64 - 8 * static_cast<unsigned>(payload.dtype.itemsize);
  return static_cast<std::int64_t>(raw << unused) >> unused;  // sign-extended from the element's width
}

// The values of each try, per kind: (value, index, dtype) -> tried value.
using FloatTry = double (*)(double, std::int64_t);
using IntegerTry = Wide (*)(Wide, std::int64_t, const IntegerRange&);

Payload tried(const Payload& parent, FloatTry as_float, IntegerTry as_integer) {
  Payload payload = parent;
  if (parent.dtype.is_float()) {
    std::vector<double> values = parent.to_doubles();
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = as_float(values[i], static_cast<std::int64_t>(i));
    return Payload::from_doubles(parent.dtype, parent.shape, values);
  }
  const IntegerRange range = parent.dtype.kind == DTypeKind::Bool ? IntegerRange{0, 1} : range_of(parent.dtype);
  for (std::int64_t i = 0; i < parent.numel(); ++i) {
    const Wide value = parent.dtype.kind == DTypeKind::Bool ? (parent.bits(i) != 0 ? 1 : 0) : integer_at(parent, i);
    payload.set_bits(i, static_cast<std::uint64_t>(as_integer(value, i, range)));
  }
  return payload;
}

// A bool's range is [0, 1]: shifting flips it, negating makes it true, the spread alternates.
bool is_bool(const IntegerRange& range) { return range.low == 0 && range.high == 1; }

double shifted_float(double v, std::int64_t) { return v + 1.0 + 0.5 * std::fabs(v); }
Wide shifted_integer(Wide v, std::int64_t, const IntegerRange& range) {
  if (is_bool(range)) return v != 0 ? 0 : 1;
  return v + 1 <= range.high ? v + 1 : v - 1;
}

double negated_float(double v, std::int64_t) { return -v - 1.0; }
Wide negated_integer(Wide v, std::int64_t, const IntegerRange& range) {
  if (is_bool(range)) return 1;
  if (range.low == 0) return v + 3 <= range.high ? v + 3 : v - 3;
  // Past -(max) only the smallest value lies: kept away from it, as from the top.
  return -v - 3 >= -range.high ? -v - 3 : v - 3;
}

constexpr double kSpreadFloats[] = {0.5, -1.5, 2.25, -0.75, 3.0, 1e-3, -7.0, 0.0, 1.25, -3.5, -1e-4};
constexpr int kSpreadIntegers[] = {1, -2, 3, 5, -7, 0, 11, 2, -1, 7};

double spread_float(double, std::int64_t i) { return kSpreadFloats[static_cast<std::size_t>(i) % std::size(kSpreadFloats)]; }
Wide spread_integer(Wide, std::int64_t i, const IntegerRange& range) {
  if (is_bool(range)) return i % 2;
  const int v = kSpreadIntegers[static_cast<std::size_t>(i) % std::size(kSpreadIntegers)];
  return range.low == 0 ? std::abs(v) : v;
}

bool all_of(const Payload& payload, bool (*predicate)(double)) {
  for (std::int64_t i = 0; i < payload.numel(); ++i) {
    if (!predicate(payload.element(i))) return false;
  }
  return true;
}

}  // namespace

std::vector<Payload> perturbation_tries(const Payload& parent) {
  return {tried(parent, shifted_float, shifted_integer), tried(parent, negated_float, negated_integer),
          tried(parent, spread_float, spread_integer)};
}

std::string unverified_reason(const Op& op, const Op& parent, const Payload& plain,
                              const std::optional<std::string>& framework_reason) {
  if (parent.out->numel() == 0) return "the parent is empty: it holds no value to change";
  if (plain.numel() == 0) return "the output is empty";
  if (all_of(plain, [](double v) { return !std::isfinite(v); })) return "the output is inf or nan wherever it was checked";
  if (framework_reason) return *framework_reason;
  if (!op.dtype.is_float() || !parent.dtype.is_float())
    return "integer arithmetic, a comparison or a cast truncates every tried change away";
  return "saturated: no tried value of this parent changed the output where it was checked";
}

}  // namespace tl
