// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file interpolate.hpp
/// hetero::interpolate, as torch.nn.functional.interpolate (torch 1.13): resizes the spatial
/// dimensions of [N, C, W], [N, C, H, W] or [N, C, D, H, W] by nearest-neighbour, linear
/// (bilinear, trilinear), bicubic or area interpolation. The nearest and (bi/tri)linear and
/// bicubic modes are separable: one index_select per tap and dimension with host-built
/// indices and weights (torch's upsample kernels' formulas, last dimension first, in torch's
/// order of operations); area is adaptive_avg_pool. So every backend runs it, and autograd
/// records its gradient through those ops (index_select's gradient sums what each input
/// element fed, as torch's upsample backward kernels).
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <hetero/export.hpp>
#include <hetero/tensor.hpp>

namespace hetero {

/// F.interpolate's `mode`. Sources (torch's aten/src/ATen/native/UpSample.h):
/// - nearest: source index floor(dst * scale) (the legacy rule: copying the same size, and
///   dst / 2 when doubling), any dtype;
/// - nearest_exact: floor((dst + 0.5) * scale) ("nearest-exact", PIL's and scikit-image's);
/// - linear, bilinear, trilinear: 2 taps per dimension, for 1, 2, 3 spatial dimensions;
/// - bicubic: 4 taps per dimension (Keys' cubic convolution with a = -0.75, the edge
///   elements repeated), 2 spatial dimensions;
/// - area: the mean over each output element's window, as adaptive_avg_pool.
/// The weighted modes need a floating dtype.
enum class InterpolateMode { nearest, nearest_exact, linear, bilinear, bicubic, trilinear, area };

/// torch's name of a mode ("nearest", "nearest-exact", "linear", ...).
HETERO_API std::string_view interpolate_mode_name(InterpolateMode mode) noexcept;

/// F.interpolate's arguments. Exactly one of `size` and `scale_factor` is given; each holds
/// one value for every spatial dimension or one value per spatial dimension (torch's int or
/// tuple).
struct InterpolateOptions {
  /// The output's spatial sizes, elements.
  std::vector<std::int64_t> size = {};
  /// Multipliers of the input's spatial sizes: the output's are floor(in * scale_factor).
  /// Unless recompute_scale_factor, the kernels map positions by 1 / scale_factor rather than
  /// in / out (torch's rule, which differs when in * scale_factor is not whole).
  std::vector<double> scale_factor = {};
  /// How output elements are computed from input elements (nearest by default, as torch).
  InterpolateMode mode = InterpolateMode::nearest;
  /// linear, bilinear, trilinear and bicubic: map the corner elements' centres onto each other
  /// (scale (in - 1) / (out - 1)) rather than the corners (the default, false). ValueError
  /// when set for another mode.
  std::optional<bool> align_corners = std::nullopt;
  /// With scale_factor: map positions by in / out of the computed size. ValueError with size.
  std::optional<bool> recompute_scale_factor = std::nullopt;
};

/// `input` resized as torch.nn.functional.interpolate(input, size, scale_factor, mode,
/// align_corners, recompute_scale_factor); a new tensor of input's dtype (16-bit floats are
/// computed in float32 and rounded once, their gradients summed in float32) on its device,
/// shape [N, C, out...].
///
/// Errors, as torch's: ValueError for both or neither of size and scale_factor, a count that
/// is neither 1 nor the number of spatial dimensions, align_corners with nearest,
/// nearest_exact or area, recompute_scale_factor with size, a scale_factor that is not
/// finite; NotImplementedError for an input of other than 3-5 dimensions or a mode for
/// another rank ("Got 4D input, but linear mode needs 3D input"); ShapeError for an empty
/// spatial input or output size or an empty channel dimension; DTypeError for a weighted mode
/// on a non-floating input.
HETERO_API Tensor interpolate(const Tensor& input, const InterpolateOptions& options);

}  // namespace hetero
