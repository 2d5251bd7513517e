// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/flatten.hpp
/// hetero::nn::Flatten — merges dimensions [start_dim, end_dim] into one, as
/// torch.nn.Flatten (default: all but the batch dimension); and its inverse nn::Unflatten.
#include <cstdint>
#include <vector>

#include <hetero/nn/module.hpp>

namespace hetero::nn {

/// Flatten, as torch.nn.Flatten (see the file comment).
class HETERO_API Flatten : public Module {
 public:
  /// Negative dimensions count from the end.
  explicit Flatten(std::int64_t start_dim = 1, std::int64_t end_dim = -1);
  /// [N, 8, 8] -> [N, 64] with the defaults; a view when x is contiguous. IndexError
  /// when a dimension is out of range, ShapeError when start_dim > end_dim.
  Tensor forward(const Tensor& x) override;

 private:
  std::int64_t start_, end_;
};

/// Splits dimension `dim` into `unflattened_size`, as torch.nn.Unflatten (unflatten()).
class HETERO_API Unflatten : public Module {
 public:
  /// The dimension (negative counts from the end) and its new sizes (one may be -1); both
  /// checked at forward().
  Unflatten(std::int64_t dim, std::vector<std::int64_t> unflattened_size);
  /// unflatten(x, dim, sizes): [N, 64] -> [N, 4, 4, 4] with dim 1 and {4, 4, 4}. Errors as
  /// unflatten().
  Tensor forward(const Tensor& x) override;

 private:
  std::int64_t dim_;
  std::vector<std::int64_t> sizes_;
};

}  // namespace hetero::nn
