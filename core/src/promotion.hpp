// SPDX-License-Identifier: Apache-2.0
#pragma once
// Type promotion of the core's ops, as torch.promote_types and torch.result_type for
// hetero's dtypes.
#include <hetero/dtype.hpp>

namespace hetero::detail {

/// Position in the promotion order bool < uint8, int8 < int32 < int64 < float16, bfloat16 <
/// float32 < float64.
constexpr int promotion_rank(DType t) noexcept {
  switch (t) {
    case DType::bool_:
      return 0;
    case DType::uint8:
    case DType::int8:
      return 1;
    case DType::int32:
      return 2;
    case DType::int64:
      return 3;
    case DType::float16:
    case DType::bfloat16:
      return 4;
    case DType::float32:
      return 5;
    case DType::float64:
      return 6;
  }
  return 0;
}

/// The dtype two operands compute in: the higher of promotion_rank; float16 with bfloat16
/// gives float32 (as torch.promote_types). uint8 with int8 gives int32, where torch gives
/// int16, a dtype hetero lacks (docs/semantics.md: the values agree, as a sum or product of
/// two 8-bit values fits 16 bits). Bool with bool stays bool. Inline: every binary op asks.
constexpr DType promote_types(DType a, DType b) noexcept {
  if (a == b) return a;
  const int ra = promotion_rank(a), rb = promotion_rank(b);
  if (ra == rb) return ra == promotion_rank(DType::uint8) ? DType::int32 : DType::float32;
  return ra > rb ? a : b;
}

/// The category of a dtype in torch's result_type: bool < integer < floating.
constexpr int dtype_category(DType t) noexcept {
  return t == DType::bool_ ? 0 : is_floating_point(t) ? 2 : 1;
}

/// The result dtype of a binary op on a tensor of dtype `a` and one of dtype `b`, where
/// `a_zero_dim` / `b_zero_dim` say which are 0-d (as torch.result_type, c10's
/// combine_categories): a 0-d operand takes part only when its category (bool < integer <
/// floating) is higher than the dimensioned operand's, so ones({3}, float16) *
/// full({}, 2.5, float64) stays float16 and ones({2}, int32) + full({}, 7) stays int32, while
/// ones({2}, int32) + full({}, 2.5, float64) is float64. Two 0-d or two dimensioned operands
/// promote as promote_types.
constexpr DType result_type(DType a, bool a_zero_dim, DType b, bool b_zero_dim) noexcept {
  if (a_zero_dim == b_zero_dim) return promote_types(a, b);
  const DType dim = a_zero_dim ? b : a;
  const DType zero = a_zero_dim ? a : b;
  return dtype_category(zero) > dtype_category(dim) ? promote_types(dim, zero) : dim;
}

}  // namespace hetero::detail
