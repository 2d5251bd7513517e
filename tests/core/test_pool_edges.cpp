// SPDX-License-Identifier: Apache-2.0
// Pooling at the edges issue #44 found (values read from torch 1.13): infinities inside
// adaptive windows, 16-bit sums that overflow or cancel, output sizes that do not fit.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <hetero/hetero.hpp>

using namespace hetero;

namespace {
const float kInf = std::numeric_limits<float>::infinity();
}

// Item 5: windows are averaged, not multiplied by an averaging matrix (inf * 0 was NaN).
TEST(PoolEdges, AdaptiveAvgPoolKeepsAnInfInItsOwnWindows) {
  const Tensor x = tensor({1.0f, 2.0f, kInf, 4.0f}).view({1, 1, 1, 4});
  EXPECT_EQ(adaptive_avg_pool2d(x, {1, 2}).to_vector<float>(), (std::vector<float>{1.5f, kInf}));
  // Overlapping, uneven windows (5 x 7 -> 3 x 4) with one inf: torch's values.
  std::vector<float> v(35);
  for (int i = 0; i < 35; ++i) v[static_cast<std::size_t>(i)] = static_cast<float>(i);
  v[2 * 7 + 3] = kInf;
  const auto y = adaptive_avg_pool2d(from_vector(v, {1, 1, 5, 7}), {3, 4}).to_vector<float>();
  const std::vector<float> want{4.0f, 5.5f,  7.5f,  9.0f,  14.5f, kInf,
                                kInf, 19.5f, 25.0f, 26.5f, 28.5f, 30.0f};
  EXPECT_EQ(y, want);
}

// docs/semantics.md row 31: a window whose sum overflows float32 but whose mean does not
// gives the finite mean (each window summed in float64, divided, rounded once). Rows [0, 3)
// and [2, 5) of a column of 5: the first's sum is -5.1e38 (it was -inf), the second holds an
// inf. Then the original case (seed 1130030 case 9261): the column average -1.7e38 beside
// an inf one, averaged along the row, is inf (it was -inf + inf, NaN).
TEST(PoolEdges, AdaptiveAvgPoolGivesTheFiniteMeanOfAWindowWhoseSumOverflows) {
  const float big = -2.5521175e38f;
  const Tensor col = tensor({1.0f, big, big, kInf, 1.0f}).view({1, 1, 5, 1});
  const auto y = adaptive_avg_pool2d(col, {2, 1}).to_vector<float>();
  EXPECT_EQ(y[0], static_cast<float>((1.0 + 2.0 * static_cast<double>(big)) / 3.0));
  EXPECT_EQ(y[1], kInf);
  const Tensor x = tensor({12.651084f, 0.00022913922f, big, kInf, big, -5.0f}).view({1, 1, 3, 2});
  // Rows [1, 3) average to {big, inf}; output row 1's middle window [0, 2) averages those.
  const auto z = adaptive_avg_pool2d(x, {2, 3}).to_vector<float>();
  EXPECT_EQ(z[4], kInf);
}

TEST(PoolEdges, AdaptiveAvgPoolValuesAndGradientAsTorch) {
  std::vector<double> v(12);
  for (int i = 0; i < 12; ++i) v[static_cast<std::size_t>(i)] = i;
  const Tensor x = from_vector(v, {1, 3, 4}).requires_grad_();  // unbatched
  const Tensor y = adaptive_avg_pool2d(x, {2, 3});
  EXPECT_EQ(y.shape(), (Shape{1, 2, 3}));
  EXPECT_EQ(y.to_vector<double>(), (std::vector<double>{2.5, 3.5, 4.5, 6.5, 7.5, 8.5}));
  (y * from_vector(std::vector<double>{0, 1, 2, 3, 4, 5}, {1, 2, 3})).sum().backward();
  EXPECT_EQ(x.grad().to_vector<double>(),
            (std::vector<double>{0, 0.25, 0.75, 0.5, 0.75, 2, 3, 1.75, 0.75, 1.75, 2.25, 1.25}));
  // Larger output than input: windows of one element, repeated.
  const Tensor up =
      adaptive_avg_pool2d(from_vector(std::vector<float>{1, 2}, {1, 1, 1, 2}), {1, 3});
  EXPECT_EQ(up.to_vector<float>(), (std::vector<float>{1, 1.5f, 2}));
}

