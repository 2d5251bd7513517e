// SPDX-License-Identifier: Apache-2.0
// torch.nn.utils.rnn's packing (torch 1.13: torch/nn/utils/rnn.py and
// aten/src/ATen/native/PackedSequence.cpp). The layout is computed on the host from the
// lengths; the data moves by one index_select each way, so its gradient is autograd's.
#include <hetero/nn/packed_sequence.hpp>

#include <algorithm>
#include <numeric>
#include <string>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "../op_helpers.hpp"
#include "packed_layout.hpp"

namespace hetero::nn {

namespace {

Shape trailing(const Tensor& t, std::int64_t from) {
  const Shape& s = t.shape();
  return Shape(s.begin() + from, s.end());
}

Shape with_front(std::initializer_list<std::int64_t> front, const Shape& rest) {
  Shape s(front);
  s.insert(s.end(), rest.begin(), rest.end());
  return s;
}

Tensor int64_on(const std::vector<std::int64_t>& v, const Device& device) {
  return tensor(v, TensorOptions(device).dtype(DType::int64));
}

}  // namespace

PackedSequence PackedSequence::to(const Device& device) const {
  const auto move = [&](const Tensor& t) { return t.defined() ? t.to(device) : t; };
  return {move(data), batch_sizes, move(sorted_indices), move(unsorted_indices)};
}

PackedSequence pack_padded_sequence(const Tensor& input, const std::vector<std::int64_t>& lengths,
                                    bool batch_first, bool enforce_sorted) {
  if (!input.defined()) throw ValueError("pack_padded_sequence: undefined input");
  if (input.dim() < 2)
    throw ShapeError("pack_padded_sequence: input must be [T, B, *] ([B, T, *] with " +
                     std::string("batch_first), got shape ") + detail::shape_str(input.shape()));
  if (input.numel() == 0) throw ValueError("pack_padded_sequence: Cannot pack empty tensors.");
  const Tensor x = batch_first ? input.transpose(0, 1) : input;  // [T, B, *]
  const std::int64_t T = x.size(0), B = x.size(1);
  if (static_cast<std::int64_t>(lengths.size()) != B)
    throw ValueError(
        "pack_padded_sequence: Expected `len(lengths)` to be equal to batch_size, "
        "but got " +
        std::to_string(lengths.size()) + " (batch_size=" + std::to_string(B) + ")");
  // order[k]: the input column packed k-th, longest first (stable among equal lengths).
  std::vector<std::int64_t> order(static_cast<std::size_t>(B));
  std::iota(order.begin(), order.end(), 0);
  if (enforce_sorted) {
    if (!std::is_sorted(lengths.rbegin(), lengths.rend()))
      throw ValueError(
          "pack_padded_sequence: `lengths` array must be sorted in decreasing order when "
          "`enforce_sorted` is True. You can pass `enforce_sorted=False` to pack_padded_sequence "
          "and/or pack_sequence to sidestep this requirement if you do not need ONNX "
          "exportability.");
  } else {
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
      return lengths[static_cast<std::size_t>(a)] > lengths[static_cast<std::size_t>(b)];
    });
  }
  const std::int64_t longest = lengths[static_cast<std::size_t>(order.front())];
  if (lengths[static_cast<std::size_t>(order.back())] <= 0)
    throw ValueError(
        "pack_padded_sequence: Length of all samples has to be greater than 0, but "
        "found an element in 'lengths' that is <= 0");
  if (longest > T)
    throw ValueError("pack_padded_sequence: a length of " + std::to_string(longest) +
                     " exceeds the input's " + std::to_string(T) +
                     " time steps (torch drops the extra steps silently)");
  std::vector<std::int64_t> batch_sizes, rows;
  for (std::int64_t t = 0; t < longest; ++t) {
    std::int64_t n = 0;
    while (n < B && lengths[static_cast<std::size_t>(order[static_cast<std::size_t>(n)])] > t) {
      rows.push_back(t * B + order[static_cast<std::size_t>(n)]);
      ++n;
    }
    batch_sizes.push_back(n);
  }
  const Tensor flat = x.reshape(with_front({T * B}, trailing(x, 2)));
  PackedSequence p{index_select(flat, 0, int64_on(rows, x.device())),
                   tensor(batch_sizes, TensorOptions().dtype(DType::int64)), Tensor(), Tensor()};
  if (!enforce_sorted) {
    std::vector<std::int64_t> inverse(order.size());
    for (std::size_t k = 0; k < order.size(); ++k)
      inverse[static_cast<std::size_t>(order[k])] = static_cast<std::int64_t>(k);
    p.sorted_indices = int64_on(order, x.device());
    p.unsorted_indices = int64_on(inverse, x.device());
  }
  return p;
}

PackedSequence pack_padded_sequence(const Tensor& input, const Tensor& lengths, bool batch_first,
                                    bool enforce_sorted) {
  if (!lengths.defined()) throw ValueError("pack_padded_sequence: undefined lengths");
  if (lengths.dim() != 1)
    throw ShapeError("pack_padded_sequence: 'lengths' argument should be a 1D tensor, but got " +
                     std::to_string(lengths.dim()) + "D");
  if (lengths.dtype() == DType::bool_)
    throw DTypeError(std::string("pack_padded_sequence: 'lengths' should be an integer or ") +
                     "floating tensor, " + "got " + std::string(dtype_name(lengths.dtype())));
  return pack_padded_sequence(input, lengths.to(DType::int64).to_vector<std::int64_t>(),
                              batch_first, enforce_sorted);
}

