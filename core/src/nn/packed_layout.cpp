// SPDX-License-Identifier: Apache-2.0
#include "packed_layout.hpp"

#include <hetero/error.hpp>

#include "../op_helpers.hpp"

namespace hetero::detail {

PackedLayout packed_layout(const nn::PackedSequence& p, const std::string& who) {
  if (!p.data.defined() || !p.batch_sizes.defined())
    throw ValueError(who + ": the PackedSequence's data or batch_sizes is undefined");
  if (p.data.dim() == 0) throw ValueError(who + ": the PackedSequence's data is 0-d");
  const Tensor& bs = p.batch_sizes;
  if (bs.dim() != 1 || bs.numel() == 0 || is_floating_point(bs.dtype()) ||
      bs.dtype() == DType::bool_)
    throw ValueError(who + ": batch_sizes must be a non-empty 1-D integer tensor, got " +
                     std::string(dtype_name(bs.dtype())) + " " + shape_str(bs.shape()));
  PackedLayout layout{bs.to(DType::int64).to_vector<std::int64_t>(), {}};
  std::int64_t rows = 0, previous = layout.batch_sizes.front();
  for (const std::int64_t n : layout.batch_sizes) {
    if (n <= 0 || n > previous)
      throw ValueError(who + ": batch_sizes must be positive and non-increasing, got " +
                       std::to_string(n) + " after " + std::to_string(previous));
    layout.offsets.push_back(rows);
    rows += n;
    previous = n;
  }
  if (rows != p.data.size(0))
    throw ValueError(who + ": batch_sizes add up to " + std::to_string(rows) +
                     " rows but the data has " + std::to_string(p.data.size(0)));
  const std::int64_t batch = layout.batch_sizes.front();
  if (p.sorted_indices.defined() != p.unsorted_indices.defined())
    throw ValueError(who +
                     ": sorted_indices and unsorted_indices are given together or not at all");
  for (const Tensor* t : {&p.sorted_indices, &p.unsorted_indices})
    if (t->defined() && (t->dim() != 1 || t->numel() != batch))
      throw ValueError(who + ": sorted_indices and unsorted_indices must be 1-D with " +
                       std::to_string(batch) + " elements (batch_sizes[0]), got " +
                       shape_str(t->shape()));
  return layout;
}

}  // namespace hetero::detail
