// Payload comparison: exact for every dtype (integers as integers of their width, floats bit for bit,
// a NaN's payload included), and close (ulps, absolute or relative slack, any NaN equal to any NaN)
// only for values written by hand; float16 and bfloat16 values rounded to nearest even straight from
// double, checked against references computed in the embedded Python.
#include <gtest/gtest.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <string>

#include "harness/model/payload.h"
#include "python_scope.h"

namespace tl {
namespace {

DType dtype(const char* name) { return *dtype_from_name(name); }

TEST(Payload, RoundTripsValuesThroughEveryDtype) {
  for (const char* name : {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
                           "bfloat16", "float32", "float64"}) {
    const Payload payload = Payload::from_doubles(dtype(name), {2, 2}, {0, 1, 1, 0});
    EXPECT_EQ(payload.bytes.size(), 4 * payload.dtype.itemsize) << name;
    EXPECT_EQ(payload.to_doubles(), (std::vector<double>{0, 1, 1, 0})) << name;
  }
  EXPECT_EQ(Payload::from_doubles(dtype("float16"), {1}, {-2.5}).element(0), -2.5);
  EXPECT_EQ(Payload::from_doubles(dtype("bfloat16"), {1}, {0.5}).element(0), 0.5);
}

TEST(Payload, IntegersCompareExactly) {
  const Payload a = Payload::from_doubles(dtype("int32"), {3}, {1, 2, 3});
  const Payload b = Payload::from_doubles(dtype("int32"), {3}, {1, 2, 4});
  EXPECT_TRUE(compare(a, a).equal);
  const Comparison result = compare_values(a, b, Tolerance{1000, 10.0, 1.0});
  EXPECT_FALSE(result.equal);
  EXPECT_EQ(result.first_mismatch, 2);
  EXPECT_NE(result.message.find("element 2"), std::string::npos);
}

TEST(Payload, FloatsCompareWithinUlps) {
  const float one = 1.0f;
  const float next = std::nextafter(one, 2.0f);
  const Payload a = Payload::from_doubles(dtype("float32"), {1}, {one});
  const Payload b = Payload::from_doubles(dtype("float32"), {1}, {next});
  EXPECT_TRUE(compare_values(a, b, Tolerance{1, 0.0, 0.0}).equal);
  const Payload far = Payload::from_doubles(dtype("float32"), {1}, {1.001});
  EXPECT_FALSE(compare_values(a, far, Tolerance{8, 0.0, 0.0}).equal);
  EXPECT_TRUE(compare_values(a, far, Tolerance{0, 0.01, 0.0}).equal);
}

TEST(Payload, NanEqualsNanOnlyInTheSamePlace) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Payload a = Payload::from_doubles(dtype("float32"), {2}, {nan, 1});
  const Payload b = Payload::from_doubles(dtype("float32"), {2}, {1, nan});
  EXPECT_TRUE(compare(a, a).equal);
  EXPECT_FALSE(compare(a, b).equal);
}

// An exact comparison (the default: replay, ground truth, outputs against eager) tells -0.0 from 0.0
// in every float dtype; a tolerant one (slack for roster literals) lets them pass.
TEST(Payload, AnExactComparisonTellsNegativeZeroFromZero) {
  for (const char* name : {"float8_e4m3fn", "float16", "bfloat16", "float32", "float64"}) {
    const Payload zero = Payload::from_doubles(dtype(name), {2}, {0.0, 1.0});
    const Payload negative = Payload::from_doubles(dtype(name), {2}, {-0.0, 1.0});
    const Comparison exact = compare(negative, zero);
    EXPECT_FALSE(exact.equal) << name;
    EXPECT_EQ(exact.first_mismatch, 0) << name;
    EXPECT_TRUE(compare_values(negative, zero, Tolerance{0, 1e-6, 0.0}).equal) << name;
  }
}

// A payload of `dtype` holding the raw element bits given.
Payload of_bits(const char* name, const std::vector<std::uint64_t>& bits) {
  Payload payload{dtype(name), {static_cast<std::int64_t>(bits.size())}, {}};
  payload.bytes.resize(bits.size() * payload.dtype.itemsize);
  for (std::size_t i = 0; i < bits.size(); ++i) payload.set_bits(static_cast<std::int64_t>(i), bits[i]);
  return payload;
}

// Near 2^63 a double's spacing is 2048: widened to double, these would be equal.
TEST(Payload, Int64NearTwoToTheSixtyThreeComparesToItsLastBit) {
  const std::int64_t top = std::numeric_limits<std::int64_t>::max();
  for (const std::int64_t near : {top, top - 1, std::int64_t{1} << 62, -top - 1}) {
    const Payload a = of_bits("int64", {0, static_cast<std::uint64_t>(near)});
    const Payload b = of_bits("int64", {0, static_cast<std::uint64_t>(near ^ 1)});
    ASSERT_EQ(a.element(1), b.element(1)) << near << ": the doubles are the same";
    const Comparison exact = compare(a, b);
    EXPECT_FALSE(exact.equal) << near;
    EXPECT_EQ(exact.first_mismatch, 1) << near;
    EXPECT_NE(exact.message.find(std::to_string(near)), std::string::npos) << exact.message;
    EXPECT_NE(exact.message.find(std::to_string(near ^ 1)), std::string::npos) << exact.message;
    EXPECT_FALSE(compare_values(a, b, Tolerance{1000, 10.0, 1.0}).equal) << near;
    EXPECT_TRUE(compare(a, a).equal);
  }
}

TEST(Payload, Uint64NearTwoToTheSixtyFourComparesToItsLastBit) {
  const std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
  for (const std::uint64_t near : {top, top - 1, std::uint64_t{1} << 63, (std::uint64_t{1} << 53) + 1}) {
    const Payload a = of_bits("uint64", {near});
    const Payload b = of_bits("uint64", {near ^ 1});
    const Comparison exact = compare(a, b);
    EXPECT_FALSE(exact.equal) << near;
    EXPECT_EQ(exact.message, "element 0 is " + std::to_string(near ^ 1) + ", expected " + std::to_string(near));
    EXPECT_FALSE(compare_values(a, b, Tolerance{1000, 10.0, 1.0}).equal) << near;
  }
}

// Narrower integers too, sign-extended in messages; a bool is a truth value, whatever nonzero byte.
TEST(Payload, IntegersAndBoolsCompareAsTheirDtypeHoldsThem) {
  const Comparison int8 = compare(of_bits("int8", {0x80}), of_bits("int8", {0x7f}));
  EXPECT_EQ(int8.message, "element 0 is 127, expected -128");
  EXPECT_TRUE(compare(of_bits("bool", {1}), of_bits("bool", {2})).equal);
  EXPECT_FALSE(compare(of_bits("bool", {1}), of_bits("bool", {0})).equal);
}

// A NaN's sign and payload are bits like any other: an exact comparison tells them apart in every
// float dtype (where the framework makes them deterministically: README, "What a verdict means").
// compare_values (values written by hand, values two programs computed) takes any NaN for any NaN.
TEST(Payload, NanPayloadBitsCompareExactly) {
  const std::map<std::string, std::vector<std::uint64_t>> nans{
      {"float64", {0x7ff8000000000000, 0xfff8000000000000, 0x7ff8000000000001}},
      {"float32", {0x7fc00000, 0xffc00000, 0x7fc00001, 0x7f800001}},
      {"float16", {0x7e00, 0xfe00, 0x7e01}},
      {"bfloat16", {0x7fc0, 0xffc0, 0x7fc1}},
      {"float8_e4m3fn", {0x7f, 0xff}},
      {"float8_e5m2", {0x7e, 0xfe, 0x7d}},
  };
  for (const auto& [name, patterns] : nans) {
    for (std::size_t i = 0; i < patterns.size(); ++i) {
      const Payload a = of_bits(name.c_str(), {patterns[i]});
      ASSERT_TRUE(std::isnan(a.element(0))) << name << " " << patterns[i];
      EXPECT_TRUE(compare(a, a).equal) << name;
      for (std::size_t j = 0; j < patterns.size(); ++j) {
        if (i == j) continue;
        const Payload b = of_bits(name.c_str(), {patterns[j]});
        const Comparison exact = compare(a, b);
        EXPECT_FALSE(exact.equal) << name << ": " << patterns[i] << " vs " << patterns[j];
        EXPECT_NE(exact.message.find("nan (bits 0x"), std::string::npos) << exact.message;
        EXPECT_TRUE(compare_values(a, b, Tolerance{}).equal) << name;
      }
    }
  }
  // A NaN is never a number, close or not.
  EXPECT_FALSE(compare_values(of_bits("float32", {0x7fc00000}), of_bits("float32", {0}), Tolerance{0, 1e30, 0.0}).equal);
}

TEST(Payload, ElementTextIsExact) {
  EXPECT_EQ(of_bits("int64", {0x8000000000000000}).element_text(0), "-9223372036854775808");
  EXPECT_EQ(of_bits("uint64", {0xffffffffffffffff}).element_text(0), "18446744073709551615");
  EXPECT_EQ(of_bits("int16", {0xfffe}).element_text(0), "-2");
  EXPECT_EQ(of_bits("bool", {1}).element_text(0), "true");
  EXPECT_EQ(of_bits("float32", {0xffc00000}).element_text(0), "-nan (bits 0xffc00000)");
  EXPECT_EQ(of_bits("float32", {0x80000000}).element_text(0), "-0");
}

TEST(Payload, ShapeAndDtypeMustMatch) {
  const Payload a = Payload::from_doubles(dtype("float32"), {2, 1}, {1, 2});
  const Payload b = Payload::from_doubles(dtype("float32"), {1, 2}, {1, 2});
  const Payload c = Payload::from_doubles(dtype("float64"), {2, 1}, {1, 2});
  EXPECT_NE(compare(a, b).message.find("shape"), std::string::npos);
  EXPECT_NE(compare(a, c).message.find("dtype"), std::string::npos);
}

// The 2-byte bits `value` is stored as in a payload of `dtype`.
std::uint16_t bits_of(const char* dtype_name, double value) {
  const Payload payload = Payload::from_doubles(dtype(dtype_name), {1}, {value});
  std::uint16_t bits = 0;
  std::memcpy(&bits, payload.bytes.data(), 2);
  return bits;
}

// Roster literals and sums land between two halves: they round to the nearer, not the lower.
TEST(Payload, HalfAndBfloatRoundToNearestEven) {
  EXPECT_EQ(Payload::from_doubles(dtype("float16"), {1}, {1.4999999}).element(0), 1.5);
  EXPECT_EQ(Payload::from_doubles(dtype("float16"), {1}, {-1.4999999}).element(0), -1.5);
  EXPECT_EQ(Payload::from_doubles(dtype("bfloat16"), {1}, {3.1415926}).element(0), 3.140625);
  EXPECT_EQ(Payload::from_doubles(dtype("bfloat16"), {1}, {1.0 - 1e-9}).element(0), 1.0);
  // Ties go to the even neighbour.
  EXPECT_EQ(bits_of("float16", 1.0 + std::ldexp(1.0, -11)), 0x3c00);
  EXPECT_EQ(bits_of("float16", 1.0 + 3 * std::ldexp(1.0, -11)), 0x3c02);
  EXPECT_EQ(bits_of("bfloat16", 1.0 + std::ldexp(1.0, -8)), 0x3f80);
  EXPECT_EQ(bits_of("bfloat16", 1.0 + 3 * std::ldexp(1.0, -8)), 0x3f82);
  // Just above a tie by less than float32 can hold: rounding through float32 first would make it a
  // tie and round down; one rounding from double rounds up.
  EXPECT_EQ(bits_of("float16", 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)), 0x3c01);
  EXPECT_EQ(bits_of("bfloat16", 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40)), 0x3f81);
  // Subnormals, underflow, overflow to infinity, NaN.
  EXPECT_EQ(bits_of("float16", std::ldexp(1.0, -24)), 0x0001);
  EXPECT_EQ(bits_of("float16", std::ldexp(1.0, -25)), 0x0000);
  EXPECT_EQ(bits_of("float16", std::ldexp(1.0, -25) * (1 + 1e-9)), 0x0001);
  EXPECT_EQ(bits_of("float16", -std::ldexp(1023.5, -24)), 0x8400);  // rounds up into the smallest normal
  EXPECT_EQ(bits_of("float16", 65504.0), 0x7bff);
  EXPECT_EQ(bits_of("float16", 65519.99), 0x7bff);
  EXPECT_EQ(bits_of("float16", 65520.0), 0x7c00);
  EXPECT_EQ(bits_of("float16", -1e300), 0xfc00);
  EXPECT_EQ(bits_of("bfloat16", std::ldexp(1.0, -133)), 0x0001);
  EXPECT_EQ(bits_of("bfloat16", std::ldexp(1.0, -134)), 0x0000);
  EXPECT_EQ(bits_of("bfloat16", 3.3961775292304957e38), 0x7f80);  // the tie above the largest finite
  EXPECT_EQ(bits_of("bfloat16", 1e300), 0x7f80);
  EXPECT_EQ(bits_of("bfloat16", -INFINITY), 0xff80);
  EXPECT_TRUE(std::isnan(Payload::from_doubles(dtype("float16"), {1}, {NAN}).element(0)));
  EXPECT_TRUE(std::isnan(Payload::from_doubles(dtype("bfloat16"), {1}, {NAN}).element(0)));
}

