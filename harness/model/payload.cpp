#include "harness/model/payload.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "harness/model/float8.h"

namespace tl {
namespace {

template <typename T>
T load(const std::uint8_t* at) {
  T value;
  std::memcpy(&value, at, sizeof(T));
  return value;
}

template <typename T>
void store(std::uint8_t* at, T value) {
  std::memcpy(at, &value, sizeof(T));
}

double half_to_double(std::uint16_t bits) {
  const int sign = (bits >> 15) != 0 ? -1 : 1;
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  if (exponent == 31)  // a NaN keeps its sign, as bfloat16's and float32's do widened
    return mantissa != 0 ? std::copysign(std::numeric_limits<double>::quiet_NaN(), sign)
                         : sign * std::numeric_limits<double>::infinity();
  return sign * std::ldexp(mantissa + 1024, exponent - 25);
}

// `value` rounded once, to nearest with ties to even, into a 16-bit binary float with
// `mantissa_bits` stored fraction bits and `exponent_bits` exponent bits (float16: 10 and 5,
// bfloat16: 7 and 8), straight from the double's bits: no double rounding through float32.
// Gradual underflow to subnormals, overflow to infinity, NaN kept a (quiet) NaN with its sign.
std::uint16_t round_to_binary16(double value, int mantissa_bits, int exponent_bits) {
  const auto bits = std::bit_cast<std::uint64_t>(value);
  const auto sign = static_cast<std::uint16_t>((bits >> 48) & 0x8000);
  const std::uint16_t infinity = static_cast<std::uint16_t>(((1u << exponent_bits) - 1) << mantissa_bits);
  if (std::isnan(value)) return static_cast<std::uint16_t>(sign | infinity | (1u << (mantissa_bits - 1)));
  const int double_exponent = static_cast<int>((bits >> 52) & 0x7ff);
  // Double subnormals (below 2^-1022) are far under half the smallest subnormal of either format.
  if (double_exponent == 0) return sign;
  if (double_exponent == 0x7ff) return static_cast<std::uint16_t>(sign | infinity);
  const int bias = (1 << (exponent_bits - 1)) - 1;
  const int exponent = double_exponent - 1023;  // |value| = significand * 2^(exponent - 52)
  if (exponent > bias + 1) return static_cast<std::uint16_t>(sign | infinity);
  const std::uint64_t significand = (bits & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{1} << 52);
  // Keep the bits above the target's spacing at this magnitude (fixed below the smallest normal).
  const int kept_exponent = std::max(exponent, 1 - bias);
  const int shift = 52 - mantissa_bits + (kept_exponent - exponent);
  if (shift > 53) return sign;  // under a quarter of the smallest subnormal
  std::uint64_t rounded = significand >> shift;
  const std::uint64_t remainder = significand & ((std::uint64_t{1} << shift) - 1);
  const std::uint64_t half = std::uint64_t{1} << (shift - 1);
  if (remainder > half || (remainder == half && (rounded & 1) != 0)) ++rounded;
  // A normal's significand carries its hidden bit into the exponent field; a subnormal's is the
  // field (and a carry out of it is the smallest normal): one addition encodes both.
  const std::uint64_t encoded = (static_cast<std::uint64_t>(kept_exponent + bias - 1) << mantissa_bits) + rounded;
  if (encoded >= infinity) return static_cast<std::uint16_t>(sign | infinity);
  return static_cast<std::uint16_t>(sign | encoded);
}

std::uint16_t double_to_half(double value) { return round_to_binary16(value, 10, 5); }

std::uint16_t double_to_bfloat16(double value) { return round_to_binary16(value, 7, 8); }

// The spacing of `dtype` values around magnitude `value`.
double ulp(const DType& dtype, double value) {
  int exponent = 0;
  std::frexp(value == 0.0 ? std::numeric_limits<double>::min() : value, &exponent);
  return std::ldexp(1.0, exponent - 1 - dtype.fraction_bits);
}

}  // namespace

std::int64_t Payload::numel() const {
  // Checked: a shape read from a file can multiply past 2^63 (and wrap to a small count).
  std::int64_t count = 1;
  bool empty = false;
  bool overflow = false;
  for (std::int64_t dim : shape) {
    if (dim < 0) throw std::length_error("payload shape " + shape_string(shape) + " has a negative size");
    empty = empty || dim == 0;
    overflow = overflow || __builtin_mul_overflow(count, dim, &count);
  }
  if (empty) return 0;
  if (overflow) throw std::length_error("payload shape " + shape_string(shape) + " has more than 2^63 elements");
  return count;
}

double Payload::element(std::int64_t i) const {
  const std::uint8_t* at = bytes.data() + i * static_cast<std::int64_t>(dtype.itemsize);
  const std::string& n = dtype.name;
  if (n == "bool") return at[0] != 0 ? 1.0 : 0.0;
  if (n == "int8") return load<std::int8_t>(at);
  if (n == "int16") return load<std::int16_t>(at);
  if (n == "int32") return load<std::int32_t>(at);
  if (n == "int64") return static_cast<double>(load<std::int64_t>(at));
  if (n == "uint8") return load<std::uint8_t>(at);
  if (n == "uint16") return load<std::uint16_t>(at);
  if (n == "uint32") return load<std::uint32_t>(at);
  if (n == "uint64") return static_cast<double>(load<std::uint64_t>(at));
  if (n == "float16") return half_to_double(load<std::uint16_t>(at));
  if (n == "bfloat16") return std::bit_cast<float>(std::uint32_t{load<std::uint16_t>(at)} << 16);
  if (n == "float32") return load<float>(at);
  if (n == "float64") return load<double>(at);
  if (const auto format = float8_format(n)) return float8_to_double(at[0], *format);
  throw std::logic_error("payload of unknown dtype " + n);
}

std::vector<double> Payload::to_doubles() const {
  std::vector<double> values(static_cast<std::size_t>(numel()));
  for (std::int64_t i = 0; i < numel(); ++i) values[static_cast<std::size_t>(i)] = element(i);
  return values;
}

Payload Payload::from_doubles(const DType& dtype, std::vector<std::int64_t> shape, const std::vector<double>& values) {
  Payload payload{dtype, std::move(shape), {}};
  if (static_cast<std::int64_t>(values.size()) != payload.numel()) {
    throw std::invalid_argument("from_doubles: " + std::to_string(values.size()) + " values for shape " +
                                shape_string(payload.shape));
  }
  payload.bytes.resize(values.size() * dtype.itemsize);
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::uint8_t* at = payload.bytes.data() + i * dtype.itemsize;
    const double v = values[i];
    const std::string& n = dtype.name;
    if (n == "bool")
      store<std::uint8_t>(at, v != 0.0);
    else if (n == "int8")
      store(at, static_cast<std::int8_t>(v));
    else if (n == "int16")
      store(at, static_cast<std::int16_t>(v));
    else if (n == "int32")
      store(at, static_cast<std::int32_t>(v));
    else if (n == "int64")
      store(at, static_cast<std::int64_t>(v));
    else if (n == "uint8")
      store(at, static_cast<std::uint8_t>(v));
    else if (n == "uint16")
      store(at, static_cast<std::uint16_t>(v));
    else if (n == "uint32")
      store(at, static_cast<std::uint32_t>(v));
    else if (n == "uint64")
      store(at, static_cast<std::uint64_t>(v));
    else if (n == "float16")
      store(at, double_to_half(v));
    else if (n == "bfloat16")
      store(at, double_to_bfloat16(v));
    else if (n == "float32")
      store(at, static_cast<float>(v));
    else if (n == "float64")
      store(at, v);
    else if (const auto format = float8_format(n))
      store(at, double_to_float8(v, *format));
    else
      throw std::logic_error("payload of unknown dtype " + n);
  }
  return payload;
}

