#include "harness/payload.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

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
  if (exponent == 31) return mantissa != 0 ? NAN : sign * INFINITY;
  return sign * std::ldexp(mantissa + 1024, exponent - 25);
}

std::uint16_t double_to_half(double value) {
  // Round-to-nearest through float32; enough for building test payloads.
  const auto bits = std::bit_cast<std::uint32_t>(static_cast<float>(value));
  const std::uint32_t sign = (bits >> 16) & 0x8000;
  const int exponent = static_cast<int>((bits >> 23) & 0xff) - 127 + 15;
  std::uint32_t mantissa = bits & 0x7fffff;
  if (std::isnan(value)) return 0x7e00;
  if (exponent >= 31) return static_cast<std::uint16_t>(sign | 0x7c00);
  if (exponent <= 0) {
    if (exponent < -10) return static_cast<std::uint16_t>(sign);
    mantissa |= 0x800000;
    return static_cast<std::uint16_t>(sign | (mantissa >> (14 - exponent)));
  }
  return static_cast<std::uint16_t>(sign | (exponent << 10) | (mantissa >> 13));
}

int mantissa_bits(const DType& dtype) {
  if (dtype.name == "float16") return 10;
  if (dtype.name == "bfloat16") return 7;
  if (dtype.name == "float32") return 23;
  return 52;
}

// The spacing of `dtype` values around magnitude `value`.
double ulp(const DType& dtype, double value) {
  int exponent = 0;
  std::frexp(value == 0.0 ? std::numeric_limits<double>::min() : value, &exponent);
  return std::ldexp(1.0, exponent - 1 - mantissa_bits(dtype));
}

}  // namespace

std::int64_t Payload::numel() const {
  std::int64_t count = 1;
  for (std::int64_t dim : shape) count *= dim;
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
      store(at, static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(static_cast<float>(v)) >> 16));
    else if (n == "float32")
      store(at, static_cast<float>(v));
    else
      store(at, v);
  }
  return payload;
}

Comparison compare(const Payload& expected, const Payload& actual, const Tolerance& tolerance) {
  Comparison result;
  auto fail = [&](std::string why) {
    result.equal = false;
    result.message = std::move(why);
    return result;
  };
  if (expected.dtype != actual.dtype) return fail("dtype " + actual.dtype.name + " != expected " + expected.dtype.name);
  if (expected.shape != actual.shape) {
    return fail("shape " + shape_string(actual.shape) + " != expected " + shape_string(expected.shape));
  }
  if (expected.bytes.size() != actual.bytes.size()) {
    return fail(std::to_string(actual.bytes.size()) + " bytes != expected " + std::to_string(expected.bytes.size()));
  }
  const bool is_float = expected.dtype.is_float();
  for (std::int64_t i = 0; i < expected.numel(); ++i) {
    const double want = expected.element(i);
    const double got = actual.element(i);
    if (std::isnan(want) && std::isnan(got)) continue;
    const double diff = std::fabs(want - got);
    if (!std::isnan(diff)) result.max_abs_diff = std::max(result.max_abs_diff, diff);
    bool close = want == got;
    if (!close && is_float && std::isfinite(diff)) {
      const double magnitude = std::max(std::fabs(want), std::fabs(got));
      close = diff <= tolerance.abs || diff <= tolerance.rel * magnitude ||
              diff <= static_cast<double>(tolerance.max_ulps) * ulp(expected.dtype, magnitude);
    }
    if (!close && result.first_mismatch < 0) {
      result.first_mismatch = i;
      std::ostringstream why;
      why.precision(9);
      why << "element " << i << " is " << got << ", expected " << want;
      result.equal = false;
      result.message = why.str();
    }
  }
  return result;
}

std::string shape_string(const std::vector<std::int64_t>& shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    text += (i != 0 ? ", " : "") + std::to_string(shape[i]);
  }
  return text + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace tl