// References made in Python, independently of the C++ code: every 16-bit pattern decoded, and a
// sweep of doubles (every tie between neighbours and the doubles just either side of it, random
// magnitudes over the whole range, subnormals, overflow) with the bits each must round to. float16
// from numpy (it converts double -> half in one rounding); bfloat16, which numpy lacks, from exact
// rational arithmetic (fractions.Fraction, round() ties to even). A NaN is expected as bits -1.
constexpr const char* kReferences = R"PY(
import math, struct
import numpy as np
from fractions import Fraction

rng = np.random.default_rng(19)
patterns = np.arange(65536, dtype=np.uint32)
half_values = patterns.astype(np.uint16).view(np.float16).astype(np.float64)
with np.errstate(invalid="ignore"):  # signalling NaN patterns
    bfloat_values = (patterns << 16).view(np.float32).astype(np.float64)

def sweep(values, low, high):
    finite = np.unique(values[np.isfinite(values)])
    ties = (finite[:-1] + finite[1:]) / 2
    random = np.exp2(rng.uniform(low, high, 20000)) * rng.choice([-1.0, 1.0], 20000)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1e300, -1e300, 1.0 / 3])
    return np.concatenate([finite, ties, np.nextafter(ties, np.inf), np.nextafter(ties, -np.inf), random, specials])

