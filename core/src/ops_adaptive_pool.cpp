// SPDX-License-Identifier: Apache-2.0
// adaptive_avg_pool2d and adaptive_max_pool2d as torch.nn.functional's: window i of a
// dimension of size `in` split into `out` covers [floor(i in / out), ceil((i + 1) in / out)),
// as torch 1.13's (aten/src/ATen/native/AdaptiveAveragePooling.cpp, AdaptiveMaxPooling2d.cpp).
// Equal windows take the plain routes (a mean over a split dimension; max_pool2d); unequal ones
// gather each window's elements through a host-built index table.
#include <algorithm>
#include <cstddef>
#include <exception>
#include <initializer_list>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <hetero/autograd.hpp>
#include <hetero/conv.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "backend_calls.hpp"
#include "op_helpers.hpp"
#include "pool_input.hpp"
#include "profiler_record.hpp"
#include "window_views.hpp"

namespace hetero {
namespace {

// Window i's [start, end) along a dimension of `in` elements split into `out`.
std::pair<std::int64_t, std::int64_t> adaptive_window(std::int64_t i, std::int64_t in,
                                                      std::int64_t out) {
  return {i * in / out, ((i + 1) * in + out - 1) / out};
}

// The longest window of `in` split into `out`: at most ceil(in / out) + 1.
std::int64_t longest_window(std::int64_t in, std::int64_t out) {
  return std::min(in, in / out + 2);
}

// The product of `sizes` (a window table's slots); ShapeError naming `op` past int64.
std::size_t table_slots(const char* op, std::initializer_list<std::int64_t> sizes) {
  std::int64_t slots = 1;
  for (std::int64_t s : sizes)
    if (__builtin_mul_overflow(slots, s, &slots))
      throw ShapeError(std::string(op) +
                       ": the output size is too large (its windows overflow "
                       "int64)");
  return static_cast<std::size_t>(slots);
}

// Runs `allocate` (a window table's vectors); OutOfMemoryError naming `op` where the host
// has no room for them.
template <typename F>
void table_alloc(const char* op, F allocate) {
  try {
    allocate();
  } catch (const std::exception&) {  // bad_alloc, length_error
    throw OutOfMemoryError(std::string(op) +
                           ": the output size needs more host memory than there is for its "
                           "window table");
  }
}

// ValueError naming `op` for a negative output size.
void check_output_size(Size2 output_size, const char* op) {
  if (output_size.h < 0 || output_size.w < 0)
    throw ValueError(std::string(op) + ": output size must be non-negative, got " +
                     detail::size2_str(output_size));
}

// The checks both adaptive pools start with (as their doc comments say): the input as
// [N, C, H, W], and the output's element count within int64.
Tensor adaptive_input(const Tensor& input, Size2 output_size, const char* op) {
  const Tensor x4 = detail::pool_input(input, op);
  detail::check_pool_dtype(input, op);
  check_output_size(output_size, op);
  // The output must be a tensor hetero can index (ShapeError, not a failed allocation).
  (void)detail::checked_numel({x4.size(0), x4.size(1), output_size.h, output_size.w});
  return x4;
}

// No windows (an output size of 0): an empty result (as torch), still connected to the
// input for autograd (its gradient is zeros).
Tensor no_windows(const Tensor& input, const Tensor& x4, Size2 output_size) {
  const Tensor none = x4.narrow(2, 0, 0).narrow(3, 0, 0).sum(3, true).sum(2, true).expand(
      {x4.size(0), x4.size(1), output_size.h, output_size.w});
  const Tensor r = none.contiguous();
  return input.dim() == 4 ? r : r.squeeze(0);
}

// Adaptive average pooling along `dim` of x (2: rows, 3: columns): output i is the mean of
// the input's [floor(i in / out), ceil((i + 1) in / out)), as torch's
// adaptive_avg_pool2d. Each window is summed on its own (issue #44: averaging by a matrix
// product multiplied inf by 0, so one inf made NaN of its neighbours): the window's elements
// are gathered (index_select) into a [out, k] block, k the longest window, and the slots
// beyond a shorter window are masked to 0 (where, not a multiplication) before the sum.
Tensor adaptive_average(const Tensor& x, int dim, std::int64_t out) {
  const std::int64_t in = x.size(dim);
  if (in > 0 && in % out == 0) {
    // Equal windows of in / out (global average pooling: out 1): a mean over the split
    // dimension, with no window table (a table made on the host is a blocking copy, which
    // waits for all the work queued on the stream: 135 ms per ResNet-18 forward).
    Shape split = x.shape();
    split[static_cast<std::size_t>(dim)] = out;
    split.insert(split.begin() + dim + 1, in / out);
    return x.reshape(split).mean(dim + 1);
  }
  // The longest window: at most ceil(in / out) + 1 (slots beyond a window are masked).
  const std::int64_t k = longest_window(in, out);
  const std::size_t slots = table_slots("adaptive_avg_pool2d", {out, k});
  std::vector<std::int64_t> index;
  std::vector<bool> used;
  std::vector<double> count;
  table_alloc("adaptive_avg_pool2d", [&] {
    index.resize(slots);
    used.resize(slots);
    count.resize(static_cast<std::size_t>(out));
  });
  for (std::int64_t i = 0; i < out; ++i) {
    const auto [start, end] = adaptive_window(i, in, out);
    count[static_cast<std::size_t>(i)] = static_cast<double>(end - start);
    for (std::int64_t j = 0; j < k; ++j) {
      const auto slot = static_cast<std::size_t>(i * k + j);
      used[slot] = j < end - start;
      index[slot] = used[slot] ? start + j : start;
    }
  }
  const TensorOptions on(x.device());
  const Tensor gathered = index_select(x, dim, from_vector(index, on));
  Shape blocks = x.shape();
  blocks[static_cast<std::size_t>(dim)] = out;
  blocks.insert(blocks.begin() + dim + 1, k);
  const Shape mask_shape = dim == 2 ? Shape{out, k, 1} : Shape{out, k};
  const Shape count_shape = dim == 2 ? Shape{out, 1} : Shape{out};
  // Each window's sum in float64 where the device computes in it, divided there and rounded
  // once: a float32 sum rounded before the division overflowed where the mean does not (two
  // -2.55e38 in a window of 3 gave -inf, and beside an inf in the next average, NaN;
  // differential test seed 1130030 case 9261), against row 31 of docs/semantics.md. A
  // device without float64 sums in float32, as before.
  const bool wide =
      x.dtype() == DType::float32 && detail::runs_float64(x, BinaryOp::div) &&
      detail::calls::has_kernel(detail::storage_of(x), ReductionOp::sum, DType::float64);
  const Tensor masked = where(from_vector(used, mask_shape, on), gathered.view(blocks), 0.0);
  const Tensor sums = wide ? masked.sum(dim + 1, false, DType::float64) : masked.sum(dim + 1);
  const Tensor means =
      sums / from_vector(count, count_shape, TensorOptions(x.device()).dtype(sums.dtype()));
  return means.dtype() == x.dtype() ? means : means.to(x.dtype());
}

}  // namespace

Tensor adaptive_avg_pool2d(const Tensor& input, Size2 output_size) {
  const detail::prof::Scope op_scope("adaptive_avg_pool2d", input);
  const Tensor x4 = adaptive_input(input, output_size, "adaptive_avg_pool2d");
  if (output_size.h == 0 || output_size.w == 0) return no_windows(input, x4, output_size);
  // 16-bit inputs in float32, rounded once at the end (as torch's accumulate type).
  const DType t = x4.dtype();
  const bool narrow = t == DType::float16 || t == DType::bfloat16;
  const Tensor x = narrow ? x4.to(DType::float32) : x4;
  const std::int64_t plane = x.size(2) * x.size(3);
  // Global average pooling (output 1x1, ResNet's head): one mean along the last dimension of
  // an [N, C, H W] view, as torch's one sum and division per window; two means over split
  // dimensions (the general route below) reduced a strided middle dimension first and took
  // 5x libtorch's time at ResNet-18's [32, 512, 7, 7].
  const Tensor y = output_size.h == 1 && output_size.w == 1 && plane > 0
                       ? x.reshape({x.size(0), x.size(1), plane}).mean(2, true).unsqueeze(3)
                       : adaptive_average(adaptive_average(x, 2, output_size.h), 3, output_size.w);
  const Tensor r = narrow ? y.to(t) : y;
  return input.dim() == 4 ? r : r.squeeze(0);
}

namespace {

// adaptive_max_pool2d, and with `plane_index` where each maximum is (row * W + column, not
// recorded).
Tensor adaptive_max_pool2d_impl(const Tensor& input, Size2 output_size, Tensor* plane_index) {
  const detail::prof::Scope op_scope("adaptive_max_pool2d", input);
  const Tensor x4 = adaptive_input(input, output_size, "adaptive_max_pool2d");
  const bool unbatched = input.dim() == 3;
  if (output_size.h == 0 || output_size.w == 0) {
    const Tensor none = no_windows(input, x4, output_size);
    if (plane_index)
      *plane_index = zeros(none.shape(), TensorOptions(x4.device()).dtype(DType::int64));
    return none;
  }
  const std::int64_t n = x4.size(0), c = x4.size(1), h = x4.size(2), w = x4.size(3);
  const std::int64_t oh = output_size.h, ow = output_size.w;
  Tensor y;
  if (h % oh == 0 && w % ow == 0) {  // equal windows, side by side
    if (plane_index) {
      Tensor index;
      std::tie(y, index) = max_pool2d_with_indices(x4, {h / oh, w / ow});
      *plane_index = unbatched ? index.squeeze(0) : index;
    } else {
      y = max_pool2d(x4, {h / oh, w / ow});
    }
  } else {
    // Each window's elements in row-major order in kh kw slots; the slots beyond a shorter
    // window repeat its first element, so that argmax (the first maximum, NaN the largest)
    // still picks the window's first maximal element.
    const std::int64_t kh = longest_window(h, oh), kw = longest_window(w, ow);
    const std::size_t slots = table_slots("adaptive_max_pool2d", {oh, ow, kh, kw});
    std::vector<std::int64_t> index;
    table_alloc("adaptive_max_pool2d", [&] { index.resize(slots); });
    std::size_t slot = 0;
    for (std::int64_t i = 0; i < oh; ++i) {
      const auto [hs, he] = adaptive_window(i, h, oh);
      for (std::int64_t j = 0; j < ow; ++j) {
        const auto [ws, we] = adaptive_window(j, w, ow);
        for (std::int64_t a = 0; a < kh; ++a)
          for (std::int64_t b = 0; b < kw; ++b)
            index[slot++] = a < he - hs && b < we - ws ? (hs + a) * w + ws + b : hs * w + ws;
      }
    }
    const TensorOptions on(x4.device());
    const Tensor table = from_vector(index, on);
    const Tensor flat = x4.reshape({n, c, h * w});
    const std::int64_t cells = oh * ow, k = kh * kw;
    // Where each window's maximum is (a choice, not recorded), then the values gathered from
    // the input at those places: the gradient is one scatter_add of [N, C, OH OW] into the
    // input, as torch's kernel writes each window's one maximal element (through the
    // [N, C, OH OW, kh kw] windows it took 3.6x longer than torch's).
    Tensor where_max;
    {
      const NoGradGuard no_grad;
      const Tensor slot = argmax(index_select(flat, 2, table).view({n, c, cells, k}), 3);
      const Tensor first = arange(cells, on.dtype(DType::int64)) * k;  // each cell's slot 0
      where_max = index_select(table, 0, (slot + first).reshape({-1})).view({n, c, cells});
    }
    y = gather(flat, 2, where_max).view({n, c, oh, ow});
    if (plane_index) {
      const Tensor index = where_max.view({n, c, oh, ow});
      *plane_index = unbatched ? index.squeeze(0) : index;
    }
  }
  return unbatched ? y.squeeze(0) : y;
}

}  // namespace

Tensor adaptive_max_pool2d(const Tensor& input, Size2 output_size) {
  return adaptive_max_pool2d_impl(input, output_size, nullptr);
}

std::pair<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input, Size2 output_size) {
  Tensor index;
  Tensor y = adaptive_max_pool2d_impl(input, output_size, &index);
  return {std::move(y), std::move(index)};
}

}  // namespace hetero