// Item 17: an output size too large is a hetero error (was std::bad_alloc / length_error).
TEST(PoolEdges, AdaptiveAvgPoolRefusesOutputsThatDoNotFit) {
  const Tensor x = ones({1, 1, 2, 2});
  EXPECT_THROW((void)adaptive_avg_pool2d(x, {std::int64_t{1} << 40, std::int64_t{1} << 40}),
               ShapeError);
  EXPECT_THROW((void)adaptive_avg_pool2d(x, {std::int64_t{1} << 62, 1}), Error);
}

// A 0 output size gives an empty result, as torch (found by the differential test's pool
// category; hetero raised ValueError); a negative one raises.
TEST(PoolEdges, AdaptiveAvgPoolOfZeroCellsIsEmpty) {
  const Tensor x = ones({2, 3, 4, 4}).requires_grad_();
  const Tensor y = adaptive_avg_pool2d(x, {5, 0});
  EXPECT_EQ(y.shape(), (Shape{2, 3, 5, 0}));
  y.sum().backward();
  EXPECT_EQ(x.grad().shape(), x.shape());
  EXPECT_EQ(x.grad().abs().sum().item<float>(), 0.0f);
  EXPECT_EQ(adaptive_avg_pool2d(ones({3, 4, 4}), {0, 2}).shape(), (Shape{3, 0, 2}));
  EXPECT_THROW((void)adaptive_avg_pool2d(x, {-1, 2}), ValueError);
}

// docs/semantics.md row 29: the pools take floating dtypes only (torch 1.13 averages int64
// with integer division).
TEST(PoolEdges, IntegerInputsRaiseNotImplemented) {
  const Tensor x = arange(std::int64_t{0}, std::int64_t{16}, std::int64_t{1}).view({1, 1, 4, 4});
  EXPECT_THROW((void)avg_pool2d(x, {2, 2}), NotImplementedError);
  EXPECT_THROW((void)max_pool2d(x.to(DType::int32), {2, 2}), NotImplementedError);
  EXPECT_THROW((void)adaptive_avg_pool2d(x.to(DType::uint8), {1, 1}), NotImplementedError);
}

// A window whose only in-bounds values are -inf, beside -inf padding: torch's gradient goes
// to its first in-bounds element (hetero's went to the padding and was dropped; found by the
// differential test's pool category).
TEST(PoolEdges, MaxPoolGradientAtAMinusInfWindowGoesToTheInput) {
  const Tensor x =
      tensor({-INFINITY, 5.0f, -INFINITY, -INFINITY}).view({1, 1, 2, 2}).requires_grad_();
  const Tensor y = max_pool2d(x, {1, 2}, Size2{1, 2}, {0, 1});  // windows: [pad, a], [b, pad]
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{-INFINITY, 5.0f, -INFINITY, -INFINITY}));
  y.sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{1, 1, 1, 1}));
}