def half_reference(doubles):
    with np.errstate(all="ignore"):
        bits = doubles.astype(np.float16).view(np.uint16).astype(np.int64)
    bits[np.isnan(doubles)] = -1
    return bits.tolist()

def bfloat_reference(x):
    if math.isnan(x):
        return -1
    sign = 0x8000 if math.copysign(1.0, x) < 0 else 0
    a = abs(x)
    if a == 0:
        return sign
    if math.isinf(a):
        return sign | 0x7F80
    e = math.frexp(a)[1] - 1                  # 2^e <= a < 2^(e+1)
    quantum = Fraction(2) ** (max(e, -126) - 7)  # 8 significant bits; fixed spacing below 2^-126
    value = round(Fraction(a) / quantum) * quantum
    if value >= 2 ** 128:
        return sign | 0x7F80
    return sign | (struct.unpack("<I", struct.pack("<f", float(value)))[0] >> 16)

half_decoded = half_values.tolist()
bfloat_decoded = bfloat_values.tolist()
half_doubles = sweep(half_values, -28, 17)
half_bits = half_reference(half_doubles)
bfloat_doubles = sweep(bfloat_values, -136, 129)
bfloat_bits = [bfloat_reference(x) for x in bfloat_doubles.tolist()]
half_doubles = half_doubles.tolist()
bfloat_doubles = bfloat_doubles.tolist()
)PY";

