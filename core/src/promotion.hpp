#pragma once
// Type promotion of the core's ops, as torch.promote_types for hetero's dtypes.
#include <hetero/dtype.hpp>

namespace hetero::detail {

/// The dtype two operands compute in: bool < int32 < int64 < float16, bfloat16 < float32
/// < float64, and float16 with bfloat16 gives float32 (as torch.promote_types). Bool with
/// bool stays bool (element-wise arithmetic then computes bool in int64: ops_elementwise.cpp).
DType promote_types(DType a, DType b) noexcept;

}  // namespace hetero::detail
