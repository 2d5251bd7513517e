// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/conv.hpp
/// hetero::nn::Conv2d — 2-d convolution over NCHW input, as torch.nn.Conv2d.
#include <cstdint>

#include <hetero/conv.hpp>
#include <hetero/nn/module.hpp>
#include <hetero/tensor_options.hpp>

namespace hetero::nn {

/// The options of Conv2d beside the channel counts and kernel (torch.nn.Conv2d's
/// defaults), for designated initialisers: Conv2d(1, 6, 5, {.padding = 2}).
struct Conv2dOptions {
  Size2 stride = 1;         ///< step of the kernel over the input
  Size2 padding = 0;        ///< zeros, on both sides
  Size2 dilation = 1;       ///< spacing of the kernel's taps
  std::int64_t groups = 1;  ///< in and out channels must both be divisible by it
  bool bias = true;         ///< whether the layer has the "bias" parameter
};

/// weight: [out_channels, in_channels / groups, KH, KW]; bias: [out_channels]; both
/// initialised U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = in_channels / groups * KH * KW,
/// as torch.nn.Conv2d.reset_parameters (kaiming_uniform with a = sqrt(5)), in options'
/// dtype (default float32) on options' device (default: the scoped default device).
class HETERO_API Conv2d : public Module {
 public:
  /// ValueError for non-positive channel counts or kernel sizes, groups that do not divide
  /// both channel counts, or invalid stride/padding/dilation (as conv2d).
  Conv2d(std::int64_t in_channels, std::int64_t out_channels, Size2 kernel_size,
         Conv2dOptions conv = {}, TensorOptions options = {});
  /// conv2d(x, weight, bias, stride, padding, dilation, groups): x [N, C, H, W] or
  /// [C, H, W]; throws as conv2d.
  Tensor forward(const Tensor& x) override;
  /// Module::to(d), returning this layer.
  Conv2d& to(const Device& d) {
    Module::to(d);
    return *this;
  }
  /// The options it was built with.
  const Conv2dOptions& options() const noexcept { return conv_; }

 private:
  Conv2dOptions conv_;
};

}  // namespace hetero::nn