std::uint64_t Payload::bits(std::int64_t i) const {
  const std::size_t size = dtype.itemsize;
  const std::uint8_t* at = bytes.data() + static_cast<std::size_t>(i) * size;
  std::uint64_t value = 0;
  for (std::size_t k = 0; k < size; ++k) value |= std::uint64_t{at[k]} << (8 * k);
  return value;
}

void Payload::set_bits(std::int64_t i, std::uint64_t value) {
  const std::size_t size = dtype.itemsize;
  std::uint8_t* at = bytes.data() + static_cast<std::size_t>(i) * size;
  for (std::size_t k = 0; k < size; ++k) at[k] = static_cast<std::uint8_t>(value >> (8 * k));
}

std::string Payload::element_text(std::int64_t i) const {
  const std::uint64_t raw = bits(i);
  const unsigned unused = 64 - 8 * static_cast<unsigned>(dtype.itemsize);
  switch (dtype.kind) {
    case DTypeKind::Bool:
      return raw != 0 ? "true" : "false";
    case DTypeKind::SignedInt:  // sign-extended from the element's width
      return std::to_string(static_cast<std::int64_t>(raw << unused) >> unused);
    case DTypeKind::UnsignedInt:
      return std::to_string(raw);
    case DTypeKind::Float:
      break;
  }
  std::ostringstream text;
  text.precision(dtype.itemsize > 4 ? 17 : 9);
  const double value = element(i);
  text << value;
  if (std::isnan(value)) text << " (bits 0x" << std::hex << raw << ")";
  return text.str();
}