// Item 6: float16 windows are summed in float32 and rounded once (docs/semantics.md row 20).
TEST(PoolEdges, AvgPoolOf16BitSumsInFloat32) {
  const Tensor a = tensor({2048.0f, 1.0f, 1.0f, -2048.0f}).view({1, 1, 2, 2}).to(DType::float16);
  const Tensor ya = avg_pool2d(a, {2, 2});
  EXPECT_EQ(ya.dtype(), DType::float16);
  EXPECT_EQ(ya.to_vector<float>(), (std::vector<float>{0.5f}));
  const Tensor b = tensor({6e4f, 6e4f, -6e4f, -6e4f}).view({1, 1, 2, 2}).to(DType::float16);
  EXPECT_EQ(avg_pool2d(b, {2, 2}).to_vector<float>(), (std::vector<float>{0.0f}));
  EXPECT_EQ(adaptive_avg_pool2d(b, {1, 1}).to_vector<float>(), (std::vector<float>{0.0f}));
  const Tensor c = tensor({6e4f, 6e4f, 6e4f, 6e4f}).view({1, 1, 2, 2}).to(DType::bfloat16);
  EXPECT_NEAR(avg_pool2d(c, {2, 2}).to_vector<float>()[0], 6e4f, 300.0f);  // one bfloat16 rounding
  // The gradient keeps the input's dtype.
  const Tensor g = a.clone().requires_grad_();
  avg_pool2d(g, {2, 2}).sum().backward();
  EXPECT_EQ(g.grad().dtype(), DType::float16);
  EXPECT_EQ(g.grad().to_vector<float>(), (std::vector<float>(4, 0.25f)));
}

namespace {

// Output length of max_pool2d along one dimension, torch's formula (pooling_output_shape).
std::int64_t pooled_length(std::int64_t n, std::int64_t k, std::int64_t s, std::int64_t p,
                           bool ceil_mode) {
  std::int64_t out = (n + 2 * p - (k - 1) - 1 + (ceil_mode ? s - 1 : 0)) / s + 1;
  if (ceil_mode && (out - 1) * s >= n + p) --out;
  return out;
}

}  // namespace

// The cpu plugin runs rows of stride-1 and stride-2 windows in vectors (vector_pool.hpp) and
// the rest in its scalar loop; both must follow torch's rule: from -inf at the window's first
// in-bounds element, a greater value or a NaN takes over (the last NaN wins), so the gradient
// goes to the first maximum. Widths across the vector widths (1 to 40), values with ties,
// -inf and NaN, every padding and ceil_mode, float32 and float64, checked against that rule on
// the host.
TEST(PoolEdges, MaxPoolRowsFollowTorchsRuleAtEveryWidth) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> palette{-kInf, -1.0f, 0.0f, 1.0f, 1.0f, 2.0f, nan};
  std::uint64_t state = 12345;
  auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::int64_t>(state >> 33);
  };
  int cases = 0;
  for (std::int64_t w = 1; w <= 40; ++w)
    for (std::int64_t k = 1; k <= 4; ++k)
      for (std::int64_t s = 1; s <= 3; ++s)
        for (std::int64_t p = 0; p <= k / 2; ++p)
          for (const bool ceil_mode : {false, true}) {
            const DType dtype = cases % 2 ? DType::float64 : DType::float32;
            const std::int64_t h = 1 + next() % 5;
            if (w + 2 * p < k || h + 2 * p < k) continue;
            const std::int64_t oh = pooled_length(h, k, s, p, ceil_mode);
            const std::int64_t ow = pooled_length(w, k, s, p, ceil_mode);
            std::vector<float> v(static_cast<std::size_t>(2 * h * w));  // two planes
            for (float& e : v) {
              std::int64_t pick = next() % 7;
              if (pick == 6 && next() % 4 != 0) pick = 5;  // NaN in 1 of 28: most windows have none
              e = palette[static_cast<std::size_t>(pick)];
            }
            const Tensor x = from_vector(v, {1, 2, h, w}).to(dtype).requires_grad_();
            const Tensor y = max_pool2d(x, {k, k}, Size2{s, s}, {p, p}, 1, ceil_mode);
            ASSERT_EQ(y.shape(), (Shape{1, 2, oh, ow})) << "w " << w << " k " << k << " s " << s;
            y.sum().backward();
            const std::vector<float> got = y.to(DType::float32).to_vector<float>();
            const std::vector<float> grad = x.grad().to(DType::float32).to_vector<float>();
            std::vector<float> want_grad(v.size(), 0.0f);
            for (std::int64_t c = 0; c < 2; ++c)
              for (std::int64_t i = 0; i < oh; ++i)
                for (std::int64_t j = 0; j < ow; ++j) {
                  float best = -kInf;
                  std::int64_t where = -1;
                  for (std::int64_t r = i * s - p; r < i * s - p + k; ++r)
                    for (std::int64_t q = j * s - p; q < j * s - p + k; ++q) {
                      if (r < 0 || r >= h || q < 0 || q >= w) continue;
                      const float e = v[static_cast<std::size_t>((c * h + r) * w + q)];
                      if (where < 0) where = (c * h + r) * w + q;
                      if (e > best || std::isnan(e)) {
                        best = e;
                        where = (c * h + r) * w + q;
                      }
                    }
                  const float out = got[static_cast<std::size_t>((c * oh + i) * ow + j)];
                  ASSERT_TRUE(std::isnan(best) ? std::isnan(out) : out == best)
                      << "w " << w << " k " << k << " s " << s << " p " << p << " ceil "
                      << ceil_mode << " at " << c << "," << i << "," << j;
                  want_grad[static_cast<std::size_t>(where)] += 1.0f;
                }
            ASSERT_EQ(grad, want_grad)
                << "w " << w << " k " << k << " s " << s << " p " << p << " ceil " << ceil_mode;
            ++cases;
          }
  EXPECT_GT(cases, 1000);
}

