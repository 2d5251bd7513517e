// SPDX-License-Identifier: Apache-2.0
// matmul and Linear against an independent reference: a naive triple loop in double over
// the host copies of the operands.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <hetero/hetero.hpp>

using namespace hetero;

namespace {

std::vector<double> naive_matmul(const std::vector<double>& a, const std::vector<double>& b,
                                 std::int64_t m, std::int64_t k, std::int64_t n) {
  std::vector<double> c(static_cast<std::size_t>(m * n), 0.0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t l = 0; l < k; ++l) c[i * n + j] += a[i * k + l] * b[l * n + j];
  return c;
}

void expect_close(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tol * (1 + std::abs(want[i]))) << i;
}

}  // namespace

TEST(Matmul, MatchesNaiveReferenceAtOddSizes) {
  manual_seed(5);
  for (auto [m, k, n] : std::vector<std::array<std::int64_t, 3>>{
           {1, 1, 1}, {2, 3, 4}, {17, 31, 7}, {64, 1, 65}, {100, 100, 100}}) {
    Tensor a = randn({m, k}), b = randn({k, n});
    const auto ref = naive_matmul(a.to_vector<double>(), b.to_vector<double>(), m, k, n);
    Tensor c = matmul(a, b);
    EXPECT_EQ(c.shape(), (Shape{m, n}));
    expect_close(c.to_vector<double>(), ref, 1e-4);
    // Transposed views go through the GEMM's transpose flags.
    Tensor ct = matmul(a.t().contiguous().t(), b.t().contiguous().t());
    expect_close(ct.to_vector<double>(), ref, 1e-4);
    // float64
    expect_close(matmul(a.to(DType::float64), b.to(DType::float64)).to_vector<double>(), ref, 1e-6);
  }
}

// Products large enough for the cpu plugin to split them over its kernel threads (Note [GEMM
// on the kernel pool]): by columns (wide C), by rows (tall C), by the inner dimension (a
// small C, as conv2d's weight gradient) and by batch; transposed operands; float32,
// float64 and float16. On one core nothing is split and the same references hold.
TEST(Matmul, ProductsSplitOverKernelThreadsMatchTheReference) {
  manual_seed(9);
  for (auto [m, k, n] : std::vector<std::array<std::int64_t, 3>>{
           {8, 70, 1001}, {1001, 70, 8}, {5, 20011, 7}, {3, 600, 2}, {200, 37, 300}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n));
    Tensor a = randn({m, k}), b = randn({k, n});
    const auto ref = naive_matmul(a.to_vector<double>(), b.to_vector<double>(), m, k, n);
    const double scale = std::sqrt(static_cast<double>(k));
    expect_close(matmul(a, b).to_vector<double>(), ref, 1e-5 * scale);
    expect_close(matmul(a.t().contiguous().t(), b.t().contiguous().t()).to_vector<double>(), ref,
                 1e-5 * scale);
    expect_close(matmul(a.to(DType::float64), b.to(DType::float64)).to_vector<double>(), ref,
                 1e-12 * scale);
    if (k < 1000)
      expect_close(matmul(a.to(DType::float16), b.to(DType::float16)).to_vector<double>(), ref,
                   2e-3 * scale);
  }
  // A batch of products, split by batch entries.
  Tensor a = randn({5, 60, 70}), b = randn({5, 70, 80});
  const Tensor c = matmul(a, b);
  for (std::int64_t i = 0; i < 5; ++i)
    expect_close(c[i].to_vector<double>(),
                 naive_matmul(a[i].to_vector<double>(), b[i].to_vector<double>(), 60, 70, 80),
                 1e-4);
}

TEST(Matmul, BatchedBroadcastAndVectors) {
  manual_seed(6);
  Tensor a = randn({3, 4, 5}), b = randn({5, 2});
  Tensor c = matmul(a, b);
  ASSERT_EQ(c.shape(), (Shape{3, 4, 2}));
  for (std::int64_t i = 0; i < 3; ++i) {
    const auto ref = naive_matmul(a[i].to_vector<double>(), b.to_vector<double>(), 4, 5, 2);
    expect_close(c[i].to_vector<double>(), ref, 1e-4);
  }
  Tensor v = tensor({1.0, 2.0, 3.0});
  EXPECT_EQ(matmul(v, v).dim(), 0);
  EXPECT_NEAR(matmul(v, v).item<float>(), 14.0, 1e-5);
  EXPECT_EQ(matmul(ones({2, 3}), v).shape(), (Shape{2}));
  EXPECT_EQ(matmul(v, ones({3, 4})).shape(), (Shape{4}));
  Tensor p = randn({2, 1, 3, 4}), q = randn({5, 4, 2});
  EXPECT_EQ(matmul(p, q).shape(), (Shape{2, 5, 3, 2}));
  const auto ref = naive_matmul(p[1][0].to_vector<double>(), q[3].to_vector<double>(), 3, 4, 2);
  expect_close(matmul(p, q)[1][3].to_vector<double>(), ref, 1e-4);
  EXPECT_EQ(matmul(zeros({0, 3}), ones({3, 2})).shape(), (Shape{0, 2}));
  EXPECT_EQ(matmul(ones({2, 0}), ones({0, 2})).to_vector<float>(), std::vector<float>(4, 0.0f));
}

