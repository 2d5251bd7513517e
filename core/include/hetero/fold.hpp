// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file fold.hpp
/// unfold and fold, as torch.nn.functional's (im2col and col2im): the sliding blocks of a
/// batch of images as columns, and columns summed back into images. Each block is the
/// kernel_size window at a stride, over the input padded with zeros by `padding` on each
/// side, its elements `dilation` apart; there are L = OH OW blocks with
/// OH = floor((H + 2 padding.h - dilation.h (kernel_size.h - 1) - 1) / stride.h) + 1, OW
/// alike. Floating dtypes (float16 and bfloat16 too), any device: built from pad, narrow,
/// reshape, stack and add, so every backend runs them and autograd records them (unfold's
/// gradient is fold, and fold's is unfold). Arguments in torch's order (kernel_size,
/// dilation, padding, stride), not conv2d's. Errors use torch's messages: ValueError for a
/// kernel_size, dilation or stride < 1 or a padding < 0; ShapeError for a wrong rank, an empty
/// dimension other than the batch, fewer than one block, or (fold) a channel count not
/// divisible by kernel_size.h kernel_size.w or a block count other than OH OW;
/// NotImplementedError for an integer or bool input (torch's "not implemented for 'Long'").
#include <cstdint>

#include <hetero/conv.hpp>
#include <hetero/export.hpp>
#include <hetero/tensor.hpp>

namespace hetero {

/// input [N, C, H, W] (or [C, H, W]) -> [N, C kh kw, L] (or [C kh kw, L]):
/// out[n, (c kh + i) kw + j, oh_idx OW + ow_idx] = padded input[n, c, oh_idx stride.h +
/// i dilation.h, ow_idx stride.w + j dilation.w], as torch.nn.functional.unfold. A new
/// contiguous tensor.
HETERO_API Tensor unfold(const Tensor& input, Size2 kernel_size, Size2 dilation = 1,
                         Size2 padding = 0, Size2 stride = 1);

/// input [N, C kh kw, L] (or [C kh kw, L]) -> [N, C, output_size.h, output_size.w] (or
/// [C, ...]): each column's block added at its place in the padded image, then the padding
/// cropped, as torch.nn.functional.fold. Where blocks overlap, their values are added in the
/// order of the kernel position (i kw + j), as torch's col2im, so the sums round as torch's.
/// fold(unfold(x)) is x times how many blocks cover each element.
HETERO_API Tensor fold(const Tensor& input, Size2 output_size, Size2 kernel_size,
                       Size2 dilation = 1, Size2 padding = 0, Size2 stride = 1);

}  // namespace hetero
