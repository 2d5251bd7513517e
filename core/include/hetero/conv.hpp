// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file conv.hpp
/// 2-d convolution and pooling over NCHW tensors, as torch.nn.functional.conv2d,
/// conv_transpose2d, max_pool2d, avg_pool2d, adaptive_avg_pool2d and adaptive_max_pool2d (Note
/// [Convolution as GEMM] in core/src/window_views.hpp: the core builds them from the backends'
/// strided copy, GEMM, reductions and element-wise kernels, so every backend runs them with no
/// kernel of its own). Shapes: input [N, C, H, W] or unbatched [C, H, W] (the result is then
/// unbatched too); all sizes in elements. Gradients flow to input, weight and bias (first order
/// only: a gradient of these gradients is not recorded).
#include <cstdint>
#include <optional>
#include <utility>

#include <hetero/export.hpp>
#include <hetero/tensor.hpp>

namespace hetero {

/// A (height, width) pair of a window parameter: one number for both, or {h, w}, as
/// torch's `int or tuple` arguments.
struct Size2 {
  std::int64_t h = 0;  ///< height (rows)
  std::int64_t w = 0;  ///< width (columns)
  /// Both sizes `both` (implicit, as torch's int-or-tuple arguments).
  Size2(std::int64_t both) : h(both), w(both) {}  // NOLINT(google-explicit-constructor)
  /// {height, width}.
  Size2(std::int64_t height, std::int64_t width) : h(height), w(width) {}
};

/// Cross-correlation of `input` [N, C, H, W] with `weight` [O, C / groups, KH, KW] plus
/// `bias` [O] (undefined: none), as torch.nn.functional.conv2d. Output [N, O, OH, OW] with
/// OH = (H + 2 padding.h - dilation.h (KH - 1) - 1) / stride.h + 1 (floor), OW alike.
/// Input, weight and bias share one floating dtype (float16 and bfloat16 accumulate in
/// float32 in the backends' GEMM) and one device.
/// Throws ShapeError for a wrong rank, channel count, bias shape, a kernel larger than
/// the padded input, or a weight of fewer than `groups` output channels (none included:
/// torch's "expected weight to be at least 1 at dimension 0"), with torch's messages;
/// ValueError for stride or dilation < 1, padding < 0 or groups < 1 (or channels not
/// divisible by groups); DTypeError for mixed or integer
/// dtypes (torch runs integer convolutions on its cpu; hetero does not);
/// DeviceMismatchError across devices.
HETERO_API Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                         Size2 stride = 1, Size2 padding = 0, Size2 dilation = 1,
                         std::int64_t groups = 1);

/// The transposed convolution (the adjoint of conv2d with respect to its input, sometimes
/// called a fractionally strided convolution or "deconvolution"), as
/// torch.nn.functional.conv_transpose2d (D2L 14.10): input [N, C_in, H, W] (or unbatched
/// [C_in, H, W]), weight [C_in, C_out / groups, KH, KW], bias [C_out] (undefined: none).
/// Output [N, C_out, OH, OW] with OH = (H - 1) stride.h - 2 padding.h + dilation.h (KH - 1)
/// + output_padding.h + 1, OW alike: each input element scatters the kernel times itself at
/// stride steps; `padding` crops the result, `output_padding` adds rows and columns at the
/// bottom and right (to undo a strided conv2d's floor). Computed as conv2d's input gradient
/// (the backend's kernel, or GEMM and col2im), so it runs on every backend; gradients flow
/// to input (a conv2d), weight and bias (first order).
/// An empty batch gives its empty output even where H or W is 0 (as torch; the gradients of
/// input, weight and bias are then zeros).
/// Throws ShapeError for a wrong rank, channel count or bias shape, a weight of fewer than
/// `groups` rows (no input channels) or of no output channels (torch: "non-empty ... weight
/// tensor expected"), or an output smaller than 1 ("Output size is too small", torch's
/// messages); ValueError for stride or dilation < 1,
/// padding or output_padding < 0, an output_padding not smaller than either stride or
/// dilation, groups < 1 or a weight.size(0) groups do not divide; DTypeError and
/// DeviceMismatchError as conv2d.
HETERO_API Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                                   const Tensor& bias = {}, Size2 stride = 1, Size2 padding = 0,
                                   Size2 output_padding = 0, std::int64_t groups = 1,
                                   Size2 dilation = 1);

/// Maximum over each KH x KW window, as torch.nn.functional.max_pool2d: `stride` defaults
/// to `kernel`; `padding` (implicit -inf, at most half the kernel) on both sides; with
/// `ceil_mode` the last window may hang over the end when it starts inside the input or
/// its left padding (torch's rule). A window holding NaN gives NaN. The gradient goes to
/// the first maximal element of each window (row-major in the window; torch's cpu kernel
/// picks the last NaN where a window has several). Floating dtypes only
/// (NotImplementedError otherwise, as torch). ShapeError / ValueError as conv2d, and
/// "Output size is too small" when a dimension would be empty.
HETERO_API Tensor max_pool2d(const Tensor& input, Size2 kernel, std::optional<Size2> stride = {},
                             Size2 padding = 0, Size2 dilation = 1, bool ceil_mode = false);