// A window larger than the input by up to 2^63 - 1 leaves no output (torch: "Output size is
// too small"); the ceiling division of the negative span overflowed into 2^63 - 1 rows.
TEST(PoolEdges, AWindowFarLargerThanTheInputLeavesNoOutput) {
  const Tensor x = ones({1, 1, 4, 4});
  const std::int64_t big = std::numeric_limits<std::int64_t>::max();
  for (const std::int64_t k : {std::int64_t{5}, std::int64_t{1} << 62, big}) {
    try {
      (void)max_pool2d(x, {k, k});
      ADD_FAILURE() << "max_pool2d with a kernel of " << k << " returned";
    } catch (const ShapeError& e) {
      EXPECT_NE(std::string(e.what()).find("Output size is too small"), std::string::npos)
          << e.what();
    }
    EXPECT_THROW((void)avg_pool2d(x, {k, k}), ShapeError) << k;
  }
}

// adaptive_max_pool2d / 1d: torch 1.13's values and gradient for unequal, overlapping windows
// with ties (the first maximal element of each window takes the gradient), equal windows (the
// max_pool2d route), NaN, a larger output than input, the layers and the refusals.
TEST(PoolEdges, AdaptiveMaxPoolAsTorch) {
  const Tensor x =
      from_vector(std::vector<double>{1, 5, 2, 0, 3, 4, -1, 5, 2, 2, 0, 6, 1, 6, -2}, {1, 1, 3, 5})
          .requires_grad_();
  const Tensor y = adaptive_max_pool2d(x, {2, 3});
  EXPECT_EQ(y.to_vector<double>(), (std::vector<double>{5, 5, 3, 6, 6, 6}));
  y.backward(arange(1.0, 7.0, 1.0, TensorOptions().dtype(DType::float64)).reshape({1, 1, 2, 3}));
  EXPECT_EQ(x.grad().to_vector<double>(),
            (std::vector<double>{0, 3, 0, 0, 3, 0, 0, 0, 0, 0, 0, 9, 0, 6, 0}));
  EXPECT_TRUE(equal(nn::AdaptiveMaxPool2d({2, 3})(x.detach()), y.detach()));
  EXPECT_TRUE(equal(adaptive_max_pool2d(x.detach()[0], {2, 3}), y.detach()[0]));
  // Equal windows (max_pool2d's route) and a global maximum; ties take the first.
  const Tensor ties = ones({1, 1, 2, 2}).requires_grad_();
  adaptive_max_pool2d(ties, {1, 1}).sum().backward();
  EXPECT_EQ(ties.grad().to_vector<float>(), (std::vector<float>{1, 0, 0, 0}));
  const Tensor img = randn({2, 3, 6, 4});
  EXPECT_TRUE(equal(adaptive_max_pool2d(img, {3, 2}), max_pool2d(img, {2, 2})));
  EXPECT_TRUE(equal(adaptive_max_pool2d(img, {1, 1}), img.max(3, true).max(2, true)));
  // NaN wins its windows; a larger output repeats elements.
  const Tensor nan = from_vector(std::vector<float>{1, NAN, 2}, {1, 1, 1, 3});
  const auto v = adaptive_max_pool2d(nan, {1, 2}).to_vector<float>();
  EXPECT_TRUE(std::isnan(v[0]) && std::isnan(v[1]));
  EXPECT_EQ(adaptive_max_pool2d(from_vector(std::vector<float>{1, 2}, {1, 1, 1, 2}), {1, 3})
                .to_vector<float>(),
            (std::vector<float>{1, 2, 2}));
  // 1-d, torch's [[3, 3, 3]] for [1, 3, 2, 3, 0] into 3 windows.
  const Tensor seq = from_vector(std::vector<float>{1, 3, 2, 3, 0}, {1, 5});
  EXPECT_EQ(adaptive_max_pool1d(seq, 3).to_vector<float>(), (std::vector<float>{3, 3, 3}));
  EXPECT_TRUE(equal(nn::AdaptiveMaxPool1d(3)(seq), adaptive_max_pool1d(seq, 3)));
  // 0 cells: empty; the refusals.
  EXPECT_EQ(adaptive_max_pool2d(img, {0, 2}).shape(), (Shape{2, 3, 0, 2}));
  EXPECT_THROW((void)adaptive_max_pool2d(img, {-1, 2}), ValueError);
  EXPECT_THROW((void)adaptive_max_pool2d(zeros({2, 3, 0, 4}), {1, 1}), ShapeError);
  EXPECT_THROW((void)adaptive_max_pool2d(zeros({3, 4}), {1, 1}), ShapeError);
  EXPECT_THROW((void)adaptive_max_pool2d(img.to(DType::int64), {2, 2}), NotImplementedError);
  EXPECT_THROW((void)adaptive_max_pool2d(img, {std::int64_t{1} << 40, std::int64_t{1} << 40}),
               ShapeError);
}

