// SPDX-License-Identifier: Apache-2.0
#pragma once
// Note [Convolution as GEMM]: conv2d and the pools run on every backend with no kernel of
// their own. The sliding windows of a padded input xp [N, C, Hp, Wp] are one strided view
// of it, [N, C, KH, KW, OH, OW] with strides (sN, sC, dh sH, dw sW, sh sH, sw sW) (im2col
// without a kernel: unfold over strided views); the backend's strided copy makes it dense,
// and the backend's GEMM multiplies it by the weight. The adjoint, fold (col2im), adds each
// of the KH x KW slices of window-shaped gradients into its strided place of a zero
// tensor: KH * KW element-wise adds over the output's size, or plain copies where windows
// do not overlap (stride >= dilated kernel: 2x2 pooling). Autograd: each op records one
// node with explicit formulas (ops_conv.cpp, ops_pool.cpp).
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include <string>

#include <hetero/conv.hpp>
#include <hetero/tensor.hpp>

#include "op_helpers.hpp"  // strided_view

namespace hetero::detail {

/// The window geometry of one 2-d op: kernel, stride, padding (top/left; bottom/right is
/// padding plus `extra`, ceil_mode's overhang) and dilation, in elements.
struct Window2d {
  std::int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  std::int64_t extra_h = 0, extra_w = 0;
};

/// A pooling's geometry: input [N, C, H, W], output [N, C, OH, OW], and its windows.
struct WindowGeometry {
  std::int64_t n, c, h, w, oh, ow;
  Window2d win;
  /// The padded input's height and width (padding both sides, plus ceil_mode's extra).
  std::int64_t padded_h() const { return h + 2 * win.ph + win.extra_h; }
  std::int64_t padded_w() const { return w + 2 * win.pw + win.extra_w; }
};

/// The gradient of the padded input [N, C, padded_h, padded_w] cut back to [N, C, H, W].
Tensor unpad(const Tensor& dxp, const WindowGeometry& g);

/// x [N, C, H, W] inside a new tensor filled with `value`: `top`/`left` rows/columns
/// before, `bottom`/`right` after. Not recorded.
Tensor pad2d(const Tensor& x, std::int64_t top, std::int64_t bottom, std::int64_t left,
             std::int64_t right, double value);

/// The windows of xp [N, C, Hp, Wp] (any strides) as a view [N, C, KH, KW, OH, OW].
Tensor window_view(const Tensor& xp, const Window2d& w, std::int64_t oh, std::int64_t ow);

/// The sum over each window of xp [N, C, Hp, Wp]: [N, C, OH, OW], as KH * KW - 1 element-wise
/// adds of the windows' strided slices (a reduction over the view's two kernel dimensions
/// reads it in a far worse order).
Tensor window_sum(const Tensor& xp, const Window2d& w, std::int64_t oh, std::int64_t ow);

/// The adjoint of window_view: `cols` [N, C, KH, KW, OH, OW] (any strides, 0 included)
/// summed into a new zero tensor [N, C, hp, wp] of cols' dtype, on cols' device.
Tensor fold_windows(const Tensor& cols, const Window2d& w, std::int64_t hp, std::int64_t wp);

/// "[h, w]", for the messages of conv2d and the pools.
std::string size2_str(Size2 p);

/// The sum of `terms` and of the products `products` (a * b each), with int64 overflow
/// raising ShapeError naming `op` (issue #44: conv and pool geometry near 2^62 overflowed).
std::int64_t checked_geometry(
    const char* op, std::initializer_list<std::int64_t> terms,
    std::initializer_list<std::pair<std::int64_t, std::int64_t>> products);

/// Output size of a pooling window along one dimension, as torch's pooling_output_shape:
/// floor((in + 2 pad - dil (k - 1) - 1 [+ stride - 1 in ceil_mode]) / stride) + 1, less one
/// in ceil_mode when the last window would start in the right padding.
std::int64_t pooled_size(std::int64_t in, std::int64_t k, std::int64_t pad, std::int64_t stride,
                         std::int64_t dil, bool ceil_mode);

}  // namespace hetero::detail