PaddedSequence pad_packed_sequence(const PackedSequence& sequence, bool batch_first,
                                   double padding_value, std::optional<std::int64_t> total_length) {
  const detail::PackedLayout layout = detail::packed_layout(sequence, "pad_packed_sequence");
  const std::int64_t T = static_cast<std::int64_t>(layout.batch_sizes.size());
  const std::int64_t B = layout.batch_sizes.front(), steps = total_length.value_or(T);
  if (steps < T)
    throw ValueError(
        "pad_packed_sequence: Expected total_length to be at least the length of the "
        "longest sequence in input, but got total_length=" +
        std::to_string(steps) + " and max sequence length being " + std::to_string(T));
  const Tensor& data = sequence.data;
  const Shape rest = trailing(data, 1);
  const std::int64_t rows = data.size(0);
  // The result's shape first (ShapeError "too many elements" as the factories), so that a
  // huge total_length is a typed error before any host allocation.
  (void)detail::checked_numel({steps, B});
  (void)detail::checked_numel(with_front({steps, B}, rest));
  // The padded [steps, B] positions gather their packed row, or the padding row after the
  // data (row `rows`).
  std::vector<std::int64_t> gather;
  try {
    gather.assign(static_cast<std::size_t>(steps * B), rows);
  } catch (const std::exception&) {  // std::bad_alloc, or std::length_error past max_size()
    throw OutOfMemoryError("pad_packed_sequence: total_length=" + std::to_string(steps) +
                           " needs " + std::to_string(steps) + " x " + std::to_string(B) +
                           " int64 row indices (8 bytes each) of host memory, which the host "
                           "refused");
  }
  for (std::int64_t t = 0; t < T; ++t)
    for (std::int64_t k = 0; k < layout.batch_sizes[static_cast<std::size_t>(t)]; ++k)
      gather[static_cast<std::size_t>(t * B + k)] = layout.offsets[static_cast<std::size_t>(t)] + k;
  const Tensor pad =
      full(with_front({1}, rest), padding_value, TensorOptions(data.device()).dtype(data.dtype()));
  Tensor padded = index_select(cat({data, pad}, 0), 0, int64_on(gather, data.device()))
                      .reshape(with_front({steps, B}, rest));
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(B), 0);  // in packed order
  for (const std::int64_t n : layout.batch_sizes)
    for (std::int64_t k = 0; k < n; ++k) ++lengths[static_cast<std::size_t>(k)];
  if (sequence.unsorted_indices.defined()) {
    padded = index_select(padded, 1, sequence.unsorted_indices);
    const std::vector<std::int64_t> unsorted =
        sequence.unsorted_indices.to(DType::int64).to_vector<std::int64_t>();
    std::vector<std::int64_t> original(lengths.size());
    for (std::size_t b = 0; b < unsorted.size(); ++b)
      original[b] = lengths[static_cast<std::size_t>(unsorted[b])];
    lengths = std::move(original);
  }
  return {batch_first ? padded.transpose(0, 1) : padded,
          tensor(lengths, TensorOptions().dtype(DType::int64))};
}

Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first, double padding_value) {
  if (sequences.empty()) throw ValueError("pad_sequence: received an empty list of sequences");
  const Tensor& first = sequences.front();
  std::int64_t longest = 0;
  for (std::size_t i = 0; i < sequences.size(); ++i) {
    const Tensor& s = sequences[i];
    if (!s.defined())
      throw ValueError("pad_sequence: sequence " + std::to_string(i) + " is undefined");
    if (s.dim() == 0)
      throw ShapeError("pad_sequence: sequence " + std::to_string(i) +
                       " is 0-d; each must be [L, *]");
    if (trailing(s, 1) != trailing(first, 1))
      throw ShapeError("pad_sequence: sequence " + std::to_string(i) + " has shape " +
                       detail::shape_str(s.shape()) + ", whose trailing dimensions differ from " +
                       "sequence 0's " + detail::shape_str(first.shape()));
    longest = std::max(longest, s.size(0));
  }
  const TensorOptions o = TensorOptions(first.device()).dtype(first.dtype());
  std::vector<Tensor> columns;
  columns.reserve(sequences.size());
  for (const Tensor& s : sequences) {
    const Tensor same = s.to(first.device()).to(first.dtype());
    const std::int64_t missing = longest - s.size(0);
    columns.push_back(
        missing == 0
            ? same
            : cat({same, full(with_front({missing}, trailing(s, 1)), padding_value, o)}, 0));
  }
  return stack(columns, batch_first ? 0 : 1);
}

PackedSequence pack_sequence(const std::vector<Tensor>& sequences, bool enforce_sorted) {
  const Tensor padded = pad_sequence(sequences);
  std::vector<std::int64_t> lengths;
  lengths.reserve(sequences.size());
  for (const Tensor& s : sequences) lengths.push_back(s.size(0));
  return pack_padded_sequence(padded, lengths, false, enforce_sorted);
}

}  // namespace hetero::nn