// max_pool2d_with_indices and max_unpool2d (torch 1.13's values): a SegNet-style round trip,
// repeated indices (the later value written, every one given the gradient at its index), the
// requested output size, and the refusals.
TEST(PoolEdges, MaxUnpoolPutsValuesBackAsTorch) {
  const Tensor x = arange(16).to(DType::float32).reshape({1, 1, 4, 4});
  nn::MaxPool2d pool(2);
  const auto [values, indices] = pool.forward_with_indices(x);
  EXPECT_EQ(values.to_vector<float>(), (std::vector<float>{5, 7, 13, 15}));
  EXPECT_EQ(indices.to_vector<std::int64_t>(), (std::vector<std::int64_t>{5, 7, 13, 15}));
  nn::MaxUnpool2d unpool(2);
  const Tensor back = unpool.forward(values, indices);
  EXPECT_EQ(back.to_vector<float>(),
            (std::vector<float>{0, 0, 0, 0, 0, 5, 0, 7, 0, 0, 0, 0, 0, 13, 0, 15}));
  // output_size {5, 5}: the same flat indices in a 5-wide plane
  const Tensor five = unpool.forward(values, indices, Size2{5, 5});
  EXPECT_EQ(five.shape(), (Shape{1, 1, 5, 5}));
  EXPECT_EQ(five.reshape({25}).to_vector<float>()[13], 13.0f);
  // Repeated indices: the later value is written; each value's gradient is the output
  // gradient at its index.
  const Tensor v = tensor({1.0f, 2.0f, 3.0f, 4.0f}).reshape({1, 1, 2, 2}).requires_grad_();
  const Tensor rep = tensor(std::vector<std::int64_t>{5, 5, 5, 0}).reshape({1, 1, 2, 2});
  const Tensor u = max_unpool2d(v, rep, 2, 2);
  const std::vector<float> got = u.to_vector<float>();
  EXPECT_EQ(got[5], 3.0f);
  EXPECT_EQ(got[0], 4.0f);
  (u * arange(16).to(DType::float32).reshape({1, 1, 4, 4})).sum().backward();
  EXPECT_EQ(v.grad().to_vector<float>(), (std::vector<float>{5, 5, 5, 0}));
  // Refusals, as torch's.
  EXPECT_THROW(max_unpool2d(values, indices.to(DType::int32), 2), DTypeError);
  EXPECT_THROW(max_unpool2d(values, indices.reshape({1, 1, 4, 1}), 2), ShapeError);
  EXPECT_THROW(max_unpool2d(values.reshape({2, 2}), indices.reshape({2, 2}), 2), ShapeError);
  EXPECT_THROW(max_unpool2d(values, indices, 2, {}, 0, Size2{6, 4}), ValueError);
  EXPECT_THROW(max_unpool2d(values, indices + 100, 2), IndexError);
  EXPECT_THROW(unpool.forward(values), ValueError);
}