void expect_every_pattern_round_trips(const char* name, const std::vector<double>& reference) {
  Payload payload{dtype(name), {65536}, std::vector<std::uint8_t>(std::size_t{2} * 65536)};
  for (std::uint32_t bits = 0; bits < 65536; ++bits) {
    payload.bytes[std::size_t{2} * bits] = static_cast<std::uint8_t>(bits & 0xff);
    payload.bytes[std::size_t{2} * bits + 1] = static_cast<std::uint8_t>(bits >> 8);
  }
  const std::vector<double> decoded = payload.to_doubles();
  const Payload again = Payload::from_doubles(payload.dtype, payload.shape, decoded);
  int failures = 0;
  for (std::size_t bits = 0; bits < 65536 && failures < 10; ++bits) {
    if (std::isnan(reference[bits])) {
      const bool nan = std::isnan(decoded[bits]) && std::isnan(again.element(static_cast<std::int64_t>(bits)));
      EXPECT_TRUE(nan) << name << " pattern " << bits << " is a NaN";
      failures += nan ? 0 : 1;
      continue;
    }
    const bool same = decoded[bits] == reference[bits] && again.bytes[2 * bits] == payload.bytes[2 * bits] &&
                      again.bytes[2 * bits + 1] == payload.bytes[2 * bits + 1];
    EXPECT_TRUE(same) << name << " pattern " << bits << " decodes to " << decoded[bits] << " (reference " << reference[bits]
                      << ") and encodes back to " << int(again.bytes[2 * bits]) << "," << int(again.bytes[2 * bits + 1]);
    failures += same ? 0 : 1;
  }
}

