// SPDX-License-Identifier: Apache-2.0
// interpolate (<hetero/interpolate.hpp>) as torch 1.13's F.interpolate on its contiguous
// (channels-first) cpu kernels (aten/src/ATen/native/UpSample.h, cpu/UpSampleKernel.cpp):
// the source index and weights of each output position are computed on the host with the
// kernels' formulas, in their precision (float for float32 and 16-bit inputs, double for
// float64), and each spatial dimension, last first, is one index_select per tap times its
// weight, summed in the kernels' order: the values of torch's Nd kernel, whose innermost
// loop runs over the last dimension. Argument checks and messages follow torch's Python
// interpolate (torch/nn/functional.py) and the kernels' shape checks.
#include <hetero/interpolate.hpp>

#include <cmath>
#include <exception>
#include <string>
#include <vector>

#include <hetero/conv.hpp>
#include <hetero/conv1d.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "host_table.hpp"
#include "op_helpers.hpp"
#include "profiler_record.hpp"

namespace hetero {

namespace {

using detail::shape_str;

bool weighted(InterpolateMode m) {
  return m == InterpolateMode::linear || m == InterpolateMode::bilinear ||
         m == InterpolateMode::trilinear || m == InterpolateMode::bicubic;
}

// The input rank a mode needs (0: any of 3-5).
std::int64_t rank_of(InterpolateMode m) {
  switch (m) {
    case InterpolateMode::linear:
      return 3;
    case InterpolateMode::bilinear:
    case InterpolateMode::bicubic:
      return 4;
    case InterpolateMode::trilinear:
      return 5;
    default:
      return 0;
  }
}

std::string list_str(const std::vector<double>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + detail::format_double(v[i]);
  return s + ")";
}

// The output's spatial sizes and the scales handed to the kernels (none: in / out).
struct Plan {
  std::vector<std::int64_t> out;
  std::vector<std::optional<double>> scales;
};

Plan plan(const Tensor& x, const InterpolateOptions& o) {
  const std::string mode(interpolate_mode_name(o.mode));
  if (o.align_corners.has_value() && !weighted(o.mode))
    throw ValueError(
        "interpolate: align_corners option can only be set with the interpolating "
        "modes: linear | bilinear | bicubic | trilinear (got mode " +
        mode + ")");
  const std::int64_t dims = x.dim() - 2;
  const Shape spatial(x.shape().begin() + std::min<std::int64_t>(2, x.dim()), x.shape().end());
  const bool has_size = !o.size.empty(), has_scale = !o.scale_factor.empty();
  if (has_size && has_scale)
    throw ValueError("interpolate: only one of size or scale_factor should be defined");
  if (!has_size && !has_scale)
    throw ValueError("interpolate: either size or scale_factor should be defined");
  const auto count_ok = [dims](std::size_t n) {
    return n == 1 || static_cast<std::int64_t>(n) == dims;
  };
  if (has_size && !count_ok(o.size.size()))
    throw ValueError(
        "interpolate: Input and output must have the same number of spatial "
        "dimensions, but got input with spatial dimensions of " +
        shape_str(spatial) + " and output size of " +
        shape_str(Shape(o.size.begin(), o.size.end())) +
        ". Please provide input tensor in (N, C, d1, d2, ...,dK) format and output "
        "size in (o1, o2, ...,oK) format.");
  if (has_scale && !count_ok(o.scale_factor.size()))
    throw ValueError(
        "interpolate: Input and scale_factor must have the same number of spatial "
        "dimensions, but got input with spatial dimensions of " +
        shape_str(spatial) + " and scale_factor of shape " + list_str(o.scale_factor) +
        ". Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
        "scale_factor in (s1, s2, ...,sK) format.");
  if (has_size && o.recompute_scale_factor.value_or(false))
    throw ValueError(
        "interpolate: recompute_scale_factor is not meaningful with an explicit size.");
  if (x.dim() < 3 || x.dim() > 5)
    throw NotImplementedError(
        "interpolate: Input Error: Only 3D, 4D and 5D input Tensors supported (got " +
        std::to_string(x.dim()) +
        "D) for the modes: nearest | linear | bilinear | bicubic | "
        "trilinear | area | nearest-exact (got " +
        mode + ")");
  if (rank_of(o.mode) != 0 && rank_of(o.mode) != x.dim())
    throw NotImplementedError("interpolate: Got " + std::to_string(x.dim()) + "D input, but " +
                              mode + " mode needs " + std::to_string(rank_of(o.mode)) + "D input");
  Plan p;
  // area without a size recomputes (torch: "We compute output_size here, then un-set
  // scale_factors").
  const bool recompute =
      o.recompute_scale_factor.value_or(false) || (o.mode == InterpolateMode::area && has_scale);
  for (std::int64_t i = 0; i < dims; ++i) {
    const std::size_t k = o.size.size() == 1 || o.scale_factor.size() == 1 ? 0 : i;
    if (has_size) {
      p.out.push_back(o.size[k]);
      p.scales.emplace_back();
      continue;
    }
    const double s = o.scale_factor[k];
    if (!std::isfinite(s))
      throw ValueError("interpolate: scale_factor must be finite, got " + list_str(o.scale_factor) +
                       " (torch: \"cannot be represented as a SymInt\")");
    const double size = std::floor(static_cast<double>(spatial[i]) * s);
    if (!(std::fabs(size) < 9.2e18))
      throw ShapeError("interpolate: the output size " + detail::format_double(size) +
                       " overflows int64 (scale_factor " + list_str(o.scale_factor) + ")");
    p.out.push_back(static_cast<std::int64_t>(size));
    p.scales.push_back(recompute ? std::nullopt : std::optional<double>(s));
  }
  const auto sizes = [&](const std::vector<std::int64_t>& v) {
    static const char* names[] = {"D", "H", "W"};
    std::string s = "(";
    for (std::int64_t i = 0; i < dims; ++i)
      s += std::string(i ? ", " : "") + names[3 - dims + i] + ": " + std::to_string(v[i]);
    return s + ")";
  };
  // area is adaptive_avg_pool, which checks its own sizes (an empty output is allowed).
  if (o.mode == InterpolateMode::area) return p;
  bool positive = true;
  for (std::int64_t i = 0; i < dims; ++i) positive = positive && spatial[i] > 0 && p.out[i] > 0;
  if (!positive)
    throw ShapeError(
        "interpolate: Input and output sizes should be greater than 0, but got input " +
        sizes(std::vector<std::int64_t>(spatial.begin(), spatial.end())) + " output " +
        sizes(p.out));
  if (x.size(1) == 0)
    throw ShapeError("interpolate: Non-empty " + std::to_string(x.dim()) +
                     "D data tensor expected but got a tensor with sizes " + shape_str(x.shape()));
  if (weighted(o.mode) && !is_floating_point(x.dtype()))
    throw DTypeError("interpolate: " + mode + " needs a floating input, got " +
                     std::string(dtype_name(x.dtype())) + " (torch: \"not implemented for\")");
  Shape out_shape{x.size(0), x.size(1)};
  out_shape.insert(out_shape.end(), p.out.begin(), p.out.end());
  (void)detail::checked_numel(out_shape);
  return p;
}

// One dimension's taps: output position j reads input index[k][j] with weight[k][j].
template <class T>
struct Taps {
  std::vector<std::vector<std::int64_t>> index;
  std::vector<std::vector<T>> weight;  // empty: nearest (one tap, weight 1)
};

// `taps` taps of `out` positions each, their room reserved: OutOfMemoryError rather than a
// host vector that grows until the machine runs out (interpolate(x, {.size = {1 << 40}})).
template <class T>
Taps<T> empty_taps(std::size_t taps, bool weighted_taps, std::int64_t out) {
  Taps<T> t;
  t.index.resize(taps);
  if (weighted_taps) t.weight.resize(taps);
  detail::grow_host_table(
      [&] {
        for (auto& v : t.index) v.reserve(static_cast<std::size_t>(out));
        for (auto& v : t.weight) v.reserve(static_cast<std::size_t>(out));
      },
      [&] {
        return "interpolate: no host memory for the source indices of an output dimension of " +
               std::to_string(out) + " elements";
      });
  return t;
}

// torch's area_pixel_compute_scale (compute_scales_value without align_corners).
template <class T>
T pixel_scale(std::int64_t in, std::int64_t out, bool align_corners, std::optional<double> s) {
  if (align_corners) return out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  return s.has_value() && *s > 0 ? static_cast<T>(1.0 / *s)
                                 : static_cast<T>(in) / static_cast<T>(out);
}

// torch's area_pixel_compute_source_index.
template <class T>
T source_position(T scale, std::int64_t j, bool align_corners, bool cubic) {
  if (align_corners) return scale * static_cast<T>(j);
  const T src = scale * (static_cast<T>(j) + T(0.5)) - T(0.5);
  return !cubic && src < T(0) ? T(0) : src;
}

// floorf, as the kernels call it: the position rounded to float first.
template <class T>
std::int64_t floor_index(T position) {
  return static_cast<std::int64_t>(std::floor(static_cast<float>(position)));
}

template <class T>
Taps<T> nearest_taps(std::int64_t in, std::int64_t out, std::optional<double> s, bool exact) {
  const T scale = pixel_scale<T>(in, out, false, s);
  Taps<T> t = empty_taps<T>(1, false, out);
  for (std::int64_t j = 0; j < out; ++j) {
    const T position = exact ? scale * (static_cast<T>(j) + T(0.5)) : scale * static_cast<T>(j);
    t.index[0].push_back(std::min(floor_index(position), in - 1));
  }
  return t;
}

template <class T>
Taps<T> linear_taps(std::int64_t in, std::int64_t out, bool align_corners,
                    std::optional<double> s) {
  const T scale = pixel_scale<T>(in, out, align_corners, s);
  Taps<T> t = empty_taps<T>(2, true, out);
  for (std::int64_t j = 0; j < out; ++j) {
    std::int64_t i0 = j, i1 = j;
    T l0 = 1, l1 = 0;
    if (out != in) {  // equal sizes copy, as the kernel's compute_source_index_and_lambda
      const T position = source_position(scale, j, align_corners, false);
      i0 = std::min(floor_index(position), in - 1);
      l1 = std::min(std::max(position - static_cast<T>(i0), T(0)), T(1));
      i1 = i0 + (i0 < in - 1 ? 1 : 0);
      l0 = T(1) - l1;
    }
    t.index[0].push_back(i0);
    t.index[1].push_back(i1);
    t.weight[0].push_back(l0);
    t.weight[1].push_back(l1);
  }
  return t;
}

// Keys' cubic convolution kernel, a = -0.75 (torch's cubic_convolution1/2 and
// get_cubic_upsample_coefficients).
template <class T>
Taps<T> cubic_taps(std::int64_t in, std::int64_t out, bool align_corners, std::optional<double> s) {
  const T scale = pixel_scale<T>(in, out, align_corners, s);
  const T a = T(-0.75);
  const auto near = [a](T x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };
  const auto far = [a](T x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };
  Taps<T> t = empty_taps<T>(4, true, out);
  for (std::int64_t j = 0; j < out; ++j) {
    const T position = source_position(scale, j, align_corners, true);
    const std::int64_t i = floor_index(position);
    const T f = position - static_cast<T>(i), g = T(1) - f;
    const T w[4] = {far(f + T(1)), near(f), near(g), far(g + T(1))};
    for (std::int64_t k = 0; k < 4; ++k) {
      t.index[k].push_back(std::max<std::int64_t>(std::min(i - 1 + k, in - 1), 0));
      t.weight[k].push_back(w[k]);
    }
  }
  return t;
}

// x resized along dimension d by its taps: sum over k of x[index_k] * weight_k, in order.
template <class T>
Tensor along(const Tensor& x, std::int64_t d, const Taps<T>& taps) {
  const auto on = TensorOptions(x.device());
  Shape column(static_cast<std::size_t>(x.dim() - d), 1);  // [out, 1, ..., 1]
  Tensor sum;
  for (std::size_t k = 0; k < taps.index.size(); ++k) {
    const Tensor picked = index_select(x, d, from_vector(taps.index[k], on.dtype(DType::int64)));
    if (taps.weight.empty()) return picked;
    column[0] = static_cast<std::int64_t>(taps.weight[k].size());
    const Tensor term = picked * from_vector(taps.weight[k], on.dtype(x.dtype())).reshape(column);
    sum = k == 0 ? term : sum + term;
  }
  return sum;
}

template <class T>
Tensor resize(Tensor x, const InterpolateOptions& o, const Plan& p) {
  const bool align = o.align_corners.value_or(false);
  for (std::int64_t i = x.dim() - 3; i >= 0; --i) {
    const std::int64_t d = i + 2, in = x.size(d), out = p.out[i];
    const std::optional<double> s = p.scales[i];
    switch (o.mode) {
      case InterpolateMode::nearest:
      case InterpolateMode::nearest_exact:
        x = along(x, d, nearest_taps<T>(in, out, s, o.mode == InterpolateMode::nearest_exact));
        break;
      case InterpolateMode::bicubic:
        x = along(x, d, cubic_taps<T>(in, out, align, s));
        break;
      default:
        x = along(x, d, linear_taps<T>(in, out, align, s));
    }
  }
  return x;
}

// area: adaptive_avg_pool; a 3-d one as a 2-d one over (H, W), then a 1-d one over D (the
// mean over a box is the mean over D of the means over its (H, W) rectangles).
Tensor area(const Tensor& x, const Plan& p) {
  if (x.dim() == 3) return adaptive_avg_pool1d(x, p.out[0]);
  if (x.dim() == 4) return adaptive_avg_pool2d(x, {p.out[0], p.out[1]});
  const std::int64_t n = x.size(0), c = x.size(1), depth = x.size(2);
  const Tensor planes =
      adaptive_avg_pool2d(x.reshape({n, c * depth, x.size(3), x.size(4)}), {p.out[1], p.out[2]});
  const std::int64_t cells = p.out[1] * p.out[2];
  if (cells == 0) return planes.reshape({n, c, p.out[0], p.out[1], p.out[2]});  // no elements
  const Tensor rows = planes.reshape({n * c, depth, cells}).transpose(1, 2);    // [NC, cells, D]
  return adaptive_avg_pool1d(rows, p.out[0])
      .transpose(1, 2)
      .reshape({n, c, p.out[0], p.out[1], p.out[2]});
}

}  // namespace

std::string_view interpolate_mode_name(InterpolateMode mode) noexcept {
  switch (mode) {
    case InterpolateMode::nearest:
      return "nearest";
    case InterpolateMode::nearest_exact:
      return "nearest-exact";
    case InterpolateMode::linear:
      return "linear";
    case InterpolateMode::bilinear:
      return "bilinear";
    case InterpolateMode::bicubic:
      return "bicubic";
    case InterpolateMode::trilinear:
      return "trilinear";
    case InterpolateMode::area:
      return "area";
  }
  return "unknown";
}

Tensor interpolate(const Tensor& input, const InterpolateOptions& options) {
  const detail::prof::Scope op_scope("interpolate", input);
  detail::impl_of(input, "interpolate");
  const Plan p = plan(input, options);
  if (options.mode == InterpolateMode::area) return area(input, p);
  const DType t = input.dtype();
  // 16-bit in float32, rounded once; nearest too, so that its gradient, which sums what
  // each input element fed, is summed in float32.
  if (is_half(t)) return resize<float>(input.to(DType::float32), options, p).to(t);
  if (t == DType::float64) return resize<double>(input, options, p);
  return resize<float>(input, options, p);
}

}  // namespace hetero
