// SPDX-License-Identifier: Apache-2.0
// nn::embedding_bag and nn::EmbeddingBag (nn/embedding_bag.hpp): values and gradients torch
// 1.13 printed (empty bags, padding, per-sample weights, ties in mode max), entries after the
// last offset, and the refusals. Random cases against torch: tests/torch_layers (kind
// embedding_bag).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <hetero/hetero.hpp>

using namespace hetero;

namespace {

Tensor ints(const std::vector<std::int64_t>& v) { return tensor(v); }

// weight = torch.arange(12.).reshape(6, 2); input [0, 2, 4, 5, 1] cut at [0, 2, 2]
const std::vector<std::int64_t> kInput{0, 2, 4, 5, 1}, kOffsets{0, 2, 2};

Tensor table() { return arange(12).to(DType::float32).reshape({6, 2}); }

}  // namespace

TEST(EmbeddingBag, ModesAsTorch) {
  using nn::EmbeddingBagMode;
  const Tensor w = table(), in = ints(kInput), off = ints(kOffsets);
  EXPECT_EQ(nn::embedding_bag(in, w, off, EmbeddingBagMode::sum).to_vector<float>(),
            (std::vector<float>{4, 6, 0, 0, 20, 23}));
  const std::vector<float> mean = nn::embedding_bag(in, w, off).to_vector<float>();
  EXPECT_FLOAT_EQ(mean[4], 20.0f / 3);
  EXPECT_EQ(mean[2], 0.0f);  // the empty bag
  EXPECT_EQ(nn::embedding_bag(in, w, off, EmbeddingBagMode::max).to_vector<float>(),
            (std::vector<float>{4, 5, 0, 0, 10, 11}));
  // include_last_offset: [0, 2, 3] ends the last bag at 3 (entries 3 and 4 are left out)
  EXPECT_EQ(
      nn::embedding_bag(in, w, ints({0, 2, 3}), EmbeddingBagMode::sum, {}, true).to_vector<float>(),
      (std::vector<float>{4, 6, 8, 9}));
  // padding_idx 2 (and -4, the same row): left out of the bag and of its count
  for (const std::int64_t pad : {2, -4}) {
    const std::vector<float> p =
        nn::embedding_bag(in, w, off, EmbeddingBagMode::mean, {}, false, pad).to_vector<float>();
    EXPECT_EQ(std::vector<float>(p.begin(), p.begin() + 2), (std::vector<float>{0, 1}));
  }
  // [B, N] input: each row a bag
  EXPECT_EQ(nn::embedding_bag(ints({0, 2, 4, 5}).reshape({2, 2}), w, {}, EmbeddingBagMode::max)
                .to_vector<float>(),
            (std::vector<float>{4, 5, 10, 11}));
  // 16-bit weights: summed in float32, rounded once (torch: 6.66796875)
  EXPECT_EQ(
      nn::embedding_bag(in, w.to(DType::float16), off).to(DType::float32).to_vector<float>()[4],
      6.66796875f);
}

TEST(EmbeddingBag, GradientsAsTorch) {
  using nn::EmbeddingBagMode;
  const Tensor w = table().requires_grad_();
  const Tensor psw = ones({5}).requires_grad_();
  const Tensor y = nn::embedding_bag(ints(kInput), w, ints(kOffsets), EmbeddingBagMode::sum, psw);
  (y * arange(6).to(DType::float32).reshape({3, 2})).sum().backward();
  EXPECT_EQ(w.grad().to_vector<float>(), (std::vector<float>{0, 1, 4, 5, 0, 1, 0, 0, 4, 5, 4, 5}));
  EXPECT_EQ(psw.grad().to_vector<float>(), (std::vector<float>{1, 5, 77, 95, 23}));
  // mode max: a tie sends the gradient to the first row holding the maximum
  const Tensor t = tensor({{1.0f, 1.0f}, {1.0f, 0.0f}, {0.0f, 1.0f}}).requires_grad_();
  nn::embedding_bag(ints({0, 1, 2}), t, ints({0}), EmbeddingBagMode::max).sum().backward();
  EXPECT_EQ(t.grad().to_vector<float>(), (std::vector<float>{1, 1, 0, 0, 0, 0}));
  // mode mean with a repeated row
  const Tensor m = table().requires_grad_();
  nn::embedding_bag(ints({1, 1, 3}), m, ints({0})).sum().backward();
  const std::vector<float> g = m.grad().to_vector<float>();
  EXPECT_FLOAT_EQ(g[2], 2.0f / 3);
  EXPECT_FLOAT_EQ(g[6], 1.0f / 3);
  // no entries at all: zeros, the gradients zeros
  const Tensor e = table().requires_grad_();
  const Tensor none = nn::embedding_bag(ints({}), e, ints({0, 0}), EmbeddingBagMode::max);
  EXPECT_EQ(none.to_vector<float>(), (std::vector<float>{0, 0, 0, 0}));
  none.sum().backward();
  EXPECT_EQ(e.grad().to_vector<float>(), std::vector<float>(12, 0.0f));
}

TEST(EmbeddingBag, LayerPadsAndRefusesWhatTorchRefuses) {
  using nn::EmbeddingBagMode;
  nn::EmbeddingBag bag(10, 3, {.mode = EmbeddingBagMode::sum, .padding_idx = 0});
  EXPECT_EQ(bag.parameter("weight").narrow(0, 0, 1).to_vector<float>(),
            (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(bag.forward(ints({1, 2, 3, 4}).reshape({2, 2})).shape(), (Shape{2, 3}));
  EXPECT_EQ(bag.forward(ints({1, 2, 3}), ints({0, 1})).shape(), (Shape{2, 3}));

  const Tensor w = table(), in = ints(kInput), off = ints(kOffsets);
  EXPECT_THROW(nn::embedding_bag(in, w), ShapeError);                       // no offsets
  EXPECT_THROW(nn::embedding_bag(in.reshape({1, 5}), w, off), ShapeError);  // 2-D + offsets
  EXPECT_THROW(nn::embedding_bag(in.reshape({1, 1, 5}), w), ShapeError);    // 3-D
  EXPECT_THROW(nn::embedding_bag(in, w, off.reshape({3, 1})), ShapeError);  // 2-D offsets
  EXPECT_THROW(nn::embedding_bag(in, w, ints({1, 2})), ValueError);         // offsets[0]
  EXPECT_THROW(nn::embedding_bag(in, w, ints({0, 3, 2})), ValueError);      // decreasing
  EXPECT_THROW(nn::embedding_bag(in, w, ints({0, 7})), ValueError);         // past L
  EXPECT_THROW(nn::embedding_bag(in.to(DType::float32), w, off), DTypeError);
  EXPECT_THROW(nn::embedding_bag(in, w.to(DType::int64), off), DTypeError);
  EXPECT_THROW(nn::embedding_bag(in + 3, w, off), IndexError);
  EXPECT_THROW(nn::embedding_bag(in - 3, w, off), IndexError);
  EXPECT_THROW(nn::embedding_bag(in, w, off, EmbeddingBagMode::mean, ones({5})), ValueError);
  EXPECT_THROW(nn::embedding_bag(in, w, off, EmbeddingBagMode::sum, ones({4})), ShapeError);
  EXPECT_THROW(nn::embedding_bag(in, w, off, EmbeddingBagMode::sum,
                                 ones({5}, TensorOptions().dtype(DType::float64))),
               DTypeError);
  EXPECT_THROW(nn::embedding_bag(in, w, off, EmbeddingBagMode::sum, {}, false, 6), ValueError);
  EXPECT_THROW(bag.forward(ints({1, 2, 3})), ShapeError);
}
