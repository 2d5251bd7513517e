// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/linear.hpp
/// hetero::nn::Linear — y = x W^T + b, as torch.nn.Linear.
#include <cstdint>

#include <hetero/nn/module.hpp>
#include <hetero/tensor_options.hpp>

namespace hetero::nn {

/// Fully connected layer. weight: [out_features, in_features]; bias: [out_features];
/// input [..., in_features] -> output [..., out_features]. Both initialised
/// U(-1/sqrt(in), 1/sqrt(in)) as torch.nn.Linear (kaiming_uniform with a = sqrt(5)),
/// float32 on options' device (default: the scoped default device).
class HETERO_API Linear : public Module {
 public:
  /// ShapeError if a feature count is negative. Zero is allowed, as torch: Linear(0, n)
  /// gives y = bias (0 at initialisation, torch's bound), Linear(n, 0) an empty output.
  Linear(std::int64_t in_features, std::int64_t out_features, bool bias = true,
         TensorOptions options = {});
  /// ShapeError when x's last dimension is not in_features; DeviceMismatchError when x
  /// and the parameters are on different devices.
  Tensor forward(const Tensor& x) override;
  /// Module::to(d), returning this layer.
  Linear& to(const Device& d) {
    Module::to(d);
    return *this;
  }
  /// Input width (the weight's columns).
  std::int64_t in_features() const noexcept { return in_; }
  /// Output width (the weight's rows).
  std::int64_t out_features() const noexcept { return out_; }

 private:
  std::int64_t in_, out_;
  bool has_bias_;
};

}  // namespace hetero::nn
