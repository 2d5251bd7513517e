// SPDX-License-Identifier: Apache-2.0
#pragma once
// The host-side layout of a PackedSequence, checked once for pad_packed_sequence and the
// recurrent layers.
#include <cstdint>
#include <string>
#include <vector>

#include <hetero/nn/packed_sequence.hpp>

namespace hetero::detail {

/// A PackedSequence's steps: batch_sizes[t] rows of data starting at row offsets[t].
struct PackedLayout {
  std::vector<std::int64_t> batch_sizes;
  std::vector<std::int64_t> offsets;
};

/// Reads and checks `p` (`who` names the caller in messages): ValueError for undefined data
/// or batch_sizes, data of 0 dimensions, batch_sizes that are not a non-empty 1-D integer
/// tensor of positive, non-increasing values adding up to data's rows, or sorted and
/// unsorted indices that are not both undefined or both 1-D with batch_sizes[0] elements.
PackedLayout packed_layout(const nn::PackedSequence& p, const std::string& who);

}  // namespace hetero::detail
