// Payload comparison: exact for integers and bools, a few ulps for floats, NaN equal to NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "harness/payload.h"

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
  const Comparison result = compare(a, b, Tolerance{1000, 10.0, 1.0});
  EXPECT_FALSE(result.equal);
  EXPECT_EQ(result.first_mismatch, 2);
  EXPECT_NE(result.message.find("element 2"), std::string::npos);
}

TEST(Payload, FloatsCompareWithinUlps) {
  const float one = 1.0f;
  const float next = std::nextafter(one, 2.0f);
  const Payload a = Payload::from_doubles(dtype("float32"), {1}, {one});
  const Payload b = Payload::from_doubles(dtype("float32"), {1}, {next});
  EXPECT_TRUE(compare(a, b, Tolerance{1, 0.0, 0.0}).equal);
  const Payload far = Payload::from_doubles(dtype("float32"), {1}, {1.001});
  EXPECT_FALSE(compare(a, far, Tolerance{8, 0.0, 0.0}).equal);
  EXPECT_TRUE(compare(a, far, Tolerance{0, 0.01, 0.0}).equal);
}

TEST(Payload, NanEqualsNanOnlyInTheSamePlace) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Payload a = Payload::from_doubles(dtype("float32"), {2}, {nan, 1});
  const Payload b = Payload::from_doubles(dtype("float32"), {2}, {1, nan});
  EXPECT_TRUE(compare(a, a).equal);
  EXPECT_FALSE(compare(a, b).equal);
}

TEST(Payload, ShapeAndDtypeMustMatch) {
  const Payload a = Payload::from_doubles(dtype("float32"), {2, 1}, {1, 2});
  const Payload b = Payload::from_doubles(dtype("float32"), {1, 2}, {1, 2});
  const Payload c = Payload::from_doubles(dtype("float64"), {2, 1}, {1, 2});
  EXPECT_NE(compare(a, b).message.find("shape"), std::string::npos);
  EXPECT_NE(compare(a, c).message.find("dtype"), std::string::npos);
}

}  // namespace
}  // namespace tl
