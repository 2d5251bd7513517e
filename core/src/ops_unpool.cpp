// SPDX-License-Identifier: Apache-2.0
// max_unpool2d (<hetero/conv.hpp>) as torch 1.13's F.max_unpool2d (_unpool_output_size in
// torch/nn/functional.py, max_unpooling2d_forward_out_cpu in aten/src/ATen/native/
// MaxUnpooling.cpp): each value scattered to its index in a zero plane, composed from sort,
// gather and scatter_add, with torch's backward (the output gradient gathered at the indices).
#include <string>

#include <hetero/autograd.hpp>
#include <hetero/conv.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>
#include <hetero/sorting.hpp>

#include "autograd/record.hpp"
#include "op_helpers.hpp"
#include "profiler_record.hpp"
#include "window_views.hpp"

namespace hetero {

namespace {

using detail::shape_str;

// torch's _unpool_output_size along one dimension: the default, or `requested` strictly
// within stride of it (ValueError otherwise).
std::int64_t unpooled_size(std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t p,
                           std::optional<std::int64_t> requested, int dim) {
  const std::int64_t def = detail::checked_geometry("max_unpool2d", {k, -p, -p}, {{in - 1, s}});
  if (!requested) return def;
  if (!(def - s < *requested && *requested < def + s))
    throw ValueError("max_unpool2d: invalid output_size (dim " + std::to_string(dim) +
                     " must be between " + std::to_string(def - s) + " and " +
                     std::to_string(def + s) + ", got " + std::to_string(*requested) +
                     ") (as torch)");
  return *requested;
}

}  // namespace

Tensor max_unpool2d(const Tensor& input, const Tensor& indices, Size2 kernel,
                    std::optional<Size2> stride, Size2 padding, std::optional<Size2> output_size) {
  const detail::prof::Scope op_scope("max_unpool2d", input);
  detail::impl_of(input, "max_unpool2d");
  detail::impl_of(indices, "max_unpool2d");
  detail::check_same_device("max_unpool2d", {&input, &indices});
  const Size2 s = stride.value_or(kernel);
  if (kernel.h < 1 || kernel.w < 1 || s.h < 1 || s.w < 1 || padding.h < 0 || padding.w < 0)
    throw ValueError(
        "max_unpool2d: kernel and stride must be positive and padding non-negative, "
        "got kernel " +
        shape_str({kernel.h, kernel.w}) + ", stride " + shape_str({s.h, s.w}) + ", padding " +
        shape_str({padding.h, padding.w}));
  if (indices.dtype() != DType::int64)
    throw DTypeError("max_unpool2d: elements in indices should be type int64 but got: " +
                     std::string(dtype_name(indices.dtype())) + " (as torch)");
  if (input.dim() != 3 && input.dim() != 4)
    throw ShapeError(
        "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor "
        "with " +
        std::to_string(input.dim()) + " dimensions. (as torch)");
  if (input.shape() != indices.shape())
    throw ShapeError(
        "max_unpool2d: Expected shape of indices to be same as that of the input "
        "tensor (" +
        shape_str(input.shape()) +
        ") but got indices tensor with "
        "shape: " +
        shape_str(indices.shape()) + " (as torch)");
  for (std::int64_t d = input.dim() - 3; d < input.dim(); ++d)
    if (input.size(d) == 0)
      throw ShapeError(
          "max_unpooling2d(): Expected input to have non-zero size for non-batch "
          "dimensions, but got " +
          shape_str(input.shape()) + " (as torch)");
  const std::int64_t h = input.size(-2), w = input.size(-1);
  const auto want = [&](bool rows) -> std::optional<std::int64_t> {
    if (!output_size) return std::nullopt;
    return rows ? output_size->h : output_size->w;
  };
  const std::int64_t oh = unpooled_size(h, kernel.h, s.h, padding.h, want(true), 0);
  const std::int64_t ow = unpooled_size(w, kernel.w, s.w, padding.w, want(false), 1);
  if (oh < 0 || ow < 0)
    throw ShapeError("max_unpool2d: the output size [" + std::to_string(oh) + ", " +
                     std::to_string(ow) + "] is negative");
  const std::int64_t planes = input.numel() / (h * w), cells = oh * ow;
  Shape out_shape = input.shape();
  out_shape[out_shape.size() - 2] = oh;
  out_shape[out_shape.size() - 1] = ow;
  (void)detail::checked_numel(out_shape);
  if (cells == 0)  // no output position (torch checks no index then): an empty result
    return input.flatten().narrow(0, 0, 0).reshape(out_shape);
  const Tensor idx = indices.reshape({planes, h * w});
  if (planes > 0) {
    // torch's kernel checks every index: one host read.
    const std::int64_t lo = min(idx).item<std::int64_t>(), hi = max(idx).item<std::int64_t>();
    if (lo < 0 || hi >= cells)
      throw IndexError("max_unpool2d: Found an invalid max index: " +
                       std::to_string(lo < 0 ? lo : hi) + " (output volumes are of size " +
                       std::to_string(oh) + "x" + std::to_string(ow) + ") (as torch)");
  }
  const Tensor out = detail::untracked([&] {
    // Where indices repeat, the last value (row-major) is written, as torch's loop: stably
    // sorted, an index is the last of its run where the next differs; only those are added.
    const Tensor perm = argsort(idx, 1, false, true);
    const Tensor sorted = gather(idx, 1, perm);
    const Tensor next_differs =
        cat({ne(sorted.narrow(1, 0, h * w - 1), sorted.narrow(1, 1, h * w - 1)),
             full({planes, 1}, 1.0, TensorOptions(idx.device()).dtype(DType::bool_))},
            1);
    const Tensor keep = scatter_add(zeros({planes, h * w}, TensorOptions(idx.device())), 1, perm,
                                    next_differs.to(DType::float32));
    const Tensor flat = input.reshape({planes, h * w});
    const Tensor values = where(ne(keep, 0.0), flat, zeros_like(flat));
    return scatter_add(zeros({planes, cells}, TensorOptions(input.device()).dtype(input.dtype())),
                       1, idx, values)
        .reshape(out_shape);
  });
  return detail::record("MaxUnpool2DBackward", out, {input}, [&] {
    return [ix = idx, planes, cells, shape = input.shape()](const Tensor& g) {
      return detail::Gradients{gather(g.reshape({planes, cells}), 1, ix).reshape(shape)};
    };
  });
}

}  // namespace hetero
