// The four float8 payload dtypes against tinygrad's own conversions (tinygrad/dtype.py: fp8_to_float
// and float_to_fp8, what its Python device stores and loads): every 8-bit pattern decodes to
// tinygrad's value, and a sweep of doubles (every value, every tie between neighbours and the
// doubles either side of it, random magnitudes, subnormals, overflow, inf, nan, -0.0) encodes to
// tinygrad's bits.
#include <gtest/gtest.h>
#include <pybind11/stl.h>

#include <cmath>
#include <vector>

#include "harness/model/float8.h"
#include "harness/model/payload.h"
#include "python_scope.h"

namespace tl {
namespace {

constexpr const char* kReferences = R"PY(
import math
import numpy as np
from tinygrad.dtype import dtypes, fp8_to_float, float_to_fp8

rng = np.random.default_rng(8)
formats = {"float8_e4m3fn": dtypes.fp8e4m3, "float8_e5m2": dtypes.fp8e5m2,
           "float8_e4m3fnuz": dtypes.fp8e4m3fnuz, "float8_e5m2fnuz": dtypes.fp8e5m2fnuz}
decoded, doubles, bits = {}, {}, {}
for name, dtype in formats.items():
    values = [fp8_to_float(b, dtype) for b in range(256)]
    decoded[name] = values
    finite = np.unique([v for v in values if math.isfinite(v)])
    ties = (finite[:-1] + finite[1:]) / 2
    random = np.exp2(rng.uniform(-20, 18, 4000)) * rng.choice([-1.0, 1.0], 4000)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, 1e300, -1e300, 1.0 / 3, 448.0, 464.0, 480.0, 57344.0, 61440.0])
    sweep = np.concatenate([finite, ties, np.nextafter(ties, np.inf), np.nextafter(ties, -np.inf), random, specials])
    doubles[name] = sweep.tolist()
    bits[name] = [float_to_fp8(float(x), dtype) for x in sweep]
)PY";

TEST(Float8, EveryPatternDecodesAsTinygradDecodesIt) {
  pybind11::dict scope = testing::python_scope(kReferences);
  for (const char* name : {"float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz"}) {
    std::vector<double> reference;
    with_python_errors([&] { reference = scope["decoded"][name].cast<std::vector<double>>(); });
    const Float8Format format = *float8_format(name);
    int failures = 0;
    for (int b = 0; b < 256 && failures < 10; ++b) {
      const double got = float8_to_double(static_cast<std::uint8_t>(b), format);
      const bool same =
          std::isnan(reference[b]) ? std::isnan(got) : got == reference[b] && std::signbit(got) == std::signbit(reference[b]);
      EXPECT_TRUE(same) << name << " pattern 0x" << std::hex << b << std::dec << " decodes to " << got << ", tinygrad's "
                        << reference[b];
      failures += same ? 0 : 1;
    }
  }
}

TEST(Float8, DoublesEncodeToTinygradsBits) {
  pybind11::dict scope = testing::python_scope(kReferences);
  for (const char* name : {"float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz"}) {
    std::vector<double> doubles;
    std::vector<int> expected;
    with_python_errors([&] {
      doubles = scope["doubles"][name].cast<std::vector<double>>();
      expected = scope["bits"][name].cast<std::vector<int>>();
    });
    ASSERT_GT(doubles.size(), 4500u);
    const Payload payload = Payload::from_doubles(*dtype_from_name(name), {static_cast<std::int64_t>(doubles.size())}, doubles);
    int failures = 0;
    for (std::size_t i = 0; i < doubles.size() && failures < 10; ++i) {
      const bool same = payload.bytes[i] == expected[i];
      EXPECT_TRUE(same) << name << ": " << std::hexfloat << doubles[i] << std::defaultfloat << " (" << doubles[i]
                        << ") stored as 0x" << std::hex << int(payload.bytes[i]) << ", tinygrad's 0x" << expected[i] << std::dec;
      failures += same ? 0 : 1;
    }
  }
}

// The dtype table and the format table agree: one byte, a float, 3 or 2 fraction bits.
TEST(Float8, PayloadDtypesAreOneByteFloats) {
  for (const char* name : {"float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz"}) {
    const DType dtype = *dtype_from_name(name);
    EXPECT_EQ(dtype.itemsize, 1u) << name;
    EXPECT_TRUE(dtype.is_float()) << name;
    EXPECT_EQ(dtype.fraction_bits, float8_format(name)->mantissa_bits) << name;
  }
  EXPECT_FALSE(float8_format("float16").has_value());
}

}  // namespace
}  // namespace tl
