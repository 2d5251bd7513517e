// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/pooling.hpp
/// Pooling layers over NCHW input, as torch.nn.MaxPool2d, MaxUnpool2d, AvgPool2d,
/// AdaptiveAvgPool2d and AdaptiveMaxPool2d (no parameters; the functional forms are in
/// <hetero/conv.hpp>).
#include <cstdint>
#include <optional>
#include <utility>

#include <hetero/conv.hpp>
#include <hetero/nn/module.hpp>

namespace hetero::nn {

/// Options of MaxPool2d (torch's defaults; stride unset means the kernel size).
struct MaxPool2dOptions {
  std::optional<Size2> stride = std::nullopt;  ///< window step (unset: the kernel size)
  Size2 padding = 0;                           ///< -inf rows/columns on each side, <= kernel / 2
  Size2 dilation = 1;                          ///< spacing of the window's elements
  bool ceil_mode = false;                      ///< round the output size up, as torch's
};

/// max_pool2d(x, kernel_size, ...): x [N, C, H, W] or [C, H, W], floating; throws as max_pool2d.
class HETERO_API MaxPool2d : public Module {
 public:
  /// Windows of `kernel_size`; the options are checked at forward(), as max_pool2d's.
  explicit MaxPool2d(Size2 kernel_size, MaxPool2dOptions options = {});
  /// max_pool2d(x, kernel_size, options...).
  Tensor forward(const Tensor& x) override;
  /// max_pool2d_with_indices(x, kernel_size, options...): {values, indices}, as torch's
  /// MaxPool2d(return_indices=True) (the indices feed MaxUnpool2d).
  std::pair<Tensor, Tensor> forward_with_indices(const Tensor& x);

 private:
  Size2 kernel_;
  MaxPool2dOptions o_;
};

/// max_unpool2d(x, indices, kernel_size, stride, padding[, output_size]) as a layer
/// (torch.nn.MaxUnpool2d: SegNet's decoder puts each value back where MaxPool2d found it).
class HETERO_API MaxUnpool2d : public Module {
 public:
  /// Windows of `kernel_size` and `stride` (unset: the kernel) with `padding`, as the
  /// MaxPool2d whose indices it takes; checked at forward().
  explicit MaxUnpool2d(Size2 kernel_size, std::optional<Size2> stride = {}, Size2 padding = 0)
      : kernel_(kernel_size), stride_(stride), padding_(padding) {}
  /// max_unpool2d(x, indices, ...): throws as that function.
  Tensor forward(const Tensor& x, const Tensor& indices,
                 std::optional<Size2> output_size = std::nullopt);
  /// Throws ValueError: the layer takes the values and their indices.
  Tensor forward(const Tensor& x) override;

 private:
  Size2 kernel_;
  std::optional<Size2> stride_;
  Size2 padding_;
};

/// Options of AvgPool2d (torch's defaults; stride unset means the kernel size).
struct AvgPool2dOptions {
  std::optional<Size2> stride = std::nullopt;  ///< window step (unset: the kernel size)
  Size2 padding = 0;                           ///< zero rows/columns on each side
  bool ceil_mode = false;                      ///< round the output size up, as torch's
  bool count_include_pad = true;               ///< divide by the window's cells in the padded input
  /// Divide every window by this instead (> 0; ValueError otherwise).
  std::optional<std::int64_t> divisor_override = std::nullopt;
};

/// avg_pool2d(x, kernel_size, ...); throws as avg_pool2d.
class HETERO_API AvgPool2d : public Module {
 public:
  /// Windows of `kernel_size`; the options are checked at forward(), as avg_pool2d's.
  explicit AvgPool2d(Size2 kernel_size, AvgPool2dOptions options = {});
  /// avg_pool2d(x, kernel_size, options...).
  Tensor forward(const Tensor& x) override;

 private:
  Size2 kernel_;
  AvgPool2dOptions o_;
};

/// adaptive_avg_pool2d(x, output_size); throws as adaptive_avg_pool2d.
class HETERO_API AdaptiveAvgPool2d : public Module {
 public:
  /// Outputs of `output_size` (checked at forward()).
  explicit AdaptiveAvgPool2d(Size2 output_size) : size_(output_size) {}
  /// adaptive_avg_pool2d(x, output_size).
  Tensor forward(const Tensor& x) override;

 private:
  Size2 size_;
};

/// adaptive_max_pool2d(x, output_size) (torch.nn.AdaptiveMaxPool2d without return_indices);
/// throws as adaptive_max_pool2d.
class HETERO_API AdaptiveMaxPool2d : public Module {
 public:
  /// Outputs of `output_size` (checked at forward()).
  explicit AdaptiveMaxPool2d(Size2 output_size) : size_(output_size) {}
  /// adaptive_max_pool2d(x, output_size).
  Tensor forward(const Tensor& x) override;
  /// adaptive_max_pool2d_with_indices(x, output_size): {values, indices}, as torch's
  /// AdaptiveMaxPool2d(return_indices=True).
  std::pair<Tensor, Tensor> forward_with_indices(const Tensor& x);

 private:
  Size2 size_;
};

}  // namespace hetero::nn
