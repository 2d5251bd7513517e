// SPDX-License-Identifier: Apache-2.0
#pragma once
// gather without its index range check, for callers whose indices are in range by
// construction (ops_index.cpp).
#include <cstdint>

#include <hetero/tensor.hpp>

namespace hetero::detail {

/// gather(input, d, index) as the public one (int64 index of input's rank; recorded as
/// GatherBackward), without reading the index's range from the device: no host wait. The
/// caller guarantees every index lies in [0, input.size(d)) and the shapes fit (an index
/// outside reads outside the tensor). CrossEntropyLoss's targets, replaced where ignored or
/// out of range, are such indices.
Tensor gather_unchecked(const Tensor& input, std::int64_t d, const Tensor& index);

}  // namespace hetero::detail