namespace {

// Dtype, shape and size: what both comparisons require before looking at elements.
std::optional<Comparison> layout_mismatch(const Payload& expected, const Payload& actual) {
  auto fail = [](std::string why) { return Comparison{false, std::move(why), -1}; };
  if (expected.dtype != actual.dtype) return fail("dtype " + actual.dtype.name + " != expected " + expected.dtype.name);
  if (expected.shape != actual.shape) {
    return fail("shape " + shape_string(actual.shape) + " != expected " + shape_string(expected.shape));
  }
  if (expected.bytes.size() != actual.bytes.size()) {
    return fail(std::to_string(actual.bytes.size()) + " bytes != expected " + std::to_string(expected.bytes.size()));
  }
  return std::nullopt;
}

// Compares element by element with `same(i)`, naming the first element that differs.
template <class Same>
Comparison compare_elements(const Payload& expected, const Payload& actual, Same&& same) {
  if (auto mismatch = layout_mismatch(expected, actual)) return *mismatch;
  for (std::int64_t i = 0; i < expected.numel(); ++i) {
    if (same(i)) continue;
    return {false, "element " + std::to_string(i) + " is " + actual.element_text(i) + ", expected " + expected.element_text(i),
            i};
  }
  return {};
}

// A bool's bytes hold a truth value: any nonzero byte is true.
bool same_bits(const Payload& expected, const Payload& actual, std::int64_t i) {
  if (expected.dtype.kind == DTypeKind::Bool) return (expected.bits(i) != 0) == (actual.bits(i) != 0);
  return expected.bits(i) == actual.bits(i);
}

}  // namespace

Comparison compare(const Payload& expected, const Payload& actual) {
  return compare_elements(expected, actual, [&](std::int64_t i) { return same_bits(expected, actual, i); });
}

Comparison compare_values(const Payload& expected, const Payload& actual, const Tolerance& tolerance) {
  return compare_elements(expected, actual, [&](std::int64_t i) {
    if (!expected.dtype.is_float()) return same_bits(expected, actual, i);
    const double want = expected.element(i);
    const double got = actual.element(i);
    if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got);
    if (want == got && std::signbit(want) == std::signbit(got)) return true;
    // Slack only when asked for: with none, -0.0 and 0.0 differ.
    const double diff = std::fabs(want - got);
    if (!tolerance.allows_slack() || !std::isfinite(diff)) return false;
    const double magnitude = std::max(std::fabs(want), std::fabs(got));
    return diff <= tolerance.abs || diff <= tolerance.rel * magnitude ||
           diff <= static_cast<double>(tolerance.max_ulps) * ulp(expected.dtype, magnitude);
  });
}

std::string shape_string(const std::vector<std::int64_t>& shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    text += (i != 0 ? ", " : "") + std::to_string(shape[i]);
  }
  return text + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace tl
