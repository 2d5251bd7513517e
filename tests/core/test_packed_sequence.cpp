// SPDX-License-Identifier: Apache-2.0
// Packed batches of sequences of different lengths (torch.nn.utils.rnn): the layout torch
// gives, the round trip through pad_packed_sequence, a packed LSTM equal to each sequence run
// alone, gradients only for the real steps, and the errors. Values against torch:
// tests/torch_layers (kind "packed").
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include <hetero/hetero.hpp>

#include "same_tensor.hpp"

using namespace hetero;
using hetero::test::expect_same;

namespace {

std::vector<std::int64_t> i64(const Tensor& t) { return t.to_vector<std::int64_t>(); }

// [T, B, 1] with x[t, b] = 10 t + b.
Tensor steps_by_column(std::int64_t T, std::int64_t B) {
  return (arange(T).reshape({T, 1}) * 10 + arange(B).reshape({1, B}))
      .to(DType::float32)
      .unsqueeze(2);
}

}  // namespace

// torch 1.13: pack_padded_sequence(x, [4, 2, 3], enforce_sorted=False) of x [4, 3, 1].
TEST(PackedSequence, LayoutAndRoundTripAreTorchs) {
  const Tensor x = steps_by_column(4, 3);
  const nn::PackedSequence p = nn::pack_padded_sequence(x, {4, 2, 3}, false, false);
  EXPECT_EQ(i64(p.batch_sizes), (std::vector<std::int64_t>{3, 3, 2, 1}));
  EXPECT_EQ(p.batch_sizes.device(), Device("cpu"));
  EXPECT_EQ(i64(p.sorted_indices), (std::vector<std::int64_t>{0, 2, 1}));
  EXPECT_EQ(i64(p.unsorted_indices), (std::vector<std::int64_t>{0, 2, 1}));
  EXPECT_EQ(p.data.shape(), (Shape{9, 1}));
  EXPECT_EQ(p.data.to_vector<float>(), (std::vector<float>{0, 2, 1, 10, 12, 11, 20, 22, 30}));
  const nn::PaddedSequence back = nn::pad_packed_sequence(p, false, -1, 5);
  EXPECT_EQ(i64(back.lengths), (std::vector<std::int64_t>{4, 2, 3}));
  EXPECT_EQ(back.padded.shape(), (Shape{5, 3, 1}));
  EXPECT_EQ(back.padded.to_vector<float>(),
            (std::vector<float>{0, 1, 2, 10, 11, 12, 20, -1, 22, 30, -1, -1, -1, -1, -1}));
  // Sorted lengths: no permutation kept; batch_first reads [B, T, *].
  const nn::PackedSequence sorted = nn::pack_padded_sequence(x.transpose(0, 1), {4, 3, 1}, true);
  EXPECT_FALSE(sorted.sorted_indices.defined());
  EXPECT_EQ(i64(sorted.batch_sizes), (std::vector<std::int64_t>{3, 2, 2, 1}));
  EXPECT_EQ(sorted.data.to_vector<float>(), (std::vector<float>{0, 1, 2, 10, 11, 20, 21, 30}));
  const nn::PaddedSequence first = nn::pad_packed_sequence(sorted, true);
  EXPECT_EQ(first.padded.shape(), (Shape{3, 4, 1}));
  EXPECT_EQ(nn::pack_padded_sequence(x, tensor({4, 3, 1}), false, true).data.numel(), 8);
  // PackedSequence::to moves the data and indices, not batch_sizes.
  const nn::PackedSequence moved = p.to(Device("cpu"));
  EXPECT_TRUE(moved.batch_sizes.is_same(p.batch_sizes));
}

