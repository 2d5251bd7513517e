// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file conv3d.hpp
/// 3-d convolution and pooling over NCDHW tensors (video clips, volumetric scans: C3D, 3-D
/// U-Net), as torch.nn.functional.conv3d, conv_transpose3d, max_pool3d, avg_pool3d,
/// adaptive_avg_pool3d and adaptive_max_pool3d. Each is composed from its 2-d counterpart
/// (<hetero/conv.hpp>) and copies, so every backend runs it with no kernel of its own and
/// autograd records it (Note [3-d ops from 2-d ones] in core/src/ops_conv3d.cpp). Shapes: input
/// [N, C, D, H, W] or unbatched [C, D, H, W] (the result is then unbatched too); sizes in
/// elements; D is depth (time for a clip). Gradients: first order, as the 2-d ops.
#include <cstdint>
#include <optional>
#include <utility>

#include <hetero/export.hpp>
#include <hetero/tensor.hpp>

namespace hetero {

/// A (depth, height, width) triple of a window parameter: one number for all three, or
/// {d, h, w}, as torch's `int or tuple` arguments of the 3-d ops.
struct Size3 {
  std::int64_t d = 0;  ///< depth (frames)
  std::int64_t h = 0;  ///< height (rows)
  std::int64_t w = 0;  ///< width (columns)
  /// All three `all` (implicit, as torch's int-or-tuple arguments).
  Size3(std::int64_t all) : d(all), h(all), w(all) {}  // NOLINT(google-explicit-constructor)
  /// {depth, height, width}.
  Size3(std::int64_t depth, std::int64_t height, std::int64_t width)
      : d(depth), h(height), w(width) {}
};

/// Cross-correlation of `input` [N, C, D, H, W] with `weight` [O, C / groups, KD, KH, KW] plus
/// `bias` [O] (undefined: none), as torch.nn.functional.conv3d: output [N, O, OD, OH, OW]
/// with OD = (D + 2 padding.d - dilation.d (KD - 1) - 1) / stride.d + 1 (floor), OH and OW
/// alike. Where the device's backend has 3-d convolution kernels (Backend::conv3d, interface
/// minor 16: the cpu plugin's float32 on oneDNN's native 3-d primitives, as libtorch's), it
/// runs on them; elsewhere it is one conv2d over [N OD, KD C, H, W] (the KD depth taps of
/// every output frame gathered into channels), so its dtypes, devices and accumulation are
/// conv2d's; the gathered input is then KD times the input's size (memory that torch's
/// slow_conv3d spends as KD KH KW times).
/// Throws ShapeError for an input that is not 4-D or 5-D, a weight that is not 5-D, a channel
/// count or bias shape that does not match, a weight of fewer than `groups` output channels,
/// or a kernel larger than the padded input (torch's messages); ValueError for stride or dilation <
/// 1, padding < 0, groups < 1 or out_channels not divisible by groups; DTypeError for mixed or
/// integer dtypes (torch's cpu convolves integers; hetero does not); DeviceMismatchError across
/// devices.
HETERO_API Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                         Size3 stride = 1, Size3 padding = 0, Size3 dilation = 1,
                         std::int64_t groups = 1);

/// The transposed 3-d convolution (conv3d's adjoint with respect to its input), as
/// torch.nn.functional.conv_transpose3d (3-D U-Net's up-convolution): input [N, C_in, D, H,
/// W], weight [C_in, C_out / groups, KD, KH, KW], bias [C_out]. Output [N, C_out, OD, OH, OW]
/// with OD = (D - 1) stride.d - 2 padding.d + dilation.d (KD - 1) + output_padding.d + 1, OH
/// and OW alike. Computed as one conv_transpose2d over [N D, C_in, H, W] whose output
/// channels are the KD depth taps, then the taps added into their frames.
/// An empty batch gives its empty output even where D, H or W is 0 (as torch).
/// Throws ShapeError for wrong ranks, channel counts or bias shape, a weight of fewer
/// than `groups` rows (input channels) or of no output channels (as torch), or an output smaller
/// than 1 ("Output size is too small"); ValueError for stride or dilation < 1, padding or
/// output_padding < 0, an output_padding not smaller than either stride or dilation, groups
/// < 1 or a C_in groups do not divide; DTypeError and DeviceMismatchError as conv3d.
HETERO_API Tensor conv_transpose3d(const Tensor& input, const Tensor& weight,
                                   const Tensor& bias = {}, Size3 stride = 1, Size3 padding = 0,
                                   Size3 output_padding = 0, std::int64_t groups = 1,
                                   Size3 dilation = 1);

