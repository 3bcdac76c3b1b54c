#include "harness/model/dtype.h"

#include <array>

namespace tl {

std::optional<DType> dtype_from_name(std::string_view name) {
  static const std::array<DType, 13> known{{
      {"bool", 1, DTypeKind::Bool},
      {"int8", 1, DTypeKind::SignedInt},
      {"int16", 2, DTypeKind::SignedInt},
      {"int32", 4, DTypeKind::SignedInt},
      {"int64", 8, DTypeKind::SignedInt},
      {"uint8", 1, DTypeKind::UnsignedInt},
      {"uint16", 2, DTypeKind::UnsignedInt},
      {"uint32", 4, DTypeKind::UnsignedInt},
      {"uint64", 8, DTypeKind::UnsignedInt},
      {"float16", 2, DTypeKind::Float},
      {"bfloat16", 2, DTypeKind::Float},
      {"float32", 4, DTypeKind::Float},
      {"float64", 8, DTypeKind::Float},
  }};
  for (const DType& dtype : known) {
    if (dtype.name == name) return dtype;
  }
  return std::nullopt;
}

}  // namespace tl