// max_pool1d/3d_with_indices and max_unpool1d/3d (torch 1.13's printed values): positions in
// the sequence or volume, a round trip through the layers, overlapping windows and padding,
// the gradient through the 3-d unpooling, and the refusals.
TEST(PoolEdges, MaxUnpool1dAnd3dAsTorch) {
  const Tensor seq = tensor({3.0f, 1.0f, 4.0f, 1.0f, 5.0f, 9.0f, 2.0f, 6.0f}).reshape({1, 8});
  nn::MaxPool1d pool1(2);
  const auto [v1, i1] = pool1.forward_with_indices(seq);
  EXPECT_EQ(v1.to_vector<float>(), (std::vector<float>{3, 4, 9, 6}));
  EXPECT_EQ(i1.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 2, 5, 7}));
  nn::MaxUnpool1d unpool1(2);
  EXPECT_EQ(unpool1.forward(v1, i1, 9).to_vector<float>(),
            (std::vector<float>{3, 0, 4, 0, 0, 9, 0, 6, 0}));
  const auto [v1o, i1o] = max_pool1d_with_indices(seq, 3, 2, 1);
  EXPECT_EQ(i1o.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 2, 5, 5}));

  // torch.arange(32) * 7 % 32 as [1, 1, 2, 4, 4]
  const Tensor vol =
      remainder(arange(32) * 7.0, full({}, 32.0)).to(DType::float32).reshape({1, 1, 2, 4, 4});
  nn::MaxPool3d pool3(2);
  const auto [v3, i3] = pool3.forward_with_indices(vol);
  EXPECT_EQ(v3.to_vector<float>(), (std::vector<float>{28, 30, 31, 29}));
  EXPECT_EQ(i3.to_vector<std::int64_t>(), (std::vector<std::int64_t>{4, 18, 9, 27}));
  const auto [v3o, i3o] = max_pool3d_with_indices(vol, Size3(2, 3, 3), Size3(1), Size3(1));
  EXPECT_EQ(v3o.shape(), (Shape{1, 1, 3, 4, 4}));
  const std::vector<std::int64_t> first = i3o.to_vector<std::int64_t>();
  EXPECT_EQ(std::vector<std::int64_t>(first.begin(), first.begin() + 8),
            (std::vector<std::int64_t>{4, 4, 3, 3, 9, 9, 9, 3}));
  EXPECT_EQ(v3o.to_vector<float>()[4], 31.0f);

  nn::MaxUnpool3d unpool3(2);
  const Tensor src = v3.detach().requires_grad_();
  const Tensor back = unpool3.forward(src, i3);
  EXPECT_EQ(back.shape(), vol.shape());
  // the four maxima (28 to 31) in place, zeros elsewhere
  EXPECT_TRUE(equal(back, where(ge(vol, 28.0), vol, zeros_like(vol))));
  (back * arange(32).to(DType::float32).reshape({1, 1, 2, 4, 4})).sum().backward();
  EXPECT_EQ(src.grad().to_vector<float>(), (std::vector<float>{4, 18, 9, 27}));

  EXPECT_THROW(max_unpool3d(v3, i3 + 64, 2), IndexError);
  EXPECT_THROW(max_unpool3d(v3, i3.to(DType::int32), 2), DTypeError);
  EXPECT_THROW(max_unpool3d(v3.reshape({2, 2}), i3.reshape({2, 2}), 2), ShapeError);
  EXPECT_THROW(max_unpool3d(v3.to(DType::int64), i3, 2), NotImplementedError);
  EXPECT_THROW(max_unpool3d(v3, i3, 2, {}, 0, Size3(9, 4, 4)), ValueError);
  EXPECT_THROW(max_unpool1d(v1.reshape({4}), i1.reshape({4}), 2), ShapeError);
  EXPECT_THROW(max_unpool1d(v1, i1, 0), ValueError);
  EXPECT_THROW(unpool3.forward(v3), ValueError);
  EXPECT_THROW(unpool1.forward(v1), ValueError);
}

