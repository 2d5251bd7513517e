// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/flatten.hpp
/// hetero::nn::Flatten — merges dimensions [start_dim, end_dim] into one, as
/// torch.nn.Flatten (default: all but the batch dimension).
#include <cstdint>

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

}  // namespace hetero::nn
