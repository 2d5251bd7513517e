// SPDX-License-Identifier: Apache-2.0
#pragma once
// The layout of a reduction over a list of dimensions (torch's `dim=(0, 2)`): which
// dimensions go, the shape the backend writes through (Backend::reduce's rule: the input's
// rank, reduced dimensions of size 1) and the result's shape.
#include <cstdint>
#include <vector>

#include <hetero/tensor.hpp>

namespace hetero::detail {

/// A reduction of a tensor of some shape over some of its dimensions.
struct ReducedDims {
  std::vector<std::int64_t> dims;  // the reduced dimensions, wrapped, ascending (0-d: none)
  Shape kept;                      // the input's shape with the reduced dimensions as 1
  Shape result;                    // kept, or without the reduced dimensions where !keepdim
  std::int64_t count = 1;          // elements reduced into each result element
};

/// The reduction of a tensor of `shape` over `dims` (negative counts from the end; an empty
/// list reduces every dimension, as torch 1.13's `dim=[]`), for `op` in messages. A 0-d
/// tensor takes 0 and -1 (its one element). IndexError for a dimension out of range,
/// ValueError for one listed twice ("dim 1 appears multiple times in the list of dims", as
/// torch).
ReducedDims reduced_dims(const Shape& shape, const std::vector<std::int64_t>& dims, bool keepdim,
                         const char* op);

}  // namespace hetero::detail