void expect_rounds_like(const char* name, const std::vector<double>& doubles, const std::vector<std::int64_t>& expected) {
  ASSERT_EQ(doubles.size(), expected.size());
  const Payload payload = Payload::from_doubles(dtype(name), {static_cast<std::int64_t>(doubles.size())}, doubles);
  int failures = 0;
  for (std::size_t i = 0; i < doubles.size() && failures < 10; ++i) {
    const std::int64_t got = payload.bytes[2 * i] | (payload.bytes[2 * i + 1] << 8);
    const bool same = expected[i] == -1 ? std::isnan(payload.element(static_cast<std::int64_t>(i))) : got == expected[i];
    EXPECT_TRUE(same) << name << ": " << std::hexfloat << doubles[i] << std::defaultfloat << " (" << doubles[i]
                      << ") stored as 0x" << std::hex << got << ", expected 0x" << expected[i] << std::dec;
    failures += same ? 0 : 1;
  }
}

TEST(Payload, HalfAndBfloatMatchIndependentReferences) {
  pybind11::dict scope = testing::python_scope(kReferences);
  std::vector<double> half_doubles, bfloat_doubles, half_decoded, bfloat_decoded;
  std::vector<std::int64_t> half_bits, bfloat_bits;
  with_python_errors([&] {
    half_decoded = scope["half_decoded"].cast<std::vector<double>>();
    bfloat_decoded = scope["bfloat_decoded"].cast<std::vector<double>>();
    half_doubles = scope["half_doubles"].cast<std::vector<double>>();
    half_bits = scope["half_bits"].cast<std::vector<std::int64_t>>();
    bfloat_doubles = scope["bfloat_doubles"].cast<std::vector<double>>();
    bfloat_bits = scope["bfloat_bits"].cast<std::vector<std::int64_t>>();
  });
  expect_every_pattern_round_trips("float16", half_decoded);
  expect_every_pattern_round_trips("bfloat16", bfloat_decoded);
  EXPECT_GT(half_doubles.size(), 250000u);
  EXPECT_GT(bfloat_doubles.size(), 250000u);
  expect_rounds_like("float16", half_doubles, half_bits);
  expect_rounds_like("bfloat16", bfloat_doubles, bfloat_bits);
}

}  // namespace
}  // namespace tl
