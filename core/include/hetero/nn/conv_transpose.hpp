// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/conv_transpose.hpp
/// hetero::nn::ConvTranspose2d — 2-d transposed convolution over NCHW input, as
/// torch.nn.ConvTranspose2d (D2L 14.10-14.11: upsampling in fully convolutional networks;
/// a GAN's generator).
#include <cstdint>

#include <hetero/conv.hpp>
#include <hetero/nn/module.hpp>
#include <hetero/tensor_options.hpp>

namespace hetero::nn {

/// The options of ConvTranspose2d beside the channel counts and kernel (torch's defaults),
/// for designated initialisers: ConvTranspose2d(64, 32, 4, {.stride = 2, .padding = 1}).
struct ConvTranspose2dOptions {
  Size2 stride = 1;          ///< step between the kernel copies each input element scatters
  Size2 padding = 0;         ///< rows and columns cropped from each side of the result
  Size2 output_padding = 0;  ///< rows and columns added at the bottom and right
  std::int64_t groups = 1;   ///< in and out channels must both be divisible by it
  bool bias = true;          ///< whether the layer has the "bias" parameter
  Size2 dilation = 1;        ///< spacing of the kernel's taps
};

/// weight: [in_channels, out_channels / groups, KH, KW] (torch's layout for a transposed
/// convolution); bias: [out_channels]; both U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in =
/// out_channels / groups * KH * KW (torch's reset_parameters computes the fan from the
/// weight's dimension 1), in options' dtype (default float32) on options' device.
class HETERO_API ConvTranspose2d : public Module {
 public:
  /// ValueError for non-positive channel counts or kernel sizes, groups that do not divide
  /// both channel counts, stride or dilation < 1, padding or output_padding < 0, or an
  /// output_padding not smaller than either stride or dilation (torch's messages).
  ConvTranspose2d(std::int64_t in_channels, std::int64_t out_channels, Size2 kernel_size,
                  ConvTranspose2dOptions conv = {}, TensorOptions options = {});
  /// conv_transpose2d(x, weight, bias, stride, padding, output_padding, groups, dilation): x
  /// [N, C_in, H, W] or [C_in, H, W]; throws as conv_transpose2d.
  Tensor forward(const Tensor& x) override;
  /// The same with the output_padding that gives `output_size` {OH, OW}, as torch's
  /// forward(input, output_size): ValueError unless each is between the size with no output
  /// padding and that plus stride - 1 ("requested an output size of ..., but valid sizes
  /// range from ... to ...").
  Tensor forward(const Tensor& x, Size2 output_size);
  /// Module::to(d), returning this layer.
  ConvTranspose2d& to(const Device& d) {
    Module::to(d);
    return *this;
  }
  /// The options it was built with.
  const ConvTranspose2dOptions& options() const noexcept { return conv_; }

 private:
  ConvTranspose2dOptions conv_;
  Size2 kernel_;
};

}  // namespace hetero::nn
