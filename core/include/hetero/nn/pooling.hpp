// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/pooling.hpp
/// Pooling layers over NCHW input, as torch.nn.MaxPool2d, AvgPool2d and
/// AdaptiveAvgPool2d (no parameters; the functional forms are in <hetero/conv.hpp>).
#include <cstdint>
#include <optional>

#include <hetero/conv.hpp>
#include <hetero/nn/module.hpp>

namespace hetero::nn {

/// Options of MaxPool2d (torch's defaults; stride unset means the kernel size).
struct MaxPool2dOptions {
  std::optional<Size2> stride = std::nullopt;
  Size2 padding = 0;
  Size2 dilation = 1;
  bool ceil_mode = false;
};

/// max_pool2d(x, kernel_size, ...): x [N, C, H, W] or [C, H, W], floating; throws as max_pool2d.
class HETERO_API MaxPool2d : public Module {
 public:
  explicit MaxPool2d(Size2 kernel_size, MaxPool2dOptions options = {});
  Tensor forward(const Tensor& x) override;

 private:
  Size2 kernel_;
  MaxPool2dOptions o_;
};

/// Options of AvgPool2d (torch's defaults; stride unset means the kernel size).
struct AvgPool2dOptions {
  std::optional<Size2> stride = std::nullopt;
  Size2 padding = 0;
  bool ceil_mode = false;
  bool count_include_pad = true;
  std::optional<std::int64_t> divisor_override = std::nullopt;
};

/// avg_pool2d(x, kernel_size, ...); throws as avg_pool2d.
class HETERO_API AvgPool2d : public Module {
 public:
  explicit AvgPool2d(Size2 kernel_size, AvgPool2dOptions options = {});
  Tensor forward(const Tensor& x) override;

 private:
  Size2 kernel_;
  AvgPool2dOptions o_;
};

/// adaptive_avg_pool2d(x, output_size); throws as adaptive_avg_pool2d.
class HETERO_API AdaptiveAvgPool2d : public Module {
 public:
  explicit AdaptiveAvgPool2d(Size2 output_size) : size_(output_size) {}
  Tensor forward(const Tensor& x) override;

 private:
  Size2 size_;
};

}  // namespace hetero::nn
