// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/fold.hpp
/// hetero::nn::Unfold and Fold, as torch.nn's: unfold and fold of <hetero/fold.hpp> as layers
/// (no parameters). As torch's, the arguments are checked at forward, with the functions'
/// errors.
#include <hetero/conv.hpp>
#include <hetero/nn/module.hpp>

namespace hetero::nn {

/// [N, C, H, W] (or [C, H, W]) -> [N, C kh kw, L], the sliding blocks as columns, as
/// torch.nn.Unfold(kernel_size, dilation, padding, stride).
class HETERO_API Unfold : public Module {
 public:
  /// The window, in torch's argument order.
  explicit Unfold(Size2 kernel_size, Size2 dilation = 1, Size2 padding = 0, Size2 stride = 1);
  /// unfold(x, ...); errors as unfold.
  Tensor forward(const Tensor& x) override;

 private:
  Size2 kernel_size_, dilation_, padding_, stride_;
};

/// [N, C kh kw, L] (or [C kh kw, L]) -> [N, C, output_size.h, output_size.w], the columns
/// summed back into images, as torch.nn.Fold(output_size, kernel_size, dilation, padding,
/// stride).
class HETERO_API Fold : public Module {
 public:
  /// The image size and the window, in torch's argument order.
  Fold(Size2 output_size, Size2 kernel_size, Size2 dilation = 1, Size2 padding = 0,
       Size2 stride = 1);
  /// fold(x, ...); errors as fold.
  Tensor forward(const Tensor& x) override;

 private:
  Size2 output_size_, kernel_size_, dilation_, padding_, stride_;
};

}  // namespace hetero::nn
