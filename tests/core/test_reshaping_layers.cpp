// SPDX-License-Identifier: Apache-2.0
// pixel_shuffle / pixel_unshuffle, unflatten, InstanceNorm, cosine_similarity and unfold /
// fold with their layers: worked examples computed by torch 1.13 and torch's refusals.
// tests/torch_layers (kinds "instancenorm" and "module") draws them at random against torch.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include <hetero/hetero.hpp>

namespace {
using namespace hetero;

std::vector<double> values_of(const Tensor& t) { return t.to_vector<double>(); }

// One training pass of a 3-channel affine norm layer with running statistics over an empty
// x of `shape`: an empty result, x's gradient of its shape, zero weight and bias gradients,
// and the running statistics as initialised (torch's batch_norm empty-input path).
void expect_empty_pass(nn::Module& norm, const Shape& shape) {
  Tensor x = randn(shape).requires_grad_();
  const Tensor y = norm(x);
  EXPECT_EQ(y.shape(), shape);
  y.sum().backward();
  EXPECT_EQ(x.grad().shape(), shape);
  for (const char* name : {"weight", "bias"})
    EXPECT_EQ(norm.named_parameters().at(name).grad().to_vector<float>(),
              (std::vector<float>{0, 0, 0}));
  const nn::NamedTensors buffers = norm.named_buffers();
  EXPECT_EQ(buffers.at("running_mean").to_vector<float>(), (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(buffers.at("running_var").to_vector<float>(), (std::vector<float>{1, 1, 1}));
}

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

// torch 1.13: no spatial elements (or no samples) give an empty result and leave the running
// statistics as they were (batch_norm's empty-input path). hetero said "Expected more than 1
// spatial element" for none, and with an empty batch wrote NaN into the running statistics.
TEST(InstanceNorm, EmptyInputsAsTorch) {
  for (const Shape& shape : {Shape{2, 3, 0}, Shape{0, 3, 5}}) {
    SCOPED_TRACE(shape[0] == 0 ? "no samples" : "no spatial elements");
    nn::InstanceNorm1d norm(3, 1e-5, 0.1, true, true);
    expect_empty_pass(norm, shape);
  }
  EXPECT_EQ(nn::InstanceNorm2d(3)(randn({2, 3, 0, 5})).shape(), (Shape{2, 3, 0, 5}));
  EXPECT_EQ(nn::InstanceNorm1d(3)(randn({3, 0})).shape(), (Shape{3, 0}));
  EXPECT_THROW((void)nn::InstanceNorm1d(3)(randn({2, 3, 1})), ValueError);  // one is refused
}

// torch 1.13's BatchNorm of an empty batch (or of no spatial elements) in training: an empty
// result whose weight and bias get zero gradients, running statistics untouched,
// num_batches_tracked counted. hetero raised "Expected more than 1 value per channel" and
// said "as torch".
TEST(BatchNorm, EmptyBatchesAsTorch) {
  for (const Shape& shape : {Shape{0, 3}, Shape{2, 3, 0}}) {
    SCOPED_TRACE(shape.size() == 2 ? "no samples" : "no positions");
    nn::BatchNorm1d norm(3);
    expect_empty_pass(norm, shape);
    EXPECT_EQ(norm.named_buffers().at("num_batches_tracked").item<std::int64_t>(), 1);
    norm.eval();
    EXPECT_EQ(norm(randn(shape)).shape(), shape);
  }
  EXPECT_THROW((void)nn::BatchNorm1d(3)(randn({1, 3})), ValueError);  // one value is refused
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

// unfold / fold: torch 1.13's values for a window with dilation, one-sided padding and a
// stride; the gradient (fold of the incoming one); inf and NaN copied, not multiplied; the
// layers; torch's refusals.
TEST(Fold, UnfoldAndFoldAsTorch) {
  const Tensor x =
      arange(std::int64_t{24}).to(DType::float64).reshape({1, 2, 3, 4}).requires_grad_();
  const Tensor y = unfold(x, {2, 2}, {1, 2}, {0, 1}, {1, 2});
  EXPECT_EQ(y.shape(), (Shape{1, 8, 4}));
  EXPECT_EQ(y.to_vector<double>(),
            (std::vector<double>{0, 1,  0, 5,  1,  3,  5,  7,  0, 5,  0, 9,  5,  7,  9,  11,
                                 0, 13, 0, 17, 13, 15, 17, 19, 0, 17, 0, 21, 17, 19, 21, 23}));
  y.sum().backward();
  EXPECT_EQ(x.grad().to_vector<double>(),
            (std::vector<double>{0, 2, 0, 1, 0, 4, 0, 2, 0, 2, 0, 1,
                                 0, 2, 0, 1, 0, 4, 0, 2, 0, 2, 0, 1}));
  const Tensor z = fold(y.detach(), {3, 4}, {2, 2}, {1, 2}, {0, 1}, {1, 2});
  EXPECT_EQ(z.shape(), (Shape{1, 2, 3, 4}));
  EXPECT_EQ(z.to_vector<double>(), (std::vector<double>{0, 2,  0, 3,  0, 20, 0, 14, 0, 18, 0, 11,
                                                        0, 26, 0, 15, 0, 68, 0, 38, 0, 42, 0, 23}));
  // Unbatched forms, and the layers.
  EXPECT_TRUE(equal(unfold(x.detach()[0], {2, 2}, {1, 2}, {0, 1}, {1, 2}), y.detach()[0]));
  EXPECT_TRUE(equal(fold(y.detach()[0], {3, 4}, {2, 2}, {1, 2}, {0, 1}, {1, 2}), z[0]));
  EXPECT_TRUE(equal(nn::Unfold({2, 2}, {1, 2}, {0, 1}, {1, 2})(x.detach()), y.detach()));
  EXPECT_TRUE(equal(nn::Fold({3, 4}, {2, 2}, {1, 2}, {0, 1}, {1, 2})(y.detach()), z));
  // Values are copied and added, never multiplied: inf and NaN stay where they were.
  const Tensor special =
      from_vector(std::vector<double>{1, INFINITY, NAN, -0.0}).reshape({1, 1, 2, 2});
  const auto u = unfold(special, 1).to_vector<double>();
  EXPECT_EQ(u[0], 1);
  EXPECT_EQ(u[1], INFINITY);
  EXPECT_TRUE(std::isnan(u[2]));
  const auto f = fold(unfold(special, 2, 1, 1), {2, 2}, 2, 1, 1).to_vector<double>();
  EXPECT_EQ(f[0], 4);  // torch: [4, inf, nan, 0]
  EXPECT_EQ(f[1], INFINITY);
  EXPECT_TRUE(std::isnan(f[2]));
  EXPECT_EQ(f[3], 0);
  // One block along a dimension: its stride plays no part (however large).
  const Tensor img4 = randn({2, 3, 5, 6});
  const std::int64_t huge = std::numeric_limits<std::int64_t>::max();
  EXPECT_TRUE(equal(unfold(img4, {5, 2}, 1, 0, {huge, 1}), unfold(img4, {5, 2})));
  const Tensor one_block = unfold(img4, 5, 1, 0, huge);
  EXPECT_TRUE(equal(one_block, unfold(img4.narrow(3, 0, 5), 5)));
  EXPECT_TRUE(equal(fold(one_block, {5, 6}, 5, 1, 0, huge), fold(one_block, {5, 6}, 5, 1, 0, 2)));
  // 16-bit dtypes, and an empty batch.
  EXPECT_EQ(unfold(x.detach().to(DType::bfloat16), 2).dtype(), DType::bfloat16);
  EXPECT_EQ(unfold(zeros({0, 3, 5, 6}), 2).shape(), (Shape{0, 12, 20}));
  // torch's refusals.
  const Tensor img = randn({2, 3, 5, 6});
  EXPECT_THROW((void)unfold(img, 0), ValueError);
  EXPECT_THROW((void)unfold(img, 2, 0), ValueError);
  EXPECT_THROW((void)unfold(img, 2, 1, -1), ValueError);
  EXPECT_THROW((void)unfold(img, 2, 1, 0, 0), ValueError);
  EXPECT_THROW((void)unfold(img, 7), ShapeError);                // no block fits
  EXPECT_THROW((void)unfold(img, {6, 6}, 1, 0, 2), ShapeError);  // floor(-1 / 2) + 1 = 0
  EXPECT_THROW((void)unfold(img, 2, std::numeric_limits<std::int64_t>::max()), ShapeError);
  EXPECT_THROW((void)unfold(randn({5, 6}), 2), ShapeError);
  EXPECT_THROW((void)unfold(randn({1, 2, 3, 5, 6}), 2), ShapeError);
  EXPECT_THROW((void)unfold(randn({2, 0, 5, 6}), 2), ShapeError);
  EXPECT_THROW((void)unfold(img.to(DType::int64), 2), NotImplementedError);
  EXPECT_THROW((void)unfold(img > 0.0, 2), NotImplementedError);
  EXPECT_THROW((void)unfold(img, std::numeric_limits<std::int64_t>::max(), 1,
                            std::numeric_limits<std::int64_t>::max() / 2),
               ShapeError);
  const Tensor cols = unfold(img, {2, 3});
  EXPECT_THROW((void)fold(cols.narrow(2, 0, 15), {5, 6}, {2, 3}), ShapeError);
  EXPECT_THROW((void)fold(cols.narrow(1, 0, 17), {5, 6}, {2, 3}), ShapeError);
  EXPECT_THROW((void)fold(cols, {0, 6}, {2, 3}), ShapeError);
  EXPECT_THROW((void)fold(cols[0][0], {5, 6}, {2, 3}), ShapeError);
  EXPECT_THROW((void)fold(randn({2, 6, 0}), {5, 6}, {2, 3}), ShapeError);
  EXPECT_THROW((void)fold(cols.to(DType::int64), {5, 6}, {2, 3}), NotImplementedError);
  EXPECT_THROW((void)fold(cols, {5, 6}, {std::int64_t{1} << 32, std::int64_t{1} << 32}),
               ShapeError);
}

}  // namespace

// GroupNorm's sizes as torch 1.13's: no channels and empty batches give empty results (hetero
// refused GroupNorm(1, 0) with "num_channels must be divisible by num_groups (got 0 and 1)").
TEST(GroupNorm, SizesAsTorch) {
  nn::GroupNorm no_channels(1, 0);
  Tensor x = randn({2, 0, 3}).requires_grad_();
  const Tensor y = no_channels(x);
  EXPECT_EQ(y.shape(), (Shape{2, 0, 3}));
  y.sum().backward();
  EXPECT_EQ(no_channels.named_parameters().at("weight").grad().shape(), (Shape{0}));
  EXPECT_EQ(nn::GroupNorm(2, 4)(randn({0, 4, 3})).shape(), (Shape{0, 4, 3}));
  EXPECT_THROW(nn::GroupNorm(0, 4), ValueError);
  EXPECT_THROW(nn::GroupNorm(-2, 4), ValueError);
  EXPECT_THROW(nn::GroupNorm(3, 4), ValueError);
  EXPECT_THROW(nn::GroupNorm(1, -1), ValueError);
  // One value per group: "Expected more than 1 value per channel when training".
  EXPECT_THROW((void)nn::GroupNorm(4, 4)(randn({1, 4, 1})), ValueError);
  EXPECT_EQ(nn::GroupNorm(4, 4)(randn({2, 4, 1})).shape(), (Shape{2, 4, 1}));
}
