// Element types of payloads, named as numpy names them. The set is closed: a tinygrad dtype that
// maps to none of these cannot be carried in a payload.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace tl {

enum class DTypeKind { Bool, SignedInt, UnsignedInt, Float };

struct DType {
  std::string name;  // "float32", "int32", "bool", ...
  std::size_t itemsize = 0;
  DTypeKind kind = DTypeKind::Float;
  int fraction_bits = 0;  // a float's stored fraction bits (its epsilon is 2^-fraction_bits); 0 otherwise

  bool is_float() const { return kind == DTypeKind::Float; }
  // numpy has no bfloat16 or float8: tinygrad's .numpy() widens them to float32.
  bool numpy_lacks() const { return name == "bfloat16" || name.starts_with("float8"); }
  bool operator==(const DType&) const = default;
};

// The dtype called `name` ("float32", "uint8", "bfloat16", ...), or nullopt.
std::optional<DType> dtype_from_name(std::string_view name);

}  // namespace tl