TEST(Matmul, OperandsInNeitherGemmLayoutAreCopiedFirst) {
  manual_seed(8);
  // Views whose last two strides are neither row-major (stride[-1] == 1) nor column-major
  // (stride[-2] == 1) are copied before the GEMM; row-major views with a leading dimension
  // larger than their width are passed as they are.
  Tensor x = randn({4, 3, 5}), y = randn({6, 4, 2}), w = randn({4, 2});
  Tensor a = x.transpose(0, 2)[1];  // [3, 4], strides (5, 15)
  ASSERT_EQ(a.strides(), (std::vector<std::int64_t>{5, 15}));
  expect_close(matmul(a, w).to_vector<double>(),
               naive_matmul(a.to_vector<double>(), w.to_vector<double>(), 3, 4, 2), 1e-4);
  Tensor b = y.transpose(0, 1)[0];  // [6, 2], strides (8, 1): row-major, ld 8
  ASSERT_EQ(b.strides(), (std::vector<std::int64_t>{8, 1}));
  expect_close(matmul(b.t(), b).to_vector<double>(),
               naive_matmul(b.t().to_vector<double>(), b.to_vector<double>(), 2, 6, 2), 1e-4);
  Tensor e = y.transpose(0, 2)[1];  // [4, 6], strides (2, 8): neither, nor its transpose
  ASSERT_EQ(e.strides(), (std::vector<std::int64_t>{2, 8}));
  expect_close(matmul(e.t(), e).to_vector<double>(),
               naive_matmul(e.t().to_vector<double>(), e.to_vector<double>(), 6, 4, 6), 1e-4);
  // Batch dimensions that cannot be one batch stride ([3, 2] with strides (20, 60)) are
  // materialised; each batch entry still matches.
  Tensor p = randn({2, 3, 4, 5}).transpose(0, 1), q = randn({5, 2});
  Tensor c = matmul(p, q);
  ASSERT_EQ(c.shape(), (Shape{3, 2, 4, 2}));
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t j = 0; j < 2; ++j)
      expect_close(c[i][j].to_vector<double>(),
                   naive_matmul(p[i][j].to_vector<double>(), q.to_vector<double>(), 4, 5, 2), 1e-4);
}

TEST(Matmul, RejectsBadShapesAndDtypes) {
  try {
    matmul(ones({2, 3}), ones({2, 3}));
    FAIL();
  } catch (const ShapeError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("[2, 3] and [2, 3]"), std::string::npos) << m;
  }
  EXPECT_THROW(matmul(tensor({1, 2}), tensor({1, 2})), DTypeError);
  EXPECT_THROW(matmul(ones({}), ones({2})), ShapeError);
}

TEST(Linear, MatchesIndependentReference) {
  manual_seed(7);
  nn::Linear lin(5, 3);
  Tensor x = randn({4, 5});
  Tensor y = lin(x);
  ASSERT_EQ(y.shape(), (Shape{4, 3}));
  const auto W = lin.weight().to_vector<double>();  // [3, 5]
  const auto b = lin.bias().to_vector<double>();
  const auto xv = x.to_vector<double>();
  const auto yv = y.to_vector<double>();
  for (int i = 0; i < 4; ++i)
    for (int o = 0; o < 3; ++o) {
      double acc = b[o];
      for (int l = 0; l < 5; ++l) acc += xv[i * 5 + l] * W[o * 5 + l];
      EXPECT_NEAR(yv[i * 3 + o], acc, 1e-5);
    }
  const double bound = 1 / std::sqrt(5.0);
  for (double w : W) EXPECT_LE(std::abs(w), bound);
  EXPECT_THROW(lin(ones({4, 6})), ShapeError);
}

// Zero features, as torch 1.13 (values below are torch's): Linear(0, n) is its bias, which
// starts at 0 (torch's bound 0 for no inputs), and takes the gradient; Linear(n, 0) gives an
// empty output and a zero input gradient; a negative count is a ShapeError. Embedding of no
// rows refuses every index and embeds an empty batch; rows of no elements embed to [*, 0].
TEST(Linear, ZeroFeaturesAsTorch) {
  nn::Linear none_in(0, 3);
  Tensor x = zeros({2, 0});
  x.requires_grad_();
  Tensor y = none_in(x);
  ASSERT_EQ(y.shape(), (Shape{2, 3}));
  EXPECT_EQ(y.to_vector<float>(), std::vector<float>(6, 0.0f));
  y.sum().backward();
  EXPECT_EQ(none_in.bias().grad().to_vector<float>(), std::vector<float>(3, 2.0f));
  EXPECT_EQ(none_in.weight().grad().shape(), (Shape{3, 0}));
  EXPECT_EQ(x.grad().shape(), (Shape{2, 0}));

  nn::Linear none_out(3, 0);
  Tensor x3 = ones({2, 3});
  x3.requires_grad_();
  Tensor y3 = none_out(x3);
  EXPECT_EQ(y3.shape(), (Shape{2, 0}));
  y3.sum().backward();
  EXPECT_EQ(x3.grad().to_vector<float>(), std::vector<float>(6, 0.0f));
  EXPECT_THROW(nn::Linear(-1, 3), ShapeError);
  EXPECT_THROW(nn::Linear(3, -1), ShapeError);

  nn::Embedding no_rows(0, 4);
  EXPECT_EQ(no_rows.weight().shape(), (Shape{0, 4}));
  EXPECT_THROW(no_rows(tensor({0})), IndexError);
  EXPECT_EQ(no_rows(zeros({2, 0}, DType::int64)).shape(), (Shape{2, 0, 4}));
  EXPECT_THROW(nn::Embedding(0, 4, 0), ValueError);  // padding_idx outside no rows
  nn::Embedding empty_rows(5, 0);
  EXPECT_EQ(empty_rows(tensor({1, 4})).shape(), (Shape{2, 0}));
  EXPECT_THROW(nn::Embedding(-1, 4), ShapeError);
}
