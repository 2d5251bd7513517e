#include "promotion.hpp"

namespace hetero::detail {
namespace {

int rank(DType t) noexcept {
  switch (t) {
    case DType::bool_:
      return 0;
    case DType::int32:
      return 1;
    case DType::int64:
      return 2;
    case DType::float16:
    case DType::bfloat16:
      return 3;
    case DType::float32:
      return 4;
    case DType::float64:
      return 5;
  }
  return 0;
}

}  // namespace

DType promote_types(DType a, DType b) noexcept {
  if (is_half(a) && is_half(b) && a != b) return DType::float32;
  return rank(a) >= rank(b) ? a : b;
}

}  // namespace hetero::detail
