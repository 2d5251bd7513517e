#pragma once
// Type promotion of the core's ops, as torch.promote_types for hetero's dtypes.
#include <hetero/dtype.hpp>

namespace hetero::detail {

/// Position in the promotion order bool < int32 < int64 < float16, bfloat16 < float32 <
/// float64.
constexpr int promotion_rank(DType t) noexcept {
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

/// The dtype two operands compute in: the higher of promotion_rank, and float16 with
/// bfloat16 gives float32 (as torch.promote_types). Bool with bool stays bool (element-wise
/// arithmetic then computes bool in int64: ops_elementwise.cpp). Inline: every binary op
/// and matmul asks.
constexpr DType promote_types(DType a, DType b) noexcept {
  if (a == b) return a;
  if (is_half(a) && is_half(b)) return DType::float32;
  return promotion_rank(a) >= promotion_rank(b) ? a : b;
}

}  // namespace hetero::detail
