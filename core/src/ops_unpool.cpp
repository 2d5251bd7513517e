// SPDX-License-Identifier: Apache-2.0
// max_unpool1d, max_unpool2d and max_unpool3d (<hetero/conv1d.hpp>, <hetero/conv.hpp>,
// <hetero/conv3d.hpp>) as torch 1.13's F.max_unpool1d/2d/3d (_unpool_output_size in
// torch/nn/functional.py, max_unpooling2d/3d_forward_out_cpu in aten/src/ATen/native/
// MaxUnpooling.cpp): each value scattered to its index in a zero plane (or volume), composed
// from sort, gather and scatter_add, with torch's backward (the output gradient gathered at
// the indices). The 1-d form is the 2-d one over [..., L, 1], as torch's.
#include <string>
#include <vector>

#include <hetero/autograd.hpp>
#include <hetero/conv.hpp>
#include <hetero/conv1d.hpp>
#include <hetero/conv3d.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>
#include <hetero/sorting.hpp>

#include "autograd/record.hpp"
#include "op_helpers.hpp"
#include "pool_input.hpp"
#include "profiler_record.hpp"
#include "window_views.hpp"

namespace hetero {

namespace {

using detail::shape_str;
using Sizes = std::vector<std::int64_t>;

// One unpooling: its name, torch's kernel's name (its messages say "max_unpooling2d") and,
// per spatial dimension, the kernel, stride, padding and the requested output size.
struct Unpooling {
  const char* op;
  const char* native;
  Sizes kernel, stride, padding;
  std::optional<Sizes> output_size;
};

// torch's _unpool_output_size along one dimension: the default, or `requested` strictly
// within stride of it (ValueError otherwise).
std::int64_t unpooled_size(const Unpooling& u, std::int64_t in, std::size_t dim) {
  const std::int64_t k = u.kernel[dim], s = u.stride[dim], p = u.padding[dim];
  const std::int64_t def = detail::checked_geometry(u.op, {k, -p, -p}, {{in - 1, s}});
  if (!u.output_size) return def;
  const std::int64_t requested = (*u.output_size)[dim];
  if (!(def - s < requested && requested < def + s))
    throw ValueError(std::string(u.op) + ": invalid output_size (dim " + std::to_string(dim) +
                     " must be between " + std::to_string(def - s) + " and " +
                     std::to_string(def + s) + ", got " + std::to_string(requested) +
                     ") (as torch)");
  return requested;
}

// torch's checks of the arguments, in its order.
void check_unpooling(const Tensor& input, const Tensor& indices, const Unpooling& u) {
  const auto k = static_cast<std::int64_t>(u.kernel.size());
  detail::impl_of(input, u.op);
  detail::impl_of(indices, u.op);
  detail::check_same_device(u.op, {&input, &indices});
  for (std::size_t j = 0; j < u.kernel.size(); ++j)
    if (u.kernel[j] < 1 || u.stride[j] < 1 || u.padding[j] < 0)
      throw ValueError(std::string(u.op) +
                       ": kernel and stride must be positive and padding non-negative, got "
                       "kernel " +
                       shape_str(u.kernel) + ", stride " + shape_str(u.stride) + ", padding " +
                       shape_str(u.padding));
  if (indices.dtype() != DType::int64)
    throw DTypeError(std::string(u.op) + ": elements in indices should be type int64 but got: " +
                     std::string(dtype_name(indices.dtype())) + " (as torch)");
  if (input.dim() != k + 1 && input.dim() != k + 2)
    throw ShapeError("Input to " + std::string(u.native) + " should be a " + std::to_string(k + 1) +
                     "d or " + std::to_string(k + 2) + "d Tensor, but got a tensor with " +
                     std::to_string(input.dim()) + " dimensions. (as torch)");
  detail::check_pool_dtype(input, u.op);
  if (input.shape() != indices.shape())
    throw ShapeError(
        std::string(u.op) + ": Expected shape of indices to be same as that of the input tensor (" +
        shape_str(input.shape()) +
        ") but got indices tensor with shape: " + shape_str(indices.shape()) + " (as torch)");
  for (std::int64_t d = input.dim() - k - 1; d < input.dim(); ++d)
    if (input.size(d) == 0)
      throw ShapeError(std::string(u.native) +
                       "(): Expected input to have non-zero size for non-batch dimensions, but "
                       "got " +
                       shape_str(input.shape()) + " (as torch)");
}

// The unpooling of input [N, C, spatial...] (or [C, spatial...]) over its last k = 2 or 3
// dimensions.
Tensor unpool(const Tensor& input, const Tensor& indices, const Unpooling& u) {
  const detail::prof::Scope op_scope(u.op, input);
  check_unpooling(input, indices, u);
  const std::size_t k = u.kernel.size();
  Shape out_shape = input.shape();
  std::int64_t plane = 1, cells = 1;
  std::string volume;  // torch's "output volumes are of size OHxOW"
  for (std::size_t j = 0; j < k; ++j) {
    const std::size_t d = out_shape.size() - k + j;
    plane *= input.size(static_cast<std::int64_t>(d));
    out_shape[d] = unpooled_size(u, out_shape[d], j);
    volume += (j == 0 ? "" : "x") + std::to_string(out_shape[d]);
  }
  for (std::size_t j = 0; j < k; ++j) {
    const std::int64_t o = out_shape[out_shape.size() - k + j];
    if (o < 0)
      throw ShapeError(std::string(u.op) + ": the output size " + shape_str(out_shape) +
                       " is negative");
    cells = detail::checked_geometry(u.op, {}, {{cells, o}});
  }
  const std::int64_t planes = input.numel() / plane;
  (void)detail::checked_numel(out_shape);
  if (cells == 0)  // no output position (torch checks no index then): an empty result
    return input.flatten().narrow(0, 0, 0).reshape(out_shape);
  const Tensor idx = indices.reshape({planes, plane});
  if (planes > 0) {
    // torch's kernel checks every index: one host read.
    const auto [lo, hi] = detail::int_extrema(idx);
    if (lo < 0 || hi >= cells)
      throw IndexError(std::string(u.op) +
                       ": Found an invalid max index: " + std::to_string(lo < 0 ? lo : hi) +
                       " (output volumes are of size " + volume + ") (as torch)");
  }
  const Tensor out = detail::untracked([&] {
    // Where indices repeat, the last value (row-major) is written, as torch's loop: stably
    // sorted, an index is the last of its run where the next differs; only those are added.
    const Tensor perm = argsort(idx, 1, false, true);
    const Tensor sorted = gather(idx, 1, perm);
    const Tensor next_differs =
        cat({ne(sorted.narrow(1, 0, plane - 1), sorted.narrow(1, 1, plane - 1)),
             full({planes, 1}, 1.0, TensorOptions(idx.device()).dtype(DType::bool_))},
            1);
    const Tensor keep = scatter_add(zeros({planes, plane}, TensorOptions(idx.device())), 1, perm,
                                    next_differs.to(DType::float32));
    const Tensor flat = input.reshape({planes, plane});
    const Tensor values = where(ne(keep, 0.0), flat, zeros_like(flat));
    return scatter_add(zeros({planes, cells}, TensorOptions(input.device()).dtype(input.dtype())),
                       1, idx, values)
        .reshape(out_shape);
  });
  return detail::record(k == 2 ? "MaxUnpool2DBackward" : "MaxUnpool3DBackward", out, {input}, [&] {
    return [ix = idx, planes, cells, shape = input.shape()](const Tensor& g) {
      return detail::Gradients{gather(g.reshape({planes, cells}), 1, ix).reshape(shape)};
    };
  });
}

Sizes size2(const Size2& s) { return {s.h, s.w}; }
Sizes size3(const Size3& s) { return {s.d, s.h, s.w}; }

}  // namespace

Tensor max_unpool2d(const Tensor& input, const Tensor& indices, Size2 kernel,
                    std::optional<Size2> stride, Size2 padding, std::optional<Size2> output_size) {
  return unpool(input, indices,
                {"max_unpool2d", "max_unpooling2d", size2(kernel), size2(stride.value_or(kernel)),
                 size2(padding), output_size ? std::optional(size2(*output_size)) : std::nullopt});
}

Tensor max_unpool3d(const Tensor& input, const Tensor& indices, Size3 kernel,
                    std::optional<Size3> stride, Size3 padding, std::optional<Size3> output_size) {
  return unpool(input, indices,
                {"max_unpool3d", "max_unpooling3d", size3(kernel), size3(stride.value_or(kernel)),
                 size3(padding), output_size ? std::optional(size3(*output_size)) : std::nullopt});
}

Tensor max_unpool1d(const Tensor& input, const Tensor& indices, std::int64_t kernel,
                    std::optional<std::int64_t> stride, std::int64_t padding,
                    std::optional<std::int64_t> output_size) {
  detail::impl_of(input, "max_unpool1d");
  detail::impl_of(indices, "max_unpool1d");
  std::optional<Sizes> out;
  if (output_size) out = Sizes{*output_size, 1};
  // torch's F.max_unpool1d: max_unpool2d of [..., L, 1]
  return unpool(input.unsqueeze(-1), indices.unsqueeze(-1),
                {"max_unpool1d",
                 "max_unpooling2d",
                 {kernel, 1},
                 {stride.value_or(kernel), 1},
                 {padding, 0},
                 out})
      .squeeze(-1);
}

}  // namespace hetero
