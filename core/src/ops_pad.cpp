// SPDX-License-Identifier: Apache-2.0
// pad (<hetero/padding.hpp>) as torch.nn.functional.pad in torch 1.13: the constant mode as
// constant_pad_nd (a fill, the input's region copied in; its gradient is the output's
// gradient padded back by the negated amounts), the other modes as one index_select per
// padded dimension with a host-built index (reflection_pad*d, replication_pad*d and
// _pad_circular give the same values), so every backend runs it. Checks and messages follow
// torch's (aten/src/ATen/native/{PadNd,ConstantPadNd,ReflectionPad,ReplicationPadding}.cpp).
#include <hetero/padding.hpp>

#include <algorithm>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "autograd/record.hpp"
#include "host_table.hpp"
#include "op_helpers.hpp"
#include "profiler_record.hpp"

namespace hetero {

namespace {

using detail::list_str;
using detail::shape_str;

// n + before + after; ShapeError when it overflows int64.
std::int64_t padded_size(std::int64_t n, std::int64_t before, std::int64_t after) {
  std::int64_t size = 0;
  if (__builtin_add_overflow(n, before, &size) || __builtin_add_overflow(size, after, &size))
    throw ShapeError("pad: the size " + std::to_string(n) + " padded by " + std::to_string(before) +
                     " and " + std::to_string(after) + " overflows int64");
  return size;
}

// The dimension of input that pair i pads (pair 0: the last dimension).
std::int64_t padded_dim(const Tensor& x, std::size_t pair) {
  return x.dim() - 1 - static_cast<std::int64_t>(pair);
}

Tensor constant_pad(const Tensor& x, const std::vector<std::int64_t>& amounts, double value) {
  Shape shape = x.shape();
  Tensor core = x;  // the input without its cropped elements
  for (std::size_t i = 0; i < amounts.size() / 2; ++i) {
    const std::int64_t d = padded_dim(x, i), n = x.size(d);
    const std::int64_t before = amounts[2 * i], after = amounts[2 * i + 1];
    const std::int64_t size = padded_size(n, before, after);
    // torch narrows the front crop first, then the back crop from what is left; each must
    // fit, even where the other side's padding would make the output size non-negative.
    const std::int64_t cut_before = before < 0 ? -before : 0;
    if (cut_before > n)
      throw IndexError("pad: cropping " + std::to_string(cut_before) +
                       " elements from the front of dimension " + std::to_string(d) + " of size " +
                       std::to_string(n) + " of input " + shape_str(x.shape()) + ", padding " +
                       list_str(amounts) + " (torch: \"Dimension out of range\" from narrow)");
    if (after < 0 && -after > n - cut_before)
      throw ShapeError("pad: cropping " + std::to_string(-after) +
                       " elements from the back of dimension " + std::to_string(d) + " of size " +
                       std::to_string(n) + " after " + std::to_string(cut_before) +
                       " from the front, of input " + shape_str(x.shape()) + ", padding " +
                       list_str(amounts) + " (torch: \"exceeds dimension size\" from narrow)");
    if (size < 0)
      throw ShapeError("pad: the input size " + std::to_string(n) + " of dimension " +
                       std::to_string(d) + ", padded by " + std::to_string(before) + " and " +
                       std::to_string(after) + ", gives a negative output size " +
                       std::to_string(size) + " (torch: \"resulted in a negative output size\")");
    shape[static_cast<std::size_t>(d)] = size;
    core = core.narrow(d, cut_before, n - cut_before - (after < 0 ? -after : 0));
  }
  (void)detail::checked_numel(shape);
  Tensor out;
  {
    NoGradGuard no_grad;
    out = full(shape, value, TensorOptions(x.device()).dtype(x.dtype()));
    if (core.numel() > 0) {
      Tensor region = out;
      for (std::size_t i = 0; i < amounts.size() / 2; ++i) {
        const std::int64_t d = padded_dim(x, i);
        region = region.narrow(d, std::max<std::int64_t>(amounts[2 * i], 0), core.size(d));
      }
      region.copy_(core);
    }
  }
  return detail::record("ConstantPadNdBackward", out, {x}, [&] {
    std::vector<std::int64_t> back(amounts.size());
    std::transform(amounts.begin(), amounts.end(), back.begin(), [](std::int64_t a) { return -a; });
    return [back](const Tensor& grad) {
      return detail::Gradients{pad(grad, back, PadMode::constant, 0.0)};
    };
  });
}

// The input element that output element j of a dimension of size n copies, padded by
// `before` (negative: cropped).
std::int64_t source_index(PadMode mode, std::int64_t j, std::int64_t n, std::int64_t before,
                          std::int64_t after) {
  std::int64_t i = j - before;
  switch (mode) {
    case PadMode::reflect:
      if (i < 0) i = -i;
      if (i >= n) i = 2 * (n - 1) - i;
      return i;
    case PadMode::replicate:
      return std::clamp<std::int64_t>(i, 0, n - 1);
    default: {  // circular: periodic over the elements the crops keep
      const std::int64_t lo = std::max<std::int64_t>(-before, 0);
      const std::int64_t kept = n - lo - std::max<std::int64_t>(-after, 0);
      if (kept <= 0) return 0;  // an input without elements: nothing is read
      const std::int64_t k = j - std::max<std::int64_t>(before, 0);
      return lo + ((k % kept) + kept) % kept;
    }
  }
}

void check_mode_pad(PadMode mode, const Tensor& x, std::int64_t d, std::int64_t before,
                    std::int64_t after) {
  const std::int64_t n = x.size(d), size = padded_size(n, before, after);
  const std::string where =
      " of dimension " + std::to_string(d) + " of input " + shape_str(x.shape());
  if (mode == PadMode::reflect && (before >= n || after >= n))
    throw ValueError(
        "pad: Padding size should be less than the corresponding input dimension, "
        "but got: padding (" +
        std::to_string(before) + ", " + std::to_string(after) + ") for size " + std::to_string(n) +
        where + " (reflect, as torch)");
  if (mode == PadMode::circular && (before > n || after > n))
    throw ValueError("pad: Padding value causes wrapping around more than once: padding (" +
                     std::to_string(before) + ", " + std::to_string(after) + ") for size " +
                     std::to_string(n) + where + " (circular, as torch)");
  if (size < 0)
    throw ShapeError("pad: input (size " + std::to_string(n) + ")" + where +
                     " is too small. Calculated output size: " + std::to_string(size) + " (" +
                     std::string(pad_mode_name(mode)) + ")");
  const std::int64_t kept =
      n - std::max<std::int64_t>(-before, 0) - std::max<std::int64_t>(-after, 0);
  if (mode == PadMode::circular && kept <= 0 && size > 0 && x.numel() > 0)
    throw ValueError("pad: circular padding (" + std::to_string(before) + ", " +
                     std::to_string(after) + ") for size " + std::to_string(n) + where +
                     " crops every element it would repeat (torch reads uninitialised memory)");
}

Tensor mode_pad(const Tensor& x, const std::vector<std::int64_t>& amounts, PadMode mode,
                double value) {
  const std::int64_t pairs = static_cast<std::int64_t>(amounts.size() / 2);
  const std::string name(pad_mode_name(mode));
  if (value != 0)
    throw ValueError("pad: Padding mode \"" + name + "\" doesn't take in value argument (got " +
                     detail::format_double(value) + ", as torch)");
  const bool rank_ok =
      mode == PadMode::circular
          ? x.dim() == pairs + 2
          : pairs >= 1 && pairs <= 3 && (x.dim() == pairs + 1 || x.dim() == pairs + 2);
  if (!rank_ok)
    throw NotImplementedError(
        "pad: " + name + " padding of " + std::to_string(pairs) + " dimension(s) of a " +
        std::to_string(x.dim()) + "-d input " + shape_str(x.shape()) +
        (mode == PadMode::circular
             ? std::string(": circular pads every dimension after the first two (torch: "
                           "\"Invalid padding size\")")
             : std::string(": only 1, 2 or 3 padded dimensions of a 2-3, 3-4 or 4-5-d input "
                           "(torch: \"Only 2D, 3D, 4D, 5D padding with non-constant padding "
                           "are supported for now\")")));
  if (mode != PadMode::circular)
    for (std::int64_t d = 1; d < x.dim(); ++d)
      if (x.size(d) == 0)
        throw ShapeError("pad: " + name +
                         " padding needs every dimension but the first to be "
                         "non-empty, got input " +
                         shape_str(x.shape()) + " (as torch)");
  for (std::int64_t i = 0; i < pairs; ++i)
    check_mode_pad(mode, x, padded_dim(x, static_cast<std::size_t>(i)), amounts[2 * i],
                   amounts[2 * i + 1]);
  Shape shape = x.shape();
  for (std::int64_t i = 0; i < pairs; ++i) {
    const std::int64_t d = padded_dim(x, static_cast<std::size_t>(i));
    shape[static_cast<std::size_t>(d)] = padded_size(x.size(d), amounts[2 * i], amounts[2 * i + 1]);
  }
  (void)detail::checked_numel(shape);
  Tensor out = x;
  const auto index_options = TensorOptions(x.device()).dtype(DType::int64);
  for (std::int64_t i = 0; i < pairs; ++i) {
    const std::int64_t d = padded_dim(x, static_cast<std::size_t>(i)), n = x.size(d);
    const std::int64_t before = amounts[2 * i], after = amounts[2 * i + 1];
    std::vector<std::int64_t> index;
    detail::grow_host_table([&] { index.resize(static_cast<std::size_t>(n + before + after)); },
                            [&] {
                              return "pad: no host memory for the index of an output dimension "
                                     "of " +
                                     std::to_string(n + before + after) + " elements, output " +
                                     shape_str(shape);
                            });
    for (std::size_t j = 0; j < index.size(); ++j)
      index[j] = source_index(mode, static_cast<std::int64_t>(j), n, before, after);
    out = index_select(out, d, from_vector(index, index_options));
  }
  return pairs == 0 ? x.clone() : out;
}

}  // namespace

std::string_view pad_mode_name(PadMode mode) noexcept {
  switch (mode) {
    case PadMode::constant:
      return "constant";
    case PadMode::reflect:
      return "reflect";
    case PadMode::replicate:
      return "replicate";
    case PadMode::circular:
      return "circular";
  }
  return "unknown";
}

Tensor pad(const Tensor& input, const std::vector<std::int64_t>& amounts, PadMode mode,
           double value) {
  const detail::prof::Scope op_scope("pad", input);
  detail::impl_of(input, "pad");
  if (amounts.size() % 2 != 0)
    throw ValueError("pad: Padding length must be divisible by 2, got " +
                     std::to_string(amounts.size()) + " amounts " + list_str(amounts) +
                     " (as torch)");
  for (std::int64_t a : amounts)
    if (a == std::numeric_limits<std::int64_t>::min())
      throw ValueError("pad: an amount of -2^63 " + list_str(amounts) +
                       " (its negation overflows int64)");
  if (static_cast<std::int64_t>(amounts.size() / 2) > input.dim())
    throw ValueError("pad: Padding length too large: " + std::to_string(amounts.size() / 2) +
                     " pairs " + list_str(amounts) + " for a " + std::to_string(input.dim()) +
                     "-d input " + shape_str(input.shape()) + " (as torch)");
  if (mode == PadMode::constant) return constant_pad(input, amounts, value);
  return mode_pad(input, amounts, mode, value);
}

}  // namespace hetero
