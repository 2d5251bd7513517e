// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/packed_sequence.hpp
/// Variable-length batches for the recurrent layers, as torch 1.13's torch.nn.utils.rnn:
/// PackedSequence, pack_padded_sequence, pad_packed_sequence, pad_sequence and
/// pack_sequence. A packed batch holds only the real time steps, step by step, so that
/// nn::RNN / LSTM / GRU (<hetero/nn/rnn.hpp>) run each sequence for its own length and
/// return each one's own last state. Composed of index_select, cat and stack on the data's
/// device, so packing and padding carry autograd's gradients.
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include <hetero/device.hpp>
#include <hetero/tensor.hpp>

namespace hetero::nn {

/// A batch of sequences of different lengths packed time step by time step, as
/// torch.nn.utils.rnn.PackedSequence. Value type; the tensors are shared, not copied.
struct HETERO_API PackedSequence {
  /// [sum of the lengths, *]: step 0's batch_sizes[0] rows (one per sequence, longest
  /// first), then step 1's batch_sizes[1] rows, ...
  Tensor data;
  /// int64 [longest length] on the cpu, non-increasing: how many sequences are longer than
  /// each step (torch keeps it on the cpu too).
  Tensor batch_sizes;
  /// int64 [batch] on data's device: sorted_indices[k] is the input column packed k-th
  /// (longest first). Undefined when the input was already sorted (enforce_sorted).
  Tensor sorted_indices;
  /// The inverse permutation: where each input column went. Undefined with sorted_indices.
  Tensor unsorted_indices;

  /// The same batch with data and the indices on `device` (batch_sizes stays on the cpu),
  /// as torch's PackedSequence.to.
  PackedSequence to(const Device& device) const;
};

/// Packs `input` [T, B, *] ([B, T, *] with batch_first) whose column b holds a sequence of
/// lengths[b] steps followed by padding, as torch.nn.utils.rnn.pack_padded_sequence.
/// `lengths`: B positive values, in decreasing order unless enforce_sorted is false (then
/// the columns are sorted by length, stably, and the permutation is kept in the result).
/// Errors: ShapeError for an input of fewer than 2 dimensions; ValueError for an empty input
/// ("Cannot pack empty tensors."), B lengths not matching the batch, a length <= 0, a length
/// beyond T (torch silently drops the extra steps), or unsorted lengths with enforce_sorted
/// (torch's messages).
HETERO_API PackedSequence pack_padded_sequence(const Tensor& input,
                                               const std::vector<std::int64_t>& lengths,
                                               bool batch_first = false,
                                               bool enforce_sorted = true);
/// The same with `lengths` as a 1-D tensor of any real dtype on any device (converted to
/// int64 on the host, as torch.as_tensor(lengths, dtype=torch.int64); torch 1.13 refuses
/// a GPU tensor). ShapeError for another rank; errors as above.
HETERO_API PackedSequence pack_padded_sequence(const Tensor& input, const Tensor& lengths,
                                               bool batch_first = false,
                                               bool enforce_sorted = true);

/// What pad_packed_sequence returns, as torch's (padded, lengths).
struct PaddedSequence {
  /// [T, B, *] ([B, T, *] with batch_first) in the original column order, T the longest
  /// length or total_length; padding_value after each sequence's end.
  Tensor padded;
  /// int64 [B] on the cpu: each column's length.
  Tensor lengths;
};

/// Undoes pack_padded_sequence, as torch.nn.utils.rnn.pad_packed_sequence: `total_length`
/// pads every column to that many steps (for a DataParallel-style fixed size). ValueError
/// for a total_length below the longest length (torch's message) or a PackedSequence whose
/// batch_sizes is not a non-increasing positive 1-D int64 tensor matching data's rows;
/// ShapeError when the padded shape has more elements than int64 counts (torch: "Storage
/// size calculation overflowed") and OutOfMemoryError when the host cannot hold its
/// total_length x batch row indices.
HETERO_API PaddedSequence pad_packed_sequence(const PackedSequence& sequence,
                                              bool batch_first = false, double padding_value = 0,
                                              std::optional<std::int64_t> total_length = {});

/// Stacks `sequences` (each [L_i, *] with the same trailing shape) into [max L_i, B, *]
/// ([B, max L_i, *] with batch_first), padding each with `padding_value`, as
/// torch.nn.utils.rnn.pad_sequence: the result has sequences[0]'s dtype and device, the
/// others are converted to them. ValueError for an empty list; ShapeError for a 0-d
/// sequence or trailing shapes that differ.
HETERO_API Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first = false,
                               double padding_value = 0);

/// pack_padded_sequence(pad_sequence(sequences), their lengths, false, enforce_sorted), as
/// torch.nn.utils.rnn.pack_sequence. Errors as those two.
HETERO_API PackedSequence pack_sequence(const std::vector<Tensor>& sequences,
                                        bool enforce_sorted = true);

}  // namespace hetero::nn
