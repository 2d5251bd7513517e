// SPDX-License-Identifier: Apache-2.0
// embedding_bag and nn::EmbeddingBag (nn/embedding_bag.hpp) as torch 1.13's
// F.embedding_bag (torch/nn/functional.py) and _embedding_bag_cpu (aten/src/ATen/native/
// EmbeddingBag.cpp), composed from ops every backend runs: embedding (its index check and
// gradient), scatter_add into one row per bag and argmax/gather for mode max. Entries left
// out of every bag (padding, or after the last offset) go to one extra row that is dropped.
#include <hetero/nn/embedding_bag.hpp>

#include <limits>
#include <string>
#include <vector>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "../op_helpers.hpp"

namespace hetero::nn {

namespace {

using detail::shape_str;

bool is_index_dtype(DType t) { return t == DType::int64 || t == DType::int32; }

// The bags of the flattened input: for each of its L entries the bag it joins (B for an
// entry left out) and its place in the bag; B bags, the longest `longest` entries long.
struct Bags {
  Tensor bag, place;  // int64 [L] on the input's device
  std::int64_t count = 0, longest = 0;
};

// The bags of a [B, N] input: its rows.
Bags row_bags(const Tensor& input) {
  const std::int64_t b = input.size(0), n = input.size(1);
  const TensorOptions on = TensorOptions(input.device()).dtype(DType::int64);
  return {arange(b, on).unsqueeze(1).expand({b, n}).reshape({b * n}),
          arange(n, on).unsqueeze(0).expand({b, n}).reshape({b * n}), b, n};
}

// The bags of an [L] input cut at `offsets`: one host read of the offsets, checked as torch's.
Bags offset_bags(const Tensor& input, const Tensor& offsets, bool include_last_offset) {
  const std::int64_t length = input.size(0);
  const std::vector<std::int64_t> off = offsets.to(DType::int64).to_vector<std::int64_t>();
  const auto n = static_cast<std::int64_t>(off.size());
  if (n > 0 && off[0] != 0)
    throw ValueError(
        "embedding_bag: offsets[0] has to be 0, i.e., the first sequence in the mini-batch has "
        "to start from position 0. However, got " +
        std::to_string(off[0]) + " (as torch)");
  for (std::int64_t i = 1; i < n; ++i)
    if (off[static_cast<std::size_t>(i)] < off[static_cast<std::size_t>(i - 1)])
      throw ValueError("embedding_bag: offsets must be non-decreasing, but offsets[" +
                       std::to_string(i) + "] = " + std::to_string(off[i]) + " < offsets[" +
                       std::to_string(i - 1) + "] = " + std::to_string(off[i - 1]));
  if (n > 0 && off.back() > length)
    throw ValueError("embedding_bag: offsets[-1] can not be greater than input's length " +
                     std::to_string(length) + " but got offsets[-1] of " +
                     std::to_string(off.back()) + " (as torch)");
  Bags bags;
  bags.count = include_last_offset ? std::max<std::int64_t>(n - 1, 0) : n;
  std::vector<std::int64_t> bag(static_cast<std::size_t>(length), bags.count),
      place(static_cast<std::size_t>(length), 0);
  for (std::int64_t b = 0; b < bags.count; ++b) {
    const std::int64_t start = off[static_cast<std::size_t>(b)];
    const std::int64_t end = b + 1 < n ? off[static_cast<std::size_t>(b + 1)] : length;
    bags.longest = std::max(bags.longest, end - start);
    for (std::int64_t j = start; j < end; ++j) {
      bag[static_cast<std::size_t>(j)] = b;
      place[static_cast<std::size_t>(j)] = j - start;
    }
  }
  bags.bag = tensor(bag).to(input.device());
  bags.place = tensor(place).to(input.device());
  return bags;
}

void check_arguments(const Tensor& input, const Tensor& weight, const Tensor& offsets,
                     EmbeddingBagMode mode, const Tensor& per_sample_weights) {
  detail::impl_of(input, "embedding_bag");
  detail::impl_of(weight, "embedding_bag");
  if (input.dim() == 2 && offsets.defined())
    throw ShapeError(
        "embedding_bag: if input is 2D, then offsets has to be None, as input is treated is a "
        "mini-batch of fixed length sequences. However, found offsets of shape " +
        shape_str(offsets.shape()) + " (torch: ValueError)");
  if (input.dim() == 1 && !offsets.defined())
    throw ShapeError(
        "embedding_bag: offsets has to be a 1D Tensor but got None (torch: ValueError)");
  if (input.dim() != 1 && input.dim() != 2)
    throw ShapeError(
        "embedding_bag: input has to be 1D or 2D Tensor, but got Tensor of dimension " +
        std::to_string(input.dim()) + " (torch: ValueError)");
  if (offsets.defined() && offsets.dim() != 1)
    throw ShapeError("embedding_bag: offsets has to be a 1D Tensor, got shape " +
                     shape_str(offsets.shape()) + " (torch: ValueError)");
  if (!is_index_dtype(input.dtype()) || (offsets.defined() && !is_index_dtype(offsets.dtype())))
    throw DTypeError("embedding_bag: input and offsets must be int32 or int64, got " +
                     std::string(dtype_name(input.dtype())) +
                     (offsets.defined() ? " and " + std::string(dtype_name(offsets.dtype())) : ""));
  if (weight.dim() != 2)
    throw ShapeError("embedding_bag: weight must be 2-D [num_embeddings, embedding_dim], got " +
                     shape_str(weight.shape()));
  if (!is_floating_point(weight.dtype()))
    throw DTypeError("embedding_bag: weight must have a floating dtype, got " +
                     std::string(dtype_name(weight.dtype())));
  if (per_sample_weights.defined()) {
    if (mode != EmbeddingBagMode::sum)
      throw ValueError(
          "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
          "supported for mode='sum' (torch: NotImplementedError)");
    if (per_sample_weights.shape() != input.shape())
      throw ShapeError("embedding_bag: If per_sample_weights (" +
                       shape_str(per_sample_weights.shape()) +
                       ") is not None, then it must have the same shape as the input (" +
                       shape_str(input.shape()) + ") (as torch)");
    if (per_sample_weights.dtype() != weight.dtype())
      throw DTypeError("embedding_bag: per_sample_weights (" +
                       std::string(dtype_name(per_sample_weights.dtype())) +
                       ") must have weight's dtype (" + std::string(dtype_name(weight.dtype())) +
                       ") (as torch)");
  }
  std::vector<const Tensor*> all{&input, &weight};
  if (offsets.defined()) all.push_back(&offsets);
  if (per_sample_weights.defined()) all.push_back(&per_sample_weights);
  for (const Tensor* t : all) detail::check_same_device("embedding_bag", {&input, t});
}

// rows [L, D] added into one row per bag of bags.bag: [count + 1, D], the last row the
// entries left out.
Tensor bag_sums(const Tensor& rows, const Bags& bags) {
  const std::int64_t width = rows.size(1);
  const Tensor to =
      zeros({bags.count + 1, width}, TensorOptions(rows.device()).dtype(rows.dtype()));
  return scatter_add(to, 0, bags.bag.unsqueeze(1).expand({rows.size(0), width}), rows);
}

// Mode max: the rows laid out [B, longest, D] (-inf where a bag is shorter), the first
// maximum of each bag and column gathered (its gradient goes to that row only), 0 for an
// empty bag.
Tensor bag_maxima(const Tensor& rows, const Bags& bags) {
  const std::int64_t width = rows.size(1), slots = bags.count * bags.longest;
  const TensorOptions on = TensorOptions(rows.device()).dtype(DType::int64);
  // slot of each entry in the layout; entries left out go to one extra slot at the end
  const Tensor slot =
      where(lt(bags.bag, static_cast<double>(bags.count)), bags.bag * bags.longest + bags.place,
            full({}, static_cast<double>(slots), on));
  const Tensor filled =
      gt(scatter_add(zeros({slots + 1}, on), 0, slot, ones_like(slot)).narrow(0, 0, slots), 0.0)
          .reshape({bags.count, bags.longest, 1});
  const Tensor laid =
      scatter_add(zeros({slots + 1, width}, TensorOptions(rows.device()).dtype(rows.dtype())), 0,
                  slot.unsqueeze(1).expand({rows.size(0), width}), rows)
          .narrow(0, 0, slots)
          .reshape({bags.count, bags.longest, width});
  const Tensor candidates = where(filled, laid, -std::numeric_limits<double>::infinity());
  const Tensor first = argmax(candidates, 1, true);
  const Tensor best = gather(candidates, 1, first).squeeze(1);
  const Tensor any = gt(sum(filled.to(DType::int64), 1), 0.0);  // [B, 1]
  return where(any, best, 0.0);
}

}  // namespace

Tensor embedding_bag(const Tensor& input, const Tensor& weight, const Tensor& offsets,
                     EmbeddingBagMode mode, const Tensor& per_sample_weights,
                     bool include_last_offset, std::optional<std::int64_t> padding_idx) {
  check_arguments(input, weight, offsets, mode, per_sample_weights);
  const std::int64_t rows_in_table = weight.size(0), width = weight.size(1);
  if (padding_idx && (*padding_idx < -rows_in_table || *padding_idx >= rows_in_table))
    throw ValueError("embedding_bag: padding_idx must be within the number of embeddings, " +
                     std::to_string(-rows_in_table) + " through " +
                     std::to_string(rows_in_table - 1) + ", but got " +
                     std::to_string(*padding_idx) + " (as torch)");
  Bags bags = input.dim() == 2 ? row_bags(input) : offset_bags(input, offsets, include_last_offset);
  const Tensor flat = input.reshape({input.numel()}).to(DType::int64);
  if (padding_idx) {
    const std::int64_t pad = (*padding_idx + rows_in_table) % rows_in_table;
    bags.bag = where(
        eq(flat, static_cast<double>(pad)),
        full({}, static_cast<double>(bags.count), TensorOptions(flat.device()).dtype(DType::int64)),
        bags.bag);
  }
  const TensorOptions like = TensorOptions(weight.device()).dtype(weight.dtype());
  if (bags.count == 0 || bags.longest == 0) {
    // no bags, or only empty ones: zeros, still connected to the weight (and the per-sample
    // weights) for autograd: their gradients are zeros
    Tensor none = weight.narrow(0, 0, 0).sum(0);
    if (per_sample_weights.defined())
      none = none + per_sample_weights.flatten().narrow(0, 0, 0).sum();
    return none.unsqueeze(0).expand({bags.count, width}) + zeros({bags.count, width}, like);
  }
  // 16-bit rows are combined in float32 and rounded once
  const bool narrow16 = weight.dtype() == DType::float16 || weight.dtype() == DType::bfloat16;
  Tensor rows = embedding(flat, weight);
  if (narrow16) rows = rows.to(DType::float32);
  if (per_sample_weights.defined())
    rows = rows * per_sample_weights.reshape({flat.numel(), 1}).to(rows.dtype());
  Tensor out;
  if (mode == EmbeddingBagMode::max) {
    out = bag_maxima(rows, bags);
  } else {
    out = bag_sums(rows, bags).narrow(0, 0, bags.count);
    if (mode == EmbeddingBagMode::mean) {
      const Tensor ones_l = ones({flat.numel()}, TensorOptions(flat.device()).dtype(rows.dtype()));
      const Tensor counts =
          scatter_add(zeros({bags.count + 1}, TensorOptions(flat.device()).dtype(rows.dtype())), 0,
                      bags.bag, ones_l)
              .narrow(0, 0, bags.count);
      out = out / clamp(counts, Number(1.0), std::nullopt).unsqueeze(1);
    }
  }
  return narrow16 ? out.to(weight.dtype()) : out;
}

EmbeddingBag::EmbeddingBag(std::int64_t num_embeddings, std::int64_t embedding_dim,
                           EmbeddingBagOptions options, TensorOptions tensor_options)
    : Embedding(num_embeddings, embedding_dim, options.padding_idx, tensor_options), o_(options) {}

Tensor EmbeddingBag::forward(const Tensor& input, const Tensor& offsets,
                             const Tensor& per_sample_weights) {
  return embedding_bag(input, parameter("weight"), offsets, o_.mode, per_sample_weights,
                       o_.include_last_offset, padding_idx());
}

Tensor EmbeddingBag::forward(const Tensor& input) { return forward(input, Tensor()); }

}  // namespace hetero::nn
