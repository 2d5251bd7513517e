// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/conv3d.hpp
/// hetero::nn::Conv3d, ConvTranspose3d, MaxPool3d, MaxUnpool3d, AvgPool3d, AdaptiveAvgPool3d and
/// AdaptiveMaxPool3d — the 3-d layers over NCDHW input (video clips, volumes), as torch.nn's,
/// over the ops of <hetero/conv3d.hpp>. BatchNorm3d is in <hetero/nn/batch_norm.hpp>.
#include <cstdint>
#include <optional>
#include <utility>

#include <hetero/conv3d.hpp>
#include <hetero/nn/module.hpp>
#include <hetero/tensor_options.hpp>

namespace hetero::nn {

/// The options of Conv3d beside the channel counts and kernel (torch.nn.Conv3d's defaults),
/// for designated initialisers: Conv3d(3, 64, 3, {.padding = 1}).
struct Conv3dOptions {
  Size3 stride = 1;         ///< step of the kernel over the input
  Size3 padding = 0;        ///< zeros, on both sides
  Size3 dilation = 1;       ///< spacing of the kernel's taps
  std::int64_t groups = 1;  ///< in and out channels must both be divisible by it
  bool bias = true;         ///< whether the layer has the "bias" parameter
};

/// weight: [out_channels, in_channels / groups, KD, KH, KW]; bias: [out_channels]; both
/// U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = in_channels / groups * KD * KH * KW, as
/// torch.nn.Conv3d.reset_parameters, in options' dtype (default float32) on options' device.
class HETERO_API Conv3d : public Module {
 public:
  /// ValueError for non-positive channel counts or kernel sizes, groups that do not divide
  /// both channel counts, or invalid stride/padding/dilation.
  Conv3d(std::int64_t in_channels, std::int64_t out_channels, Size3 kernel_size,
         Conv3dOptions conv = {}, TensorOptions options = {});
  /// conv3d(x, weight, bias, ...): x [N, C, D, H, W] or [C, D, H, W]; throws as conv3d.
  Tensor forward(const Tensor& x) override;
  /// The options it was built with.
  const Conv3dOptions& options() const noexcept { return conv_; }

 private:
  Conv3dOptions conv_;
};

/// The options of ConvTranspose3d beside the channel counts and kernel (torch's defaults).
struct ConvTranspose3dOptions {
  Size3 stride = 1;          ///< step between the kernel copies each input element scatters
  Size3 padding = 0;         ///< frames, rows and columns cropped from each side of the result
  Size3 output_padding = 0;  ///< frames, rows and columns added at the end
  std::int64_t groups = 1;   ///< in and out channels must both be divisible by it
  bool bias = true;          ///< whether the layer has the "bias" parameter
  Size3 dilation = 1;        ///< spacing of the kernel's taps
};

/// weight: [in_channels, out_channels / groups, KD, KH, KW]; bias: [out_channels]; both
/// U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in = out_channels / groups * KD * KH * KW (from
/// the weight's dimension 1, as torch's reset_parameters).
class HETERO_API ConvTranspose3d : public Module {
 public:
  /// ValueError as Conv3d's, and for an output_padding < 0 or not smaller than either stride
  /// or dilation.
  ConvTranspose3d(std::int64_t in_channels, std::int64_t out_channels, Size3 kernel_size,
                  ConvTranspose3dOptions conv = {}, TensorOptions options = {});
  /// conv_transpose3d(x, weight, bias, ...): x [N, C_in, D, H, W] or [C_in, D, H, W]; throws
  /// as conv_transpose3d.
  Tensor forward(const Tensor& x) override;
  /// The options it was built with.
  const ConvTranspose3dOptions& options() const noexcept { return conv_; }