// adaptive_max_pool1d/2d/3d_with_indices (torch 1.13's printed values; the inputs repeat
// values, so ties go to the first maximum): unequal windows (the gathered route), equal ones
// (max_pool2d's) over a narrowed view, and the layers.
TEST(PoolEdges, AdaptiveMaxPoolIndicesAsTorch) {
  const auto mod = [](std::int64_t count, double by, double m) {
    return remainder(arange(count) * by, full({}, m)).to(DType::float32);
  };
  const Tensor x2 = mod(35, 7, 11).reshape({1, 1, 5, 7});
  const auto [v2, i2] = nn::AdaptiveMaxPool2d({2, 3}).forward_with_indices(x2);
  EXPECT_EQ(v2.to_vector<float>(), (std::vector<float>{10, 10, 9, 10, 10, 10}));
  EXPECT_EQ(i2.to_vector<std::int64_t>(), (std::vector<std::int64_t>{14, 3, 6, 14, 25, 25}));
  const auto [ve, ie] =
      adaptive_max_pool2d_with_indices(x2.narrow(2, 0, 4).narrow(3, 0, 6), {2, 3});
  EXPECT_EQ(ve.to_vector<float>(), (std::vector<float>{7, 10, 7, 10, 9, 10}));
  EXPECT_EQ(ie.to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 3, 11, 12, 15, 22}));
  const auto [v1, i1] = nn::AdaptiveMaxPool1d(3).forward_with_indices(mod(7, 5, 7).reshape({1, 7}));
  EXPECT_EQ(v1.to_vector<float>(), (std::vector<float>{5, 6, 6}));
  EXPECT_EQ(i1.to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 4, 4}));
  const auto [v3, i3] = nn::AdaptiveMaxPool3d({2, 2, 3}).forward_with_indices(
      mod(60, 7, 17).reshape({1, 1, 3, 4, 5}));
  EXPECT_EQ(v3.to_vector<float>(),
            (std::vector<float>{12, 15, 16, 14, 16, 14, 16, 16, 16, 14, 15, 15}));
  EXPECT_EQ(i3.to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{26, 7, 29, 36, 12, 19, 46, 46, 29, 36, 58, 58}));
  // an output size of 0: empty values and indices
  const auto [v0, i0] =
      adaptive_max_pool3d_with_indices(mod(60, 7, 17).reshape({1, 3, 4, 5}), {0, 2, 2});
  EXPECT_EQ(v0.shape(), (Shape{1, 0, 2, 2}));
  EXPECT_EQ(i0.shape(), (Shape{1, 0, 2, 2}));
  EXPECT_EQ(i0.dtype(), DType::int64);
}
