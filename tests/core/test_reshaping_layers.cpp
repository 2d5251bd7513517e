// SPDX-License-Identifier: Apache-2.0
// pixel_shuffle / pixel_unshuffle, unflatten, InstanceNorm and cosine_similarity with their
// layers: worked examples computed by torch 1.13 and torch's refusals. tests/torch_layers
// (kinds "instancenorm" and "module") draws them at random against torch itself.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include <hetero/hetero.hpp>

namespace {
using namespace hetero;

std::vector<double> values_of(const Tensor& t) { return t.to_vector<double>(); }

TEST(PixelShuffle, RearrangesAsTorch) {
  const Tensor x = arange(0, 16).to(DType::float32).reshape({1, 4, 2, 2});
  const Tensor y = pixel_shuffle(x, 2);
  EXPECT_EQ(y.shape(), (Shape{1, 1, 4, 4}));
  EXPECT_EQ(values_of(y),
            (std::vector<double>{0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15}));
  const Tensor z = arange(0, 16).to(DType::float32).reshape({1, 1, 4, 4});
  EXPECT_EQ(values_of(pixel_unshuffle(z, 2)),
            (std::vector<double>{0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15}));
  // Each inverts the other, with leading batch dimensions, on any dtype.
  const Tensor b = randn({2, 3, 8, 2, 3}) > 0.0;
  EXPECT_TRUE(equal(pixel_unshuffle(pixel_shuffle(b, 2), 2), b));
  EXPECT_EQ(pixel_shuffle(b, 2).shape(), (Shape{2, 3, 2, 4, 6}));
  EXPECT_TRUE(equal(nn::PixelShuffle(2)(x), y));
  EXPECT_TRUE(equal(nn::PixelUnshuffle(2)(y), x));
  // torch's refusals.
  EXPECT_THROW((void)pixel_shuffle(randn({4, 2}), 2), ShapeError);
  EXPECT_THROW((void)pixel_shuffle(randn({1, 5, 2, 2}), 2), ShapeError);
  EXPECT_THROW((void)pixel_shuffle(x, 0), ValueError);
  EXPECT_THROW((void)pixel_unshuffle(randn({1, 1, 5, 4}), 2), ShapeError);
  EXPECT_THROW((void)pixel_unshuffle(randn({1, 1, 4, 5}), 2), ShapeError);
  EXPECT_THROW((void)nn::PixelUnshuffle(-1), ValueError);
  // A factor whose square overflows int64: ShapeError (torch 1.13 divides by 0: SIGFPE).
  for (const std::int64_t r : {std::int64_t{1} << 32, std::numeric_limits<std::int64_t>::max()}) {
    EXPECT_THROW((void)pixel_shuffle(x, r), ShapeError) << r;
    EXPECT_THROW((void)pixel_shuffle(randn({1, 0, 2, 2}), r), ShapeError) << r;
  }
  // (h and w of 0 are divisible by any factor; c * r^2 channels would overflow)
  EXPECT_THROW((void)pixel_unshuffle(randn({1, 2, 0, 0}), std::int64_t{1} << 31), ShapeError);
  EXPECT_EQ(pixel_unshuffle(randn({1, 2, 0, 0}), 3).shape(), (Shape{1, 18, 0, 0}));
}

TEST(Unflatten, SplitsADimensionAsTorch) {
  const Tensor x = randn({2, 6, 3});
  EXPECT_EQ(unflatten(x, 1, {2, 3}).shape(), (Shape{2, 2, 3, 3}));
  EXPECT_EQ(unflatten(x, -2, {3, -1}).shape(), (Shape{2, 3, 2, 3}));
  EXPECT_EQ(unflatten(x, 1, {1, 6, 1}).shape(), (Shape{2, 1, 6, 1, 3}));
  EXPECT_TRUE(equal(unflatten(x, 1, {2, 3}).reshape({2, 6, 3}), x));
  EXPECT_EQ(nn::Unflatten(1, {2, 3})(x).shape(), (Shape{2, 2, 3, 3}));
  EXPECT_THROW((void)unflatten(x, 1, {4, -1}), ShapeError);
  EXPECT_THROW((void)unflatten(x, 1, {5}), ShapeError);
  EXPECT_THROW((void)unflatten(x, 1, {-1, -1}), ValueError);
  EXPECT_THROW((void)unflatten(x, 1, {-2, -3}), ValueError);
  EXPECT_THROW((void)unflatten(x, 1, {}), ValueError);
  EXPECT_THROW((void)unflatten(x, 3, {2, 3}), IndexError);
  EXPECT_THROW((void)unflatten(zeros({2, 0}), 1, {0, -1}), ShapeError);
  EXPECT_EQ(unflatten(zeros({2, 0}), 1, {0, 5}).shape(), (Shape{2, 0, 5}));
}

TEST(InstanceNorm, StatisticsAndRefusalsAsTorch) {
  const auto o = TensorOptions().dtype(DType::float64);
  nn::InstanceNorm1d norm(2, 1e-5, 0.5, false, true, o);
  const Tensor x = from_vector(std::vector<double>{1, 2, 4, 0, 0, 3}, {1, 2, 3});
  const auto y = values_of(norm(x));
  const std::vector<double> want = {-1.0690415314502977, -0.2672603828625746, 1.3363019143128716,
                                    -0.7071050134262237, -0.7071050134262237, 1.4142100268524473};
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(y[i], want[i], 1e-13) << i;
  const nn::NamedTensors buffers = norm.named_buffers();
  ASSERT_EQ(buffers.size(), 3u);
  EXPECT_NEAR(values_of(buffers.at("running_mean"))[0], 1.1666666666666667, 1e-15);
  EXPECT_NEAR(values_of(buffers.at("running_var"))[1], 2.0, 1e-15);
  EXPECT_EQ(values_of(buffers.at("num_batches_tracked"))[0], 0.0);  // torch never counts it
  // Eval normalises with the running statistics; one spatial element is then allowed.
  norm.eval();
  EXPECT_EQ(norm(zeros({1, 2, 1}, o)).shape(), (Shape{1, 2, 1}));
  norm.train();
  EXPECT_THROW((void)norm(zeros({1, 2, 1}, o)), ValueError);
  // Unbatched input, the ranks, and the channel count where parameters or statistics need it.
  EXPECT_EQ(nn::InstanceNorm2d(3)(randn({3, 2, 2})).shape(), (Shape{3, 2, 2}));
  EXPECT_THROW((void)nn::InstanceNorm2d(3)(randn({2, 3})), ShapeError);
  EXPECT_THROW((void)nn::InstanceNorm1d(3, 1e-5, 0.1, true)(randn({2, 4, 5})), ShapeError);
  EXPECT_EQ(nn::InstanceNorm1d(3)(randn({2, 4, 5})).shape(), (Shape{2, 4, 5}));
  EXPECT_THROW((void)nn::InstanceNorm1d(3)(randn({2, 3, 4}).to(DType::int64)), DTypeError);
  EXPECT_THROW(nn::InstanceNorm3d(0), ValueError);
  EXPECT_THROW(nn::InstanceNorm3d(2, 1e-5, 1.5), ValueError);
  EXPECT_EQ(nn::InstanceNorm3d(2, 1e-5, 0.1, true).named_parameters().size(), 2u);
}

TEST(CosineSimilarity, AsTorch) {
  const auto o = TensorOptions().dtype(DType::float64);
  const Tensor x = from_vector(std::vector<double>{3, 4, 1, 0}, {2, 2});
  const Tensor y = from_vector(std::vector<double>{4, 3, 0, 0}, {2, 2});
  const auto c = values_of(cosine_similarity(x, y));
  EXPECT_NEAR(c[0], 0.96, 1e-15);
  EXPECT_EQ(c[1], 0.0);  // a zero vector: its norm clamped to eps, not NaN
  // Each norm is clamped separately (torch 1.13): two vectors of norm 1e-9 give 0.01, and
  // the gradient through a clamped norm divides by the clamped value (torch: 9.9e7).
  const Tensor tiny = from_vector(std::vector<double>{1e-9, 0}, {1, 2});
  EXPECT_NEAR(values_of(cosine_similarity(tiny, tiny))[0], 0.01, 1e-15);
  Tensor leaf = tiny.clone().requires_grad_();
  cosine_similarity(leaf, from_vector(std::vector<double>{1, 0}, {1, 2})).sum().backward();
  EXPECT_NEAR(values_of(leaf.grad())[0], 99000000.0, 1e-6);
  // Broadcasting, promotion, dim, and the layer.
  EXPECT_EQ(cosine_similarity(randn({3, 4}), randn({4}), -1).shape(), (Shape{3}));
  EXPECT_EQ(cosine_similarity(randn({3, 4}), randn({3, 4}, o)).dtype(), DType::float64);
  EXPECT_EQ(cosine_similarity(randn({4}), randn({4}), 0).shape(), (Shape{}));
  EXPECT_EQ(nn::CosineSimilarity(0)(randn({3, 4}), randn({3, 4})).shape(), (Shape{4}));
  EXPECT_THROW((void)cosine_similarity(randn({3, 4}), randn({2, 4})), ShapeError);
  EXPECT_THROW((void)cosine_similarity(randn({3, 4}), randn({3, 4}), 2), IndexError);
  EXPECT_THROW((void)cosine_similarity(x.to(DType::int64), y.to(DType::int64)), DTypeError);
  EXPECT_THROW((void)nn::CosineSimilarity().forward(x), ValueError);
}

}  // namespace

