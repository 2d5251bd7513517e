// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file conv1d.hpp
/// 1-d convolution and pooling over NCL tensors (a batch of sequences of C channels and L
/// steps: D2L 16.3's textCNN), as torch.nn.functional.conv1d, conv_transpose1d, max_pool1d,
/// avg_pool1d, adaptive_avg_pool1d and adaptive_max_pool1d. Each is its 2-d counterpart
/// (<hetero/conv.hpp>) over [N, C, 1, L] with a window of height 1, so the values, gradients, dtype
/// rules and backends are those of the 2-d ops. Shapes: input [N, C, L] or unbatched [C, L] (the
/// result is then unbatched too); sizes in elements.
#include <cstdint>
#include <optional>
#include <utility>

#include <hetero/export.hpp>
#include <hetero/tensor.hpp>

namespace hetero {

/// Cross-correlation of `input` [N, C, L] with `weight` [O, C / groups, K] plus `bias` [O],
/// as torch.nn.functional.conv1d: output [N, O, (L + 2 padding - dilation (K - 1) - 1) /
/// stride + 1]. ShapeError for an input that is not 2-D or 3-D or a weight that is not 3-D
/// (torch's messages); the other errors as conv2d's.
HETERO_API Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                         std::int64_t stride = 1, std::int64_t padding = 0,
                         std::int64_t dilation = 1, std::int64_t groups = 1);

/// The transposed 1-d convolution, as torch.nn.functional.conv_transpose1d: weight
/// [C_in, C_out / groups, K], output length (L - 1) stride - 2 padding + dilation (K - 1) +
/// output_padding + 1. Ranks as conv1d; the other errors as conv_transpose2d's.
HETERO_API Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                                   const Tensor& bias = {}, std::int64_t stride = 1,
                                   std::int64_t padding = 0, std::int64_t output_padding = 0,
                                   std::int64_t groups = 1, std::int64_t dilation = 1);

/// Maximum over windows of `kernel` steps, as torch.nn.functional.max_pool1d (stride
/// defaults to the kernel; padding at most half the kernel). ShapeError for an input that is
/// not 2-D or 3-D; the rest as max_pool2d.
HETERO_API Tensor max_pool1d(const Tensor& input, std::int64_t kernel,
                             std::optional<std::int64_t> stride = {}, std::int64_t padding = 0,
                             std::int64_t dilation = 1, bool ceil_mode = false);

/// max_pool1d and where each maximum is, as torch.nn.functional.max_pool1d(...,
/// return_indices=True): {values, indices}, indices int64 of the values' shape holding the
/// step of each maximum in its sequence (what max_unpool1d takes). As max_pool2d_with_indices
/// over [..., 1, L]: a window of -inf gives its first element, one with several NaN its first
/// (torch's cpu kernel its last). Errors as max_pool1d.
HETERO_API std::pair<Tensor, Tensor> max_pool1d_with_indices(
    const Tensor& input, std::int64_t kernel, std::optional<std::int64_t> stride = {},
    std::int64_t padding = 0, std::int64_t dilation = 1, bool ceil_mode = false);

/// The partial inverse of max_pool1d, as torch.nn.functional.max_unpool1d: input [N, C, L]
/// (or [C, L]) and `indices` from max_pool1d_with_indices give zeros [N, C, OL] with each
/// value at its index, OL = (L - 1) stride - 2 padding + kernel (stride defaults to the kernel)
/// or `output_size`, strictly within stride of that. Computed as torch's: max_unpool2d of [...,
/// L, 1], so the rank and emptiness errors name max_unpooling2d; otherwise as max_unpool2d.
HETERO_API Tensor max_unpool1d(const Tensor& input, const Tensor& indices, std::int64_t kernel,
                               std::optional<std::int64_t> stride = {}, std::int64_t padding = 0,
                               std::optional<std::int64_t> output_size = {});

/// Mean over windows of `kernel` steps, as torch.nn.functional.avg_pool1d. Ranks as
/// max_pool1d; the rest as avg_pool2d.
HETERO_API Tensor avg_pool1d(const Tensor& input, std::int64_t kernel,
                             std::optional<std::int64_t> stride = {}, std::int64_t padding = 0,
                             bool ceil_mode = false, bool count_include_pad = true);

/// Mean over `output_size` windows that tile the steps, as
/// torch.nn.functional.adaptive_avg_pool1d (1: the global average over time). Ranks as
/// max_pool1d; the rest as adaptive_avg_pool2d.
HETERO_API Tensor adaptive_avg_pool1d(const Tensor& input, std::int64_t output_size);

/// Maximum over `output_size` windows that tile the steps, as
/// torch.nn.functional.adaptive_max_pool1d (indices: below) (1: the maximum over
/// time). Ranks as max_pool1d; the rest as adaptive_max_pool2d.
HETERO_API Tensor adaptive_max_pool1d(const Tensor& input, std::int64_t output_size);

/// adaptive_max_pool1d and where each maximum is, as torch.nn.functional.adaptive_max_pool1d(
/// ..., return_indices=True): {values, indices}, indices int64 holding the step of each
/// window's first maximum. As adaptive_max_pool2d_with_indices over [..., 1, L].
HETERO_API std::pair<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                                      std::int64_t output_size);

}  // namespace hetero
