// The four 8-bit float formats tinygrad has (fp8e4m3, fp8e5m2 and their "fnuz" variants), named as
// ml_dtypes names them. Decoding and encoding follow tinygrad 0.13's own conversions
// (tinygrad/dtype.py, fp8_to_float and float_to_fp8): round to nearest with ties to even; a finite
// value past the largest finite saturates to it; e4m3fn has no infinity (inf and nan encode NaN,
// 0x7f with the sign), the fnuz formats have neither infinity nor negative zero (NaN is 0x80).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tl {

struct Float8Format {
  int mantissa_bits;        // stored fraction bits
  int bias;                 // exponent bias
  bool ieee_special;        // the all-ones exponent holds inf and nan (e5m2)
  bool fnuz;                // no inf, no -0, 0x80 is NaN
  std::uint8_t max_finite;  // the largest finite code, sign bit clear
};

// The format of payload dtype `name` ("float8_e4m3fn", ...), or nullopt for any other dtype.
std::optional<Float8Format> float8_format(std::string_view name);

double float8_to_double(std::uint8_t bits, const Float8Format& format);
std::uint8_t double_to_float8(double value, const Float8Format& format);

}  // namespace tl