/// max_pool2d and where each maximum is, as torch.nn.functional.max_pool2d(...,
/// return_indices=True): {values, indices}, indices int64 of the values' shape holding the
/// position row * W + column of each maximum in its input plane (what max_unpool2d takes;
/// the first element of a window whose maximum is -inf). The values and their gradient are
/// max_pool2d's; the indices are not differentiable. Errors as max_pool2d.
HETERO_API std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, Size2 kernel,
                                                             std::optional<Size2> stride = {},
                                                             Size2 padding = 0, Size2 dilation = 1,
                                                             bool ceil_mode = false);

/// The partial inverse of max_pool2d, as torch.nn.functional.max_unpool2d: input [N, C, H,
/// W] (or [C, H, W]) and `indices` from max_pool2d_with_indices (int64, input's shape) give
/// zeros [N, C, OH, OW] with each input value at its index in its plane. OH = (H - 1)
/// stride.h - 2 padding.h + kernel.h (stride defaults to the kernel), or `output_size` {OH,
/// OW}, which must lie strictly within stride of that. Where two values share an index the
/// later one (row-major) is written, as torch's cpu kernel; the gradient of every input value
/// is the output gradient at its index. ShapeError for another rank, an empty non-batch
/// dimension or indices of another shape; DTypeError for indices that are not int64;
/// NotImplementedError for an input that is not floating (torch's cpu kernel takes float32
/// and float64; hetero takes 16-bit floats too, as torch's cuda one);
/// ValueError for an output_size out of range; IndexError for an index outside the output
/// plane (torch's "Found an invalid max index"; one host read of the indices).
HETERO_API Tensor max_unpool2d(const Tensor& input, const Tensor& indices, Size2 kernel,
                               std::optional<Size2> stride = {}, Size2 padding = 0,
                               std::optional<Size2> output_size = {});

/// Mean over each KH x KW window, as torch.nn.functional.avg_pool2d: zero padding, counted
/// in the divisor when `count_include_pad` (windows hanging over the end in `ceil_mode`
/// are not), or the element count divides when `divisor_override` is set (> 0). Floating
/// dtypes only (torch also averages int64 with integer division; hetero raises
/// NotImplementedError). Errors as max_pool2d.
HETERO_API Tensor avg_pool2d(const Tensor& input, Size2 kernel, std::optional<Size2> stride = {},
                             Size2 padding = 0, bool ceil_mode = false,
                             bool count_include_pad = true,
                             std::optional<std::int64_t> divisor_override = {});

/// Mean over windows that tile the input into `output_size` cells, as
/// torch.nn.functional.adaptive_avg_pool2d: cell i of a dimension of size H covers
/// [floor(i H / OH), ceil((i + 1) H / OH)). Each window is summed on its own (an inf makes
/// only its own windows inf), rows then columns; 16-bit inputs in float32, rounded once.
/// Floating dtypes; output sizes >= 0 (ValueError otherwise; a 0 gives an empty result, as
/// torch, whose gradient is zeros where torch 1.13's backward raises); an output whose element
/// count overflows int64 raises ShapeError, one whose window table does not fit in host memory
/// OutOfMemoryError.
HETERO_API Tensor adaptive_avg_pool2d(const Tensor& input, Size2 output_size);

/// Maximum over windows that tile the input into `output_size` cells (the windows of
/// adaptive_avg_pool2d), as torch.nn.functional.adaptive_max_pool2d (its indices:
/// adaptive_max_pool2d_with_indices). A window holding NaN gives NaN. The gradient goes to the
/// first maximal element of each window (row-major; torch's cpu kernel picks the last NaN where a
/// window has several, as for max_pool2d). Floating dtypes (float16 too, which torch 1.13's cpu
/// kernel refuses; NotImplementedError otherwise); output sizes >= 0 (ValueError otherwise; 0 gives
/// an empty result); input 3-d or 4-d with non-empty channel and spatial dimensions (ShapeError).
/// An output whose element count or window table overflows int64 raises ShapeError, a table the
/// host has no memory for OutOfMemoryError.
HETERO_API Tensor adaptive_max_pool2d(const Tensor& input, Size2 output_size);

/// adaptive_max_pool2d and where each maximum is, as torch.nn.functional.adaptive_max_pool2d(
/// ..., return_indices=True): {values, indices}, indices int64 of the values' shape holding
/// the position row * W + column of each window's first maximum in its input plane (of
/// several NaN, the first; torch's cpu kernel: the last). Values, gradient and errors as
/// adaptive_max_pool2d; an output size of 0 gives empty indices.
HETERO_API std::pair<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                                      Size2 output_size);

}  // namespace hetero
