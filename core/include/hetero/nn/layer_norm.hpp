// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/layer_norm.hpp
/// hetero::nn::LayerNorm — normalisation over the last dimensions, as torch.nn.LayerNorm
/// (Ba, Kiros and Hinton 2016): y = (x - mean) / sqrt(var + eps) * weight + bias, mean and
/// the biased variance taken over the trailing dimensions `normalized_shape`.
#include <cstdint>

#include <hetero/nn/module.hpp>
#include <hetero/tensor_options.hpp>

namespace hetero::nn {

/// Layer normalisation, as torch.nn.LayerNorm (see the file comment).
class HETERO_API LayerNorm : public Module {
 public:
  /// weight (ones) and bias (zeros) of shape `normalized_shape` when `elementwise_affine`,
  /// in options' dtype (default float32) on options' device. ValueError for an empty
  /// shape, a negative size or eps < 0 (a size 0 is allowed, as torch: empty results).
  explicit LayerNorm(Shape normalized_shape, double eps = 1e-5, bool elementwise_affine = true,
                     TensorOptions options = {});
  /// x [..., *normalized_shape], floating; ShapeError when its trailing dimensions are not
  /// normalized_shape. Computed in float32 for 16-bit input, rounded once; differentiable
  /// through its parts. DTypeError when weight or bias is neither x's dtype nor float32
  /// beside 16-bit x (as torch).
  Tensor forward(const Tensor& x) override;
  /// The trailing dimensions normalised over.
  const Shape& normalized_shape() const noexcept { return shape_; }

 private:
  Shape shape_;
  double eps_;
  bool affine_;
};

}  // namespace hetero::nn
