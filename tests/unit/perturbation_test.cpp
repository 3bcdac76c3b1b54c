// Perturbation tries (harness/judge/perturbation.h) are computed as integers of the parent's width:
// every tried value differs from the parent's and stays in range, up to the limits of int64 and
// uint64 (a double holds neither exactly: near 2^63 it steps by 2048, and 2^63 itself overflows).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "harness/judge/perturbation.h"

namespace tl {
namespace {

template <class T>
Payload payload_of(const char* dtype, const std::vector<T>& values) {
  Payload payload{*dtype_from_name(dtype), {static_cast<std::int64_t>(values.size())}, {}};
  payload.bytes.resize(values.size() * sizeof(T));
  for (std::size_t i = 0; i < values.size(); ++i)
    payload.set_bits(static_cast<std::int64_t>(i), static_cast<std::uint64_t>(values[i]));
  return payload;
}

template <class T>
std::vector<T> values_of(const Payload& payload) {
  std::vector<T> values;
  for (std::int64_t i = 0; i < payload.numel(); ++i) values.push_back(static_cast<T>(payload.bits(i)));
  return values;
}

// Every element of every try differs from the parent's.
void expect_every_element_moves(const Payload& parent) {
  const std::vector<Payload> tries = perturbation_tries(parent);
  ASSERT_EQ(tries.size(), 3u);
  for (std::size_t t = 0; t < 2; ++t) {  // the spread replaces values outright: it may meet one
    ASSERT_EQ(tries[t].dtype, parent.dtype);
    ASSERT_EQ(tries[t].shape, parent.shape);
    for (std::int64_t i = 0; i < parent.numel(); ++i)
      EXPECT_NE(tries[t].bits(i), parent.bits(i)) << parent.dtype.name << " try " << t << " element " << parent.element_text(i);
  }
}

TEST(PerturbationTries, Int64TriesAreExactAtTheLimits) {
  constexpr std::int64_t top = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t bottom = std::numeric_limits<std::int64_t>::min();
  const Payload parent = payload_of<std::int64_t>("int64", {top, bottom, (std::int64_t{1} << 62) + 1, 0, -1});
  expect_every_element_moves(parent);
  const std::vector<Payload> tries = perturbation_tries(parent);
  EXPECT_EQ(values_of<std::int64_t>(tries[0]),
            (std::vector<std::int64_t>{top - 1, bottom + 1, (std::int64_t{1} << 62) + 2, 1, 0}));
  EXPECT_EQ(values_of<std::int64_t>(tries[1]),
            (std::vector<std::int64_t>{top - 3, top - 2, -(std::int64_t{1} << 62) - 4, -3, -2}));
  EXPECT_EQ(values_of<std::int64_t>(tries[2]), (std::vector<std::int64_t>{1, -2, 3, 5, -7}));
}

TEST(PerturbationTries, Uint64TriesAreExactAtTheLimits) {
  constexpr std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
  const Payload parent = payload_of<std::uint64_t>("uint64", {top, std::uint64_t{1} << 63, (std::uint64_t{1} << 53) + 1, 0});
  expect_every_element_moves(parent);
  const std::vector<Payload> tries = perturbation_tries(parent);
  EXPECT_EQ(values_of<std::uint64_t>(tries[0]),
            (std::vector<std::uint64_t>{top - 1, (std::uint64_t{1} << 63) + 1, (std::uint64_t{1} << 53) + 2, 1}));
  EXPECT_EQ(values_of<std::uint64_t>(tries[1]),
            (std::vector<std::uint64_t>{top - 3, (std::uint64_t{1} << 63) + 3, (std::uint64_t{1} << 53) + 4, 3}));
  EXPECT_EQ(values_of<std::uint64_t>(tries[2]), (std::vector<std::uint64_t>{1, 2, 3, 5}));
}

TEST(PerturbationTries, NarrowIntegersAndBoolsStayInTheirRange) {
  const Payload int8 = payload_of<std::int8_t>("int8", {127, -128, 0});
  expect_every_element_moves(int8);
  EXPECT_EQ(perturbation_tries(int8)[1].element_text(1), "125");  // -(-128) - 3 is 125: in range
  EXPECT_EQ(perturbation_tries(int8)[1].element_text(0), "124");  // -127 - 3 is below -127: 127 - 3
  const Payload flags = payload_of<std::uint8_t>("bool", {1, 0, 1});
  const std::vector<Payload> tries = perturbation_tries(flags);
  EXPECT_EQ(values_of<std::uint8_t>(tries[0]), (std::vector<std::uint8_t>{0, 1, 0}));
  EXPECT_EQ(values_of<std::uint8_t>(tries[1]), (std::vector<std::uint8_t>{1, 1, 1}));
  EXPECT_EQ(values_of<std::uint8_t>(tries[2]), (std::vector<std::uint8_t>{0, 1, 0}));
}

TEST(PerturbationTries, FloatsMoveEveryFiniteValue) {
  const Payload parent = Payload::from_doubles(*dtype_from_name("float32"), {4}, {-300.0, 0.0, 2.5, -0.0});
  expect_every_element_moves(parent);
  EXPECT_EQ(perturbation_tries(parent)[0].to_doubles(), (std::vector<double>{-149.0, 1.0, 4.75, 1.0}));
}

}  // namespace
}  // namespace tl
