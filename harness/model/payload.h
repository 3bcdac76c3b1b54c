// A payload: one op's value as contiguous host bytes owned by C++, with its dtype and shape.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/model/dtype.h"

namespace tl {

struct Payload {
  DType dtype;
  std::vector<std::int64_t> shape;
  std::vector<std::uint8_t> bytes;  // C-contiguous, little-endian, dtype.itemsize per element

  std::int64_t numel() const;
  // Element i widened to double (bool -> 0/1, float16/bfloat16 decoded).
  double element(std::int64_t i) const;
  std::vector<double> to_doubles() const;

  // A payload of `dtype` and `shape` from values (cast to the dtype as C++ casts them).
  static Payload from_doubles(const DType& dtype, std::vector<std::int64_t> shape, const std::vector<double>& values);
};

// How close two float payloads must be. The default is exact: the same value bit for bit (a zero's
// sign included), NaN equal to NaN. Integers and bools always compare exactly.
struct Tolerance {
  // Units in the last place allowed between two floats.
  std::int64_t max_ulps = 0;
  // Absolute slack (for comparing with decimal literals written in a roster).
  double abs = 0.0;
  // Relative slack, for comparing with decimal literals written in a roster (0 = ulps only).
  double rel = 0.0;

  bool allows_slack() const { return max_ulps != 0 || abs != 0.0 || rel != 0.0; }
};

struct Comparison {
  bool equal = true;
  std::string message;  // why not, naming the first differing element
  std::int64_t first_mismatch = -1;
  double max_abs_diff = 0.0;
};

// Compares dtype, shape and every element; NaN equals NaN at the same position.
Comparison compare(const Payload& expected, const Payload& actual, const Tolerance& tolerance = {});

std::string shape_string(const std::vector<std::int64_t>& shape);

}  // namespace tl
