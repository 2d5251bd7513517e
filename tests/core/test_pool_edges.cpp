// SPDX-License-Identifier: Apache-2.0
// Pooling at the edges issue #44 found (values read from torch 1.13): infinities inside
// adaptive windows, 16-bit sums that overflow or cancel, output sizes that do not fit.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
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
