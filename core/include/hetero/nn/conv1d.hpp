// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/conv1d.hpp
/// hetero::nn::Conv1d, MaxPool1d, MaxUnpool1d, AvgPool1d, AdaptiveAvgPool1d and AdaptiveMaxPool1d —
/// the 1-d layers over NCL input (D2L 16.3's textCNN), as torch.nn's, over the ops of
/// <hetero/conv1d.hpp>.
#include <cstdint>
#include <optional>
#include <utility>

#include <hetero/conv1d.hpp>
#include <hetero/nn/module.hpp>
#include <hetero/tensor_options.hpp>

namespace hetero::nn {

/// The options of Conv1d beside the channel counts and kernel (torch.nn.Conv1d's defaults).
struct Conv1dOptions {
  std::int64_t stride = 1;    ///< step of the kernel over the input
  std::int64_t padding = 0;   ///< zeros, on both sides
  std::int64_t dilation = 1;  ///< spacing of the kernel's taps
  std::int64_t groups = 1;    ///< in and out channels must both be divisible by it
  bool bias = true;           ///< whether the layer has the "bias" parameter
};

/// weight: [out_channels, in_channels / groups, K]; bias: [out_channels]; both
/// U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = in_channels / groups * K, as torch.nn.Conv1d,
/// in options' dtype (default float32) on options' device.
class HETERO_API Conv1d : public Module {
 public:
  /// ValueError for non-positive channel counts or kernel size, groups that do not divide
  /// both channel counts, or invalid stride/padding/dilation.
  Conv1d(std::int64_t in_channels, std::int64_t out_channels, std::int64_t kernel_size,
         Conv1dOptions conv = {}, TensorOptions options = {});
  /// conv1d(x, weight, bias, ...): x [N, C, L] or [C, L]; throws as conv1d.
  Tensor forward(const Tensor& x) override;
  /// The options it was built with.
  const Conv1dOptions& options() const noexcept { return conv_; }

 private:
  Conv1dOptions conv_;
};

/// max_pool1d as a layer (torch.nn.MaxPool1d); the arguments are checked at forward().
class HETERO_API MaxPool1d : public Module {
 public:
  /// Windows of `kernel_size` steps, `stride` (unset: the kernel), -inf `padding`.
  explicit MaxPool1d(std::int64_t kernel_size, std::optional<std::int64_t> stride = {},
                     std::int64_t padding = 0, std::int64_t dilation = 1, bool ceil_mode = false)
      : kernel_(kernel_size),
        stride_(stride),
        padding_(padding),
        dilation_(dilation),
        ceil_mode_(ceil_mode) {}
  /// max_pool1d(x, ...).
  Tensor forward(const Tensor& x) override;
  /// max_pool1d_with_indices(x, ...): {values, indices}, as torch's
  /// MaxPool1d(return_indices=True) (the indices feed MaxUnpool1d).
  std::pair<Tensor, Tensor> forward_with_indices(const Tensor& x);

 private:
  std::int64_t kernel_;
  std::optional<std::int64_t> stride_;
  std::int64_t padding_, dilation_;
  bool ceil_mode_;
};

/// max_unpool1d(x, indices, kernel_size, stride, padding[, output_size]) as a layer
/// (torch.nn.MaxUnpool1d: each value back where MaxPool1d found it).
class HETERO_API MaxUnpool1d : public Module {
 public:
  /// Windows of `kernel_size` steps and `stride` (unset: the kernel) with `padding`, as the
  /// MaxPool1d whose indices it takes; checked at forward().
  explicit MaxUnpool1d(std::int64_t kernel_size, std::optional<std::int64_t> stride = {},
                       std::int64_t padding = 0)
      : kernel_(kernel_size), stride_(stride), padding_(padding) {}
  /// max_unpool1d(x, indices, ...): throws as that function.
  Tensor forward(const Tensor& x, const Tensor& indices,
                 std::optional<std::int64_t> output_size = std::nullopt);
  /// Throws ValueError: the layer takes the values and their indices.
  Tensor forward(const Tensor& x) override;

 private:
  std::int64_t kernel_;
  std::optional<std::int64_t> stride_;
  std::int64_t padding_;
};

/// avg_pool1d as a layer (torch.nn.AvgPool1d); the arguments are checked at forward().
class HETERO_API AvgPool1d : public Module {
 public:
  /// Windows of `kernel_size` steps, `stride` (unset: the kernel), zero `padding`.
  explicit AvgPool1d(std::int64_t kernel_size, std::optional<std::int64_t> stride = {},
                     std::int64_t padding = 0, bool ceil_mode = false,
                     bool count_include_pad = true)
      : kernel_(kernel_size),
        stride_(stride),
        padding_(padding),
        ceil_mode_(ceil_mode),
        count_include_pad_(count_include_pad) {}
  /// avg_pool1d(x, ...).
  Tensor forward(const Tensor& x) override;

 private:
  std::int64_t kernel_;
  std::optional<std::int64_t> stride_;
  std::int64_t padding_;
  bool ceil_mode_, count_include_pad_;
};

/// adaptive_avg_pool1d as a layer (torch.nn.AdaptiveAvgPool1d; 1: the average over time).
class HETERO_API AdaptiveAvgPool1d : public Module {
 public:
  /// Outputs of `output_size` steps (checked at forward()).
  explicit AdaptiveAvgPool1d(std::int64_t output_size) : size_(output_size) {}
  /// adaptive_avg_pool1d(x, output_size).
  Tensor forward(const Tensor& x) override;

 private:
  std::int64_t size_;
};

/// adaptive_max_pool1d as a layer (torch.nn.AdaptiveMaxPool1d without return_indices; 1: the
/// maximum over time).
class HETERO_API AdaptiveMaxPool1d : public Module {
 public:
  /// Outputs of `output_size` steps (checked at forward()).
  explicit AdaptiveMaxPool1d(std::int64_t output_size) : size_(output_size) {}
  /// adaptive_max_pool1d(x, output_size).
  Tensor forward(const Tensor& x) override;
  /// adaptive_max_pool1d_with_indices(x, output_size): {values, indices}, as torch's
  /// AdaptiveMaxPool1d(return_indices=True).
  std::pair<Tensor, Tensor> forward_with_indices(const Tensor& x);

 private:
  std::int64_t size_;
};

}  // namespace hetero::nn
