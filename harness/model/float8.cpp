#include "harness/model/float8.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tl {

std::optional<Float8Format> float8_format(std::string_view name) {
  if (name == "float8_e4m3fn") return Float8Format{3, 7, false, false, 0x7e};
  if (name == "float8_e5m2") return Float8Format{2, 15, true, false, 0x7b};
  if (name == "float8_e4m3fnuz") return Float8Format{3, 8, false, true, 0x7f};
  if (name == "float8_e5m2fnuz") return Float8Format{2, 16, false, true, 0x7f};
  return std::nullopt;
}

double float8_to_double(std::uint8_t bits, const Float8Format& format) {
  constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
  if (format.fnuz && bits == 0x80) return kNan;
  const bool negative = (bits & 0x80) != 0;
  const int exponent_field = (bits & 0x7f) >> format.mantissa_bits;
  const int mantissa = bits & ((1 << format.mantissa_bits) - 1);
  const int exponent_max = (1 << (7 - format.mantissa_bits)) - 1;
  if (format.ieee_special && exponent_field == exponent_max)
    return mantissa != 0 ? kNan : (negative ? -1.0 : 1.0) * std::numeric_limits<double>::infinity();
  if (!format.ieee_special && !format.fnuz && (bits & 0x7f) == 0x7f) return kNan;
  // A subnormal is mantissa * 2^(1 - bias - m); a normal (2^m + mantissa) * 2^(e - bias - m).
  const double magnitude = exponent_field == 0 ? std::ldexp(mantissa, 1 - format.bias - format.mantissa_bits)
                                               : std::ldexp(mantissa + (1 << format.mantissa_bits),
                                                            exponent_field - format.bias - format.mantissa_bits);
  return negative ? -magnitude : magnitude;
}

std::uint8_t double_to_float8(double value, const Float8Format& format) {
  const std::uint8_t sign = std::signbit(value) ? 0x80 : 0x00;
  if (!std::isfinite(value)) {
    if (format.fnuz) return 0x80;
    if (format.ieee_special) return static_cast<std::uint8_t>(sign | (std::isinf(value) ? 0x7c : 0x7f));
    return static_cast<std::uint8_t>(sign | 0x7f);
  }
  const double magnitude = std::fabs(value);
  int exponent = 0;
  std::frexp(magnitude, &exponent);  // magnitude in [2^(exponent-1), 2^exponent)
  // The grid spacing at this magnitude (fixed below the smallest normal); the quotient is exact and
  // at most 2^(m+1), whatever the magnitude.
  const int kept = std::max(exponent - 1, 1 - format.bias);
  const double steps = std::ldexp(magnitude, format.mantissa_bits - kept);
  double rounded = std::floor(steps);
  const double remainder = steps - rounded;
  if (remainder > 0.5 || (remainder == 0.5 && std::fmod(rounded, 2.0) != 0.0)) rounded += 1.0;
  // A normal's significand carries its hidden bit into the exponent field, a subnormal's is the
  // field (and a carry out of it the smallest normal): one addition encodes both. Past the largest
  // finite, saturated.
  const long encoded = ((static_cast<long>(kept) + format.bias - 1) << format.mantissa_bits) + static_cast<long>(rounded);
  const auto code = magnitude == 0.0 ? std::uint8_t{0} : static_cast<std::uint8_t>(std::min<long>(encoded, format.max_finite));
  if (format.fnuz && code == 0) return 0;  // no negative zero
  return static_cast<std::uint8_t>(sign | code);
}

}  // namespace tl
