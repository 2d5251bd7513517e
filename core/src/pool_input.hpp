// SPDX-License-Identifier: Apache-2.0
#pragma once
// The input checks every 2-d pooling op shares (ops_pool.cpp, ops_adaptive_pool.cpp): a 3-d
// (unbatched) or 4-d input with non-empty channel and spatial dimensions, floating.
#include <string>

#include <hetero/error.hpp>
#include <hetero/tensor.hpp>

#include "op_helpers.hpp"

namespace hetero::detail {

/// NotImplementedError unless x is floating (torch's "not implemented for 'Long'").
inline void check_pool_dtype(const Tensor& x, const char* op) {
  if (!is_floating_point(x.dtype()))
    throw NotImplementedError(std::string("\"") + op + "\" not implemented for '" +
                              std::string(dtype_name(x.dtype())) + "' (floating dtypes only)");
}

/// x as [N, C, H, W] (a 3-d x gains N = 1); Error for an undefined x, ShapeError naming
/// `op` for another rank or an empty channel or spatial dimension.
inline Tensor pool_input(const Tensor& x, const char* op) {
  impl_of(x, op);
  if (x.dim() != 3 && x.dim() != 4)
    throw ShapeError(std::string(op) +
                     ": expected a 3D (unbatched) or 4D (batched) input, got size " +
                     shape_str(x.shape()));
  for (std::int64_t d = x.dim() - 3; d < x.dim(); ++d)
    if (x.size(d) == 0)
      throw ShapeError(std::string(op) +
                       ": expected input with non-zero sizes in its channel and "
                       "spatial dimensions, got size " +
                       shape_str(x.shape()));
  return x.dim() == 3 ? x.unsqueeze(0) : x;
}

}  // namespace hetero::detail