TEST(PackedSequence, PadSequenceAndPackSequenceAreTorchs) {
  const Tensor a = ones({3, 2}), b = full({1, 2}, 2.0, TensorOptions().dtype(DType::float64));
  const Tensor padded = nn::pad_sequence({a, b}, true, 9);
  EXPECT_EQ(padded.shape(), (Shape{2, 3, 2}));
  EXPECT_EQ(padded.dtype(), DType::float32);  // sequences[0]'s, as torch's new_full + copy_
  EXPECT_EQ(padded.to_vector<float>(), (std::vector<float>{1, 1, 1, 1, 1, 1, 2, 2, 9, 9, 9, 9}));
  EXPECT_EQ(nn::pad_sequence({a, b}).shape(), (Shape{3, 2, 2}));
  const nn::PackedSequence p = nn::pack_sequence({b.to(DType::float32), a}, false);
  EXPECT_EQ(i64(p.batch_sizes), (std::vector<std::int64_t>{2, 1, 1}));
  EXPECT_EQ(i64(p.sorted_indices), (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(p.data.to_vector<float>(), (std::vector<float>{1, 1, 2, 2, 1, 1, 1, 1}));
}

// Packing is what lets each sequence run for its own length: every column of a packed
// 2-layer bidirectional LSTM equals that sequence run alone, and h_n / c_n are its own
// last states (the reverse direction's after step 0).
TEST(PackedSequence, APackedLSTMRunsEachSequenceAsIfAlone) {
  const TensorOptions f64 = TensorOptions().dtype(DType::float64);
  nn::LSTM lstm(3, 4, {.num_layers = 2, .bidirectional = true}, f64);
  const std::vector<std::int64_t> lengths{2, 5, 1, 5};
  const Tensor x = randn({5, 4, 3}, f64), h0 = randn({4, 4, 4}, f64), c0 = randn({4, 4, 4}, f64);
  const nn::PackedRNNOutput r =
      lstm.forward(nn::pack_padded_sequence(x, lengths, false, false), h0, c0);
  const nn::PaddedSequence out = nn::pad_packed_sequence(r.output);
  ASSERT_EQ(out.padded.shape(), (Shape{5, 4, 8}));
  for (std::int64_t b = 0; b < 4; ++b) {
    const std::int64_t n = lengths[static_cast<std::size_t>(b)];
    const nn::RNNOutput alone =
        lstm.forward(x.narrow(1, b, 1).narrow(0, 0, n), h0.narrow(1, b, 1), c0.narrow(1, b, 1));
    const Tensor got = out.padded.narrow(1, b, 1);
    EXPECT_LE(max(abs(got.narrow(0, 0, n) - alone.output)).item<double>(), 1e-12) << b;
    if (n < 5) {
      EXPECT_EQ(max(abs(got.narrow(0, n, 5 - n))).item<double>(), 0.0) << b;
    }
    EXPECT_LE(max(abs(r.h_n.narrow(1, b, 1) - alone.h_n)).item<double>(), 1e-12) << b;
    EXPECT_LE(max(abs(r.c_n.narrow(1, b, 1) - alone.c_n)).item<double>(), 1e-12) << b;
  }
}

// pack_padded_sequence reads only the real steps: the padding gets a zero gradient.
TEST(PackedSequence, GradientsReachOnlyTheRealSteps) {
  nn::GRU gru(1, 2);
  const Tensor x = ones({3, 2, 1}).requires_grad_();
  const nn::PackedRNNOutput r = gru.forward(nn::pack_padded_sequence(x, {3, 1}));
  (nn::pad_packed_sequence(r.output).padded.sum() + r.h_n.sum()).backward();
  const std::vector<float> g = x.grad().to_vector<float>();  // [t][b]
  for (const std::size_t k : {0, 1, 2, 4}) EXPECT_NE(g[k], 0.0f) << k;
  EXPECT_EQ(g[3], 0.0f);
  EXPECT_EQ(g[5], 0.0f);
}

TEST(PackedSequence, RefusesWhatTorchRefuses) {
  const Tensor x = ones({4, 3, 2});
  EXPECT_THROW(nn::pack_padded_sequence(x, {4, 2, 3}), ValueError);  // not sorted
  EXPECT_THROW(nn::pack_padded_sequence(x, {4, 2, 0}, false, false), ValueError);
  EXPECT_THROW(nn::pack_padded_sequence(x, {4, 2}), ValueError);
  EXPECT_THROW(nn::pack_padded_sequence(x, {5, 2, 1}), ValueError);  // torch drops a step
  EXPECT_THROW(nn::pack_padded_sequence(ones({0, 3, 2}), {1, 1, 1}), ValueError);
  EXPECT_THROW(nn::pack_padded_sequence(ones({4}), {4}), ShapeError);
  EXPECT_THROW(nn::pack_padded_sequence(x, tensor({{4, 2, 1}})), ShapeError);
  EXPECT_THROW(nn::pad_sequence({}), ValueError);
  EXPECT_THROW(nn::pad_sequence({ones({2, 3}), ones({1, 4})}), ShapeError);
  EXPECT_THROW(nn::pad_sequence({ones({})}), ShapeError);
  EXPECT_THROW(nn::pack_sequence({ones({2}), ones({3})}), ValueError);  // not sorted
  const nn::PackedSequence p = nn::pack_padded_sequence(x, {4, 2, 1});
  EXPECT_THROW(nn::pad_packed_sequence(p, false, 0, 3), ValueError);  // total_length < 4
  // A total_length whose padded shape int64 cannot count, or whose row list the host cannot
  // hold (3 x 2^59 indices is past std::vector's max_size, so no allocation is attempted),
  // is a typed error (was std::length_error).
  EXPECT_THROW(nn::pad_packed_sequence(p, false, 0, std::numeric_limits<std::int64_t>::max()),
               ShapeError);
  EXPECT_THROW(nn::pad_packed_sequence(p, false, 0, std::int64_t{1} << 59), OutOfMemoryError);
  // A PackedSequence built by hand is checked before it is read.
  nn::PackedSequence bad = p;
  bad.batch_sizes = tensor({std::int64_t{1}, std::int64_t{3}, std::int64_t{2}, std::int64_t{1}});
  EXPECT_THROW(nn::pad_packed_sequence(bad), ValueError);  // increasing
  bad.batch_sizes = tensor({std::int64_t{3}, std::int64_t{2}});
  EXPECT_THROW(nn::pad_packed_sequence(bad), ValueError);  // 5 rows, data has 7
  bad = p;
  bad.sorted_indices = tensor({std::int64_t{0}, std::int64_t{1}, std::int64_t{2}});
  EXPECT_THROW(nn::pad_packed_sequence(bad), ValueError);  // without unsorted_indices
  nn::LSTM lstm(2, 3);
  EXPECT_THROW(lstm.forward(nn::PackedSequence{ones({7, 1, 2}), p.batch_sizes, {}, {}}),
               ShapeError);  // data must be [rows, input_size]
  EXPECT_THROW(lstm.forward(p, zeros({1, 2, 3}), zeros({1, 2, 3})), ShapeError);  // B is 3
  EXPECT_THROW(lstm.forward(p, zeros({1, 3, 3})), ValueError);                    // h0 without c0
  expect_same(lstm.forward(p).h_n, lstm.forward(p, zeros({1, 3, 3}), zeros({1, 3, 3})).h_n);
}
