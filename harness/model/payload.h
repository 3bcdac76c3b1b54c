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
  // Element i widened to double (bool -> 0/1, float16/bfloat16 decoded): for arithmetic on values,
  // never for deciding equality (a 64-bit integer past 2^53 loses its low bits, a NaN its payload).
  double element(std::int64_t i) const;
  std::vector<double> to_doubles() const;
  // Element i's raw bits (its itemsize bytes, little-endian), zero-extended: exact for every dtype.
  std::uint64_t bits(std::int64_t i) const;
  void set_bits(std::int64_t i, std::uint64_t bits);
  // Element i as text, exactly: an integer in full, a float to its precision, a NaN with its bits.
  std::string element_text(std::int64_t i) const;

  // A payload of `dtype` and `shape` from values (cast to the dtype as C++ casts them).
  static Payload from_doubles(const DType& dtype, std::vector<std::int64_t> shape, const std::vector<double>& values);
};

// How close two floats must be for compare_values: slack for values written by hand.
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
};

// Bits: the same dtype, shape and elements, each as its dtype holds it. Integers compare as integers
// of their width (an int64 near 2^63 to its last bit), bools as truth values, floats bit for bit: a
// zero's sign and a NaN's sign and payload included. What a check of two values one program of the
// framework computed uses (replay, the value alone, outputs against eager, the model afterwards).
Comparison compare(const Payload& expected, const Payload& actual);

// Values: floats equal within `tolerance` (none: the same value, a zero's sign included, so the same
// bits but for a NaN's), and any NaN equal to any NaN. For values written by hand (a roster's
// decimal literals carry no NaN payload), and for values two different programs computed (a NaN's
// sign follows the program that made it: README, "What a verdict means"). Integers and bools
// compare exactly, as in compare.
Comparison compare_values(const Payload& expected, const Payload& actual, const Tolerance& tolerance = {});

std::string shape_string(const std::vector<std::int64_t>& shape);

}  // namespace tl
