// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file sorting.hpp
/// sort, argsort and topk, as torch's: along one dimension, NaN after every number in
/// ascending order and before every number in descending order (torch treats NaN as the
/// largest value), equal elements in their original order (hetero's sort is always stable:
/// stable = false is allowed to be, as in torch). Computed on the tensor's device by a
/// bitonic sorting network (Batcher 1968) of index_select, comparisons and where over (value,
/// index) pairs, so every backend runs it with the kernels it already has; the values are
/// gather(input, dim, indices), whose gradient scatters g back to the sorted positions (as
/// torch's sort_backward / topk's). Cost: about 12 kernels for each of the
/// log2(P) (log2(P) + 1) / 2 network stages, P the size of the dimension rounded up to a power
/// of 2, over tensors of input.numel() / n * P elements.
#include <cstdint>
#include <tuple>

#include <hetero/tensor.hpp>

namespace hetero {

/// (values, indices) of `input` sorted along `dim` (negative counts from the end), as
/// torch.sort: values of input's dtype and shape, indices int64 such that values =
/// gather(input, dim, indices). Every dtype (bool as false < true; topk refuses bool, as torch). A
/// 0-d input sorts as one element (dim -1 or 0). IndexError for a dimension out of range.
HETERO_API std::tuple<Tensor, Tensor> sort(const Tensor& input, std::int64_t dim = -1,
                                           bool descending = false, bool stable = false);

/// The indices of sort(input, dim, descending, stable), as torch.argsort.
HETERO_API Tensor argsort(const Tensor& input, std::int64_t dim = -1, bool descending = false,
                          bool stable = false);

/// The k largest (smallest when !largest) elements along `dim` and their indices, as
/// torch.topk: shape of input with size k at dim (DTypeError for bool, as torch), in sorted order
/// (descending for largest; `sorted` = false leaves the order unspecified in torch and sorted in
/// hetero); NaN counts as the largest value. Among equal values the lower index comes first (torch
/// leaves that order unspecified). IndexError when k < 0 or k > input.size(dim) (1 for a 0-d input)
/// or for a dimension out of range.
HETERO_API std::tuple<Tensor, Tensor> topk(const Tensor& input, std::int64_t k,
                                           std::int64_t dim = -1, bool largest = true,
                                           bool sorted = true);

}  // namespace hetero