 private:
  ConvTranspose3dOptions conv_;
};

/// Options of MaxPool3d (torch's defaults; stride unset means the kernel size).
struct MaxPool3dOptions {
  std::optional<Size3> stride = std::nullopt;  ///< window step (unset: the kernel size)
  Size3 padding = 0;       ///< -inf frames/rows/columns on each side, <= kernel / 2
  Size3 dilation = 1;      ///< spacing of the window's elements
  bool ceil_mode = false;  ///< round the output size up, as torch's
};

/// max_pool3d(x, kernel_size, ...) as a layer (torch.nn.MaxPool3d); checked at forward().
class HETERO_API MaxPool3d : public Module {
 public:
  /// Windows of `kernel_size`.
  explicit MaxPool3d(Size3 kernel_size, MaxPool3dOptions options = {})
      : kernel_(kernel_size), o_(options) {}
  /// max_pool3d(x, kernel_size, options...).
  Tensor forward(const Tensor& x) override;
  /// max_pool3d_with_indices(x, kernel_size, options...): {values, indices}, as torch's
  /// MaxPool3d(return_indices=True) (the indices feed MaxUnpool3d).
  std::pair<Tensor, Tensor> forward_with_indices(const Tensor& x);

 private:
  Size3 kernel_;
  MaxPool3dOptions o_;
};

/// max_unpool3d(x, indices, kernel_size, stride, padding[, output_size]) as a layer
/// (torch.nn.MaxUnpool3d: each value back where MaxPool3d found it).
class HETERO_API MaxUnpool3d : public Module {
 public:
  /// Windows of `kernel_size` and `stride` (unset: the kernel) with `padding`, as the
  /// MaxPool3d whose indices it takes; checked at forward().
  explicit MaxUnpool3d(Size3 kernel_size, std::optional<Size3> stride = {}, Size3 padding = 0)
      : kernel_(kernel_size), stride_(stride), padding_(padding) {}
  /// max_unpool3d(x, indices, ...): throws as that function.
  Tensor forward(const Tensor& x, const Tensor& indices,
                 std::optional<Size3> output_size = std::nullopt);
  /// Throws ValueError: the layer takes the values and their indices.
  Tensor forward(const Tensor& x) override;

 private:
  Size3 kernel_;
  std::optional<Size3> stride_;
  Size3 padding_;
};

/// Options of AvgPool3d (torch's defaults; stride unset means the kernel size).
struct AvgPool3dOptions {
  std::optional<Size3> stride = std::nullopt;  ///< window step (unset: the kernel size)
  Size3 padding = 0;                           ///< zero frames/rows/columns on each side
  bool ceil_mode = false;                      ///< round the output size up, as torch's
  bool count_include_pad = true;               ///< divide by the window's cells in the padded input
  /// Divide every window's sum by this instead (> 0; ValueError otherwise).
  std::optional<std::int64_t> divisor_override = std::nullopt;
};

/// avg_pool3d(x, kernel_size, ...) as a layer (torch.nn.AvgPool3d); checked at forward().
class HETERO_API AvgPool3d : public Module {
 public:
  /// Windows of `kernel_size`.
  explicit AvgPool3d(Size3 kernel_size, AvgPool3dOptions options = {})
      : kernel_(kernel_size), o_(options) {}
  /// avg_pool3d(x, kernel_size, options...).
  Tensor forward(const Tensor& x) override;

 private:
  Size3 kernel_;
  AvgPool3dOptions o_;
};

/// adaptive_avg_pool3d(x, output_size) as a layer (torch.nn.AdaptiveAvgPool3d).
class HETERO_API AdaptiveAvgPool3d : public Module {
 public:
  /// Outputs of `output_size` (checked at forward()).
  explicit AdaptiveAvgPool3d(Size3 output_size) : size_(output_size) {}
  /// adaptive_avg_pool3d(x, output_size).
  Tensor forward(const Tensor& x) override;

 private:
  Size3 size_;
};

/// adaptive_max_pool3d(x, output_size) as a layer (torch.nn.AdaptiveMaxPool3d without
/// return_indices).
class HETERO_API AdaptiveMaxPool3d : public Module {
 public:
  /// Outputs of `output_size` (checked at forward()).
  explicit AdaptiveMaxPool3d(Size3 output_size) : size_(output_size) {}
  /// adaptive_max_pool3d(x, output_size).
  Tensor forward(const Tensor& x) override;
  /// adaptive_max_pool3d_with_indices(x, output_size): {values, indices}, as torch's
  /// AdaptiveMaxPool3d(return_indices=True).
  std::pair<Tensor, Tensor> forward_with_indices(const Tensor& x);

 private:
  Size3 size_;
};

}  // namespace hetero::nn