/// Maximum over each KD x KH x KW window, as torch.nn.functional.max_pool3d: `stride`
/// defaults to `kernel`; -inf `padding`, at most half the kernel; ceil_mode's last window as
/// max_pool2d's. A window holding NaN gives NaN; the gradient goes to the first maximal
/// element of each window in (d, h, w) order, as torch's cpu kernel (which picks the last NaN
/// where a window holds several). Computed as a max_pool2d over (H, W) then one over D: the
/// maximum of a box is the maximum over its frames of each frame's maximum. Floating dtypes
/// (float16 and bfloat16 too, which torch 1.13's cpu kernel refuses; NotImplementedError
/// otherwise). ShapeError for an input that is not 4-D or 5-D or has an empty non-batch
/// dimension, or an output smaller than 1 ("Output size is too small"); ValueError for a
/// kernel, stride or dilation < 1 or a padding outside [0, kernel / 2].
HETERO_API Tensor max_pool3d(const Tensor& input, Size3 kernel, std::optional<Size3> stride = {},
                             Size3 padding = 0, Size3 dilation = 1, bool ceil_mode = false);

/// max_pool3d and where each maximum is, as torch.nn.functional.max_pool3d(...,
/// return_indices=True): {values, indices}, indices int64 of the values' shape holding the
/// position (d H + h) W + w of each maximum in its input volume (what max_unpool3d takes). The
/// first maximal element in (d, h, w) order, the first in-bounds one of a window of -inf; of
/// several NaN, the first (torch's cpu kernel: the last). Values, gradient and errors as
/// max_pool3d.
HETERO_API std::pair<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, Size3 kernel,
                                                             std::optional<Size3> stride = {},
                                                             Size3 padding = 0, Size3 dilation = 1,
                                                             bool ceil_mode = false);

/// The partial inverse of max_pool3d, as torch.nn.functional.max_unpool3d: input [N, C, D, H,
/// W] (or [C, D, H, W]) and `indices` from max_pool3d_with_indices give zeros [N, C, OD, OH,
/// OW] with each value at its index in its volume; sizes (D - 1) stride - 2 padding + kernel
/// per dimension or `output_size`, strictly within stride of that. Repeated indices and the
/// gradient as max_unpool2d; errors as max_unpool2d's.
HETERO_API Tensor max_unpool3d(const Tensor& input, const Tensor& indices, Size3 kernel,
                               std::optional<Size3> stride = {}, Size3 padding = 0,
                               std::optional<Size3> output_size = {});

/// Mean over each KD x KH x KW window, as torch.nn.functional.avg_pool3d: zero padding,
/// counted in the divisor when `count_include_pad` (windows hanging over the end in
/// ceil_mode are not), or the window's sum divided by `divisor_override` when set. Computed
/// as avg_pool2d over (H, W) then over D (the divisor of a box is the product of its
/// dimensions' divisors), in float32 for 16-bit input, rounded once. Floating dtypes (torch
/// also averages int64; hetero raises NotImplementedError). ShapeError and ValueError as
/// max_pool3d, and ShapeError for an input smaller than the kernel before padding (torch's
/// "input image ... smaller than kernel size", a check of its avg_pool3d alone); ValueError
/// for a divisor_override <= 0 (torch takes a negative one).
HETERO_API Tensor avg_pool3d(const Tensor& input, Size3 kernel, std::optional<Size3> stride = {},
                             Size3 padding = 0, bool ceil_mode = false,
                             bool count_include_pad = true,
                             std::optional<std::int64_t> divisor_override = {});

/// Mean over windows that tile the input into `output_size` cells, as
/// torch.nn.functional.adaptive_avg_pool3d: cell i of a dimension of size D covers
/// [floor(i D / OD), ceil((i + 1) D / OD)). Computed as adaptive_avg_pool2d over (H, W) then
/// over D, in float32 for 16-bit input, rounded once. Output sizes >= 0 (ValueError
/// otherwise; a 0 gives an empty result); ShapeError for an input that is not 4-D or 5-D or
/// has an empty non-batch dimension; NotImplementedError for a non-floating dtype.
HETERO_API Tensor adaptive_avg_pool3d(const Tensor& input, Size3 output_size);

/// Maximum over the windows of adaptive_avg_pool3d, as torch.nn.functional.adaptive_max_pool3d
/// (indices: below); NaN and the gradient's element as max_pool3d. Errors as
/// adaptive_avg_pool3d; float16 and bfloat16 too (torch 1.13's cpu kernel refuses float16).
HETERO_API Tensor adaptive_max_pool3d(const Tensor& input, Size3 output_size);

/// adaptive_max_pool3d and where each maximum is, as torch.nn.functional.adaptive_max_pool3d(
/// ..., return_indices=True): {values, indices}, indices int64 holding the position (d H + h)
/// W + w of each window's first maximum in (d, h, w) order in its input volume (of several
/// NaN, the first; torch's cpu kernel: the last). Values, gradient and errors as
/// adaptive_max_pool3d.
HETERO_API std::pair<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& input,
                                                                      Size3 output_size);

}  // namespace hetero
