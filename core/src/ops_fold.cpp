// SPDX-License-Identifier: Apache-2.0
// unfold and fold (<hetero/fold.hpp>), as torch 1.13's im2col and col2im
// (aten/src/ATen/native/Im2Col.cpp, Col2Im.cpp, im2col_shape_check.h), composed from pad,
// narrow, reshape, stack and add: every backend runs those, and autograd records them.
#include <hetero/fold.hpp>

#include <string>
#include <vector>

#include <hetero/error.hpp>
#include <hetero/ops.hpp>
#include <hetero/padding.hpp>

#include "activation_helpers.hpp"
#include "op_helpers.hpp"
#include "profiler_record.hpp"

namespace hetero {

namespace {

using detail::shape_str;

std::string pair_str(Size2 s) {
  return "(" + std::to_string(s.h) + ", " + std::to_string(s.w) + ")";
}

// torch's parameter checks (im2col_shape_check.h), in its order and words.
void check_window(const char* op, Size2 k, Size2 d, Size2 p, Size2 s) {
  const auto both = [](const char* what, const char* h, const char* w, Size2 v) {
    return std::string(what) + h + std::to_string(v.h) + w + std::to_string(v.w);
  };
  if (k.h < 1 || k.w < 1)
    throw ValueError(std::string(op) + ": " +
                     both("kernel size should be greater than zero, but got",
                          " kernel_height: ", " kernel_width: ", k));
  if (s.h < 1 || s.w < 1)
    throw ValueError(std::string(op) + ": " +
                     both("stride should be greater than zero, but got",
                          " stride_height: ", " stride_width: ", s));
  if (d.h < 1 || d.w < 1)
    throw ValueError(std::string(op) + ": " +
                     both("dilation should be greater than zero, but got",
                          " dilation_height: ", " dilation_width: ", d));
  if (p.h < 0 || p.w < 0)
    throw ValueError(
        std::string(op) + ": " +
        both("padding should be non-negative, but got", " pad_height: ", " pad_width: ", p));
}

// `input` checked for `op` (floating; ValueError for the window) and made batched: rank
// `rank` or rank - 1 (unbatched: a batch of 1 is added), every dimension but the batch
// non-empty, else ShapeError with torch's `message` and the shape.
Tensor batched_input(const Tensor& input, const char* op, Size2 k, Size2 d, Size2 p, Size2 s,
                     std::int64_t rank, const char* message) {
  detail::check_floating(input, op);
  check_window(op, k, d, p, s);
  const bool batched = input.dim() == rank;
  bool empty = false;
  for (std::int64_t i = batched ? 1 : 0; i < input.dim(); ++i) empty = empty || input.size(i) == 0;
  if ((input.dim() != rank - 1 && !batched) || empty)
    throw ShapeError(std::string(op) + ": " + message + shape_str(input.shape()));
  return batched ? input : input.unsqueeze(0);
}

// floor((size + 2 pad - dilation (kernel - 1) - 1) / stride) + 1 (torch's div_rtn), and the
// padded size; ShapeError naming `op` where the padded size leaves int64.
struct Blocks {
  std::int64_t count;   // blocks along the dimension (may be < 1: the caller refuses)
  std::int64_t padded;  // size + 2 pad
  std::int64_t step;    // the stride, or 1 for a single block (its stride plays no part)
  std::int64_t reach;   // the rows the blocks' starts span: step * count
};
Blocks blocks_along(const char* op, std::int64_t size, std::int64_t k, std::int64_t d,
                    std::int64_t p, std::int64_t s) {
  std::int64_t twice = 0, padded = 0, span = 0;
  if (__builtin_mul_overflow(p, 2, &twice) || __builtin_add_overflow(size, twice, &padded))
    throw ShapeError(std::string(op) + ": the padded size " + std::to_string(size) + " + 2 * " +
                     std::to_string(p) + " overflows int64");
  // A window d (k - 1) + 1 wider than int64 holds covers no padded size: no block.
  if (__builtin_mul_overflow(d, k - 1, &span) || __builtin_add_overflow(span, 1, &span))
    return {0, padded, 1, 0};
  const std::int64_t num = padded - span;  // (both in [0, INT64_MAX]: no overflow)
  const std::int64_t count = num / s - (num % s != 0 && num < 0) + 1;  // (span >= 1)
  const std::int64_t step = count > 1 ? s : 1;
  std::int64_t reach = 0, end = 0;
  // (the last window's end, plus up to step - 1 rows: within int64, or the sizes are absurd)
  if (count >= 1 && (__builtin_mul_overflow(step, count, &reach) ||
                     __builtin_add_overflow(reach, span - 1, &end)))
    throw ShapeError(std::string(op) + ": " + std::to_string(count) + " blocks of stride " +
                     std::to_string(s) + " overflow int64");
  return {count, padded, step, reach};
}

// Every `step`-th of `len` elements of dimension `dim`, from `start`: narrow, split into
// [len / step, step] (len a multiple of step), keep the first of each step.
Tensor every(const Tensor& x, std::int64_t dim, std::int64_t start, std::int64_t count,
             std::int64_t step) {
  if (step == 1) return x.narrow(dim, start, count);
  Shape split = x.shape();
  const auto at = static_cast<std::size_t>(dim);
  split[at] = step;
  split.insert(split.begin() + static_cast<std::ptrdiff_t>(at), count);
  Shape out = x.shape();
  out[at] = count;
  return x.narrow(dim, start, count * step).reshape(split).narrow(dim + 1, 0, 1).reshape(out);
}

}  // namespace

Tensor unfold(const Tensor& input, Size2 kernel_size, Size2 dilation, Size2 padding, Size2 stride) {
  const detail::prof::Scope op_scope("unfold", input);
  const Tensor x = batched_input(input, "unfold", kernel_size, dilation, padding, stride, 4,
                                 "Expected 3D or 4D (batch mode) tensor with possibly 0 batch "
                                 "size and other non-zero dimensions for input, but got: ");
  const bool batched = input.dim() == 4;
  const std::int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  const Blocks bh = blocks_along("unfold", h, kernel_size.h, dilation.h, padding.h, stride.h);
  const Blocks bw = blocks_along("unfold", w, kernel_size.w, dilation.w, padding.w, stride.w);
  if (bh.count < 1 || bw.count < 1)
    throw ShapeError("unfold: Given input with spatial size (" + std::to_string(h) + ", " +
                     std::to_string(w) + "), kernel_size=" + pair_str(kernel_size) +
                     ", dilation=" + pair_str(dilation) + ", padding=" + pair_str(padding) +
                     ", calculated shape of the array of sliding blocks as (" +
                     std::to_string(bh.count) + ", " + std::to_string(bw.count) +
                     "), but its components must be at least one.");
  // Zero padding, plus up to stride - 1 zeros at the end so that every block's rows (and
  // columns) split evenly into [count, stride].
  const auto extra = [](const Blocks& b, std::int64_t k, std::int64_t d) {
    return std::max<std::int64_t>(0, (k - 1) * d + b.reach - b.padded);
  };
  const Tensor xp = pad(x, {padding.w, padding.w + extra(bw, kernel_size.w, dilation.w), padding.h,
                            padding.h + extra(bh, kernel_size.h, dilation.h)});
  std::vector<Tensor> blocks;
  for (std::int64_t i = 0; i < kernel_size.h; ++i) {
    const Tensor rows = every(xp, 2, i * dilation.h, bh.count, bh.step);
    for (std::int64_t j = 0; j < kernel_size.w; ++j)
      blocks.push_back(every(rows, 3, j * dilation.w, bw.count, bw.step));
  }
  // [N, C, kh kw, OH, OW] -> [N, C kh kw, OH OW]
  const Tensor out =
      stack(blocks, 2).reshape({n, c * kernel_size.h * kernel_size.w, bh.count * bw.count});
  return batched ? out : out.squeeze(0);
}

Tensor fold(const Tensor& input, Size2 output_size, Size2 kernel_size, Size2 dilation,
            Size2 padding, Size2 stride) {
  const detail::prof::Scope op_scope("fold", input);
  const Tensor x = batched_input(input, "fold", kernel_size, dilation, padding, stride, 3,
                                 "Expected 2D or 3D (batch mode) tensor for input with possibly "
                                 "0 batch size and non-zero dimensions for input, but got: ");
  const bool batched = input.dim() == 3;
  const std::int64_t n = x.size(0), ckk = x.size(1), l = x.size(2);
  // (kernel sizes whose product overflows divide no channel count)
  std::int64_t kk = 0;
  if (__builtin_mul_overflow(kernel_size.h, kernel_size.w, &kk) || ckk % kk != 0)
    throw ShapeError(
        "fold: Expected size of input's dimension 1 to be divisible by the product of "
        "kernel_size, but got input.size(1)=" +
        std::to_string(ckk) + " and kernel_size=" + pair_str(kernel_size) + ".");
  const Blocks bh =
      blocks_along("fold", output_size.h, kernel_size.h, dilation.h, padding.h, stride.h);
  const Blocks bw =
      blocks_along("fold", output_size.w, kernel_size.w, dilation.w, padding.w, stride.w);
  std::int64_t blocks = 0;
  const bool overflow = __builtin_mul_overflow(bh.count, bw.count, &blocks);
  if (output_size.h < 1 || output_size.w < 1 || bh.count < 1 || bw.count < 1 || overflow ||
      blocks != l)
    throw ShapeError("fold: Given output_size=" + pair_str(output_size) +
                     ", kernel_size=" + pair_str(kernel_size) + ", dilation=" + pair_str(dilation) +
                     ", padding=" + pair_str(padding) + ", stride=" + pair_str(stride) +
                     ", expected size of input's dimension 2 to match the calculated number of "
                     "sliding blocks " +
                     std::to_string(bh.count) + " * " + std::to_string(bw.count) + " = " +
                     (overflow ? std::string("(beyond int64)") : std::to_string(blocks)) +
                     ", but got input.size(2)=" + std::to_string(l) + ".");
  const std::int64_t c = ckk / kk, oh = bh.count, ow = bw.count;
  const Tensor cols = x.reshape({n, c, kk, oh, ow});
  // Each kernel position's block spread to its rows i d.h + t s.h and columns j d.w + u s.w
  // of the padded image (zeros between and around), added in kernel order as col2im does.
  Tensor sum;
  for (std::int64_t i = 0; i < kernel_size.h; ++i)
    for (std::int64_t j = 0; j < kernel_size.w; ++j) {
      const Tensor block = cols.narrow(2, i * kernel_size.w + j, 1).reshape({n, c, oh, 1, ow, 1});
      const Tensor spread =
          pad(block, {0, bw.step - 1, 0, 0, 0, bh.step - 1}).reshape({n, c, bh.reach, bw.reach});
      const std::int64_t top = i * dilation.h, left = j * dilation.w;
      const Tensor placed =
          pad(spread, {left, bw.padded - left - bw.reach, top, bh.padded - top - bh.reach});
      sum = sum.defined() ? sum + placed : placed;
    }
  const Tensor out = pad(sum, {-padding.w, -padding.w, -padding.h, -padding.h});
  return batched ? out : out.squeeze(0);
}

}  // namespace hetero
