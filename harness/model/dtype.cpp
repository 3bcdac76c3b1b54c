#include "harness/model/dtype.h"

#include <array>

namespace tl {

std::optional<DType> dtype_from_name(std::string_view name) {
  static const std::array<DType, 17> known{{
      {"bool", 1, DTypeKind::Bool},
      {"int8", 1, DTypeKind::SignedInt},
      {"int16", 2, DTypeKind::SignedInt},
      {"int32", 4, DTypeKind::SignedInt},
      {"int64", 8, DTypeKind::SignedInt},
      {"uint8", 1, DTypeKind::UnsignedInt},
      {"uint16", 2, DTypeKind::UnsignedInt},
      {"uint32", 4, DTypeKind::UnsignedInt},
      {"uint64", 8, DTypeKind::UnsignedInt},
      {"float8_e4m3fn", 1, DTypeKind::Float, 3},
      {"float8_e5m2", 1, DTypeKind::Float, 2},
      {"float8_e4m3fnuz", 1, DTypeKind::Float, 3},
      {"float8_e5m2fnuz", 1, DTypeKind::Float, 2},
      {"float16", 2, DTypeKind::Float, 10},
      {"bfloat16", 2, DTypeKind::Float, 7},
      {"float32", 4, DTypeKind::Float, 23},
      {"float64", 8, DTypeKind::Float, 52},
  }};
  for (const DType& dtype : known) {
    if (dtype.name == name) return dtype;
  }
  return std::nullopt;
}

}  // namespace tl
