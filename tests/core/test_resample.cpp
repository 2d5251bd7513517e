// SPDX-License-Identifier: Apache-2.0
// pad and interpolate (<hetero/padding.hpp>, <hetero/interpolate.hpp>) and their layers
// (nn::PadNd's aliases, nn::Upsample): worked examples, torch's scale_factor rule, the errors,
// and the gradient as the adjoint of the forward (both ops are linear in x: <f(x), g> must
// equal <x, grad>), which holds where torch 1.13's own nearest and bicubic backward do not.
// Values and gradients against torch: tests/torch_resample.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include <hetero/hetero.hpp>

using namespace hetero;

namespace {

std::vector<float> values(const Tensor& t) { return t.to(DType::float32).to_vector<float>(); }

Tensor row(std::vector<float> v) {
  const auto n = static_cast<std::int64_t>(v.size());
  return from_vector(v).reshape({1, 1, n});
}

// <f(x), g> - <x, grad of f at x for g>, relative to their size (float64).
template <class F>
double adjoint_gap(F f, const Shape& shape) {
  const Tensor x = randn(shape, TensorOptions().dtype(DType::float64)).requires_grad_();
  const Tensor y = f(x);
  const Tensor g = randn(y.shape(), TensorOptions().dtype(DType::float64));
  y.backward(g);
  const double lhs = (y.detach() * g).sum().item<double>();
  const double rhs = (x.detach() * x.grad()).sum().item<double>();
  return std::abs(lhs - rhs) / (1 + std::abs(lhs));
}

}  // namespace

TEST(Pad, EachModeOnARow) {
  const Tensor x = row({0, 1, 2, 3});
  EXPECT_EQ(values(pad(x, {2, 1}, PadMode::constant, 9)),
            (std::vector<float>{9, 9, 0, 1, 2, 3, 9}));
  EXPECT_EQ(values(pad(x, {2, 2}, PadMode::reflect)), (std::vector<float>{2, 1, 0, 1, 2, 3, 2, 1}));
  EXPECT_EQ(values(pad(x, {2, 2}, PadMode::replicate)),
            (std::vector<float>{0, 0, 0, 1, 2, 3, 3, 3}));
  EXPECT_EQ(values(pad(x, {2, 2}, PadMode::circular)),
            (std::vector<float>{2, 3, 0, 1, 2, 3, 0, 1}));
  // Negative amounts crop; circular then wraps around what is kept, as torch's _pad_circular.
  EXPECT_EQ(values(pad(x, {-1, 1})), (std::vector<float>{1, 2, 3, 0}));
  EXPECT_EQ(values(pad(x, {-1, 2}, PadMode::circular)), (std::vector<float>{1, 2, 3, 1, 2}));
  EXPECT_EQ(values(pad(x, {-2, 3}, PadMode::reflect)), (std::vector<float>{2, 3, 2, 1, 0}));
  // Two dimensions: the last first ({left, right, top, bottom}).
  const Tensor m = arange(6).to(DType::float32).reshape({1, 2, 3});
  const Tensor p = pad(m, {1, 0, 0, 1}, PadMode::replicate);
  EXPECT_EQ(p.shape(), (Shape{1, 3, 4}));
  EXPECT_EQ(values(p), (std::vector<float>{0, 0, 1, 2, 3, 3, 4, 5, 3, 3, 4, 5}));
  // A constant converts as torch.full: a fraction truncates for integers.
  EXPECT_EQ(pad(arange(2), {1, 1}, PadMode::constant, 2.7).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{2, 0, 1, 2}));
  EXPECT_THROW(pad(arange(2), {1, 1}, PadMode::constant, INFINITY), DTypeError);
  // Any dtype in the other modes too (torch 1.13 refuses integer reflect pads).
  EXPECT_EQ(pad(arange(3).reshape({1, 3}), {1, 1}, PadMode::reflect).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{1, 0, 1, 2, 1}));
}

TEST(Pad, GradientsSumWhatEachElementFed) {
  const Tensor x = row({1, 2, 3}).requires_grad_();
  pad(x, {2, 1}, PadMode::reflect).sum().backward();
  // Output [3 2 1 2 3 2]: x0 once, x1 three times, x2 twice.
  EXPECT_EQ(values(x.grad()), (std::vector<float>{1, 3, 2}));
  const Tensor y = row({1, 2, 3}).requires_grad_();
  pad(y, {-1, 2}).sum().backward();  // the cropped element gets 0
  EXPECT_EQ(values(y.grad()), (std::vector<float>{0, 1, 1}));
  for (PadMode mode : {PadMode::constant, PadMode::reflect, PadMode::replicate, PadMode::circular})
    EXPECT_LT(adjoint_gap(
                  [mode](const Tensor& t) {
                    return pad(t, {2, -1, 1, 3, -1, 1}, mode);
                  },
                  {2, 3, 4, 5, 4}),
              1e-12)
        << pad_mode_name(mode);
}

TEST(Pad, RefusesAsTorch) {
  const Tensor x = randn({1, 2, 4});
  EXPECT_THROW(pad(x, {1}), ValueError);                            // odd
  EXPECT_THROW(pad(x, {1, 1, 1, 1, 1, 1, 1, 1}), ValueError);       // more pairs than dims
  EXPECT_THROW(pad(x, {4, 0}, PadMode::reflect), ValueError);       // >= the size
  EXPECT_THROW(pad(x, {5, 0}, PadMode::circular), ValueError);      // wraps twice
  EXPECT_THROW(pad(x, {1, 1}, PadMode::reflect, 1.0), ValueError);  // a value
  EXPECT_THROW(pad(x, {-3, -2}), ShapeError);                       // a negative size
  // A crop beyond the dimension is refused even where the other side's padding would
  // leave a non-negative size (torch's narrow refuses it: IndexError, then RuntimeError).
  EXPECT_THROW(pad(arange(4), {-6, 3}), IndexError);
  EXPECT_THROW(pad(arange(4), {3, -6}), ShapeError);
  EXPECT_THROW(pad(arange(4), {-3, -2}), ShapeError);
  EXPECT_EQ(pad(arange(4), {-4, 3}).shape(), Shape({3}));  // everything cropped, 3 padded
  EXPECT_THROW(pad(randn({4}), {1, 1}, PadMode::reflect), NotImplementedError);
  EXPECT_THROW(pad(randn({2, 4}), {1, 1}, PadMode::circular), NotImplementedError);
  EXPECT_THROW(pad(randn({2, 0, 4}), {1, 1}, PadMode::replicate), ShapeError);
  EXPECT_THROW(pad(x, {std::numeric_limits<std::int64_t>::min(), 0}), ValueError);
  // Empty outputs are allowed (torch 1.13 refuses some of them).
  EXPECT_EQ(pad(x, {-2, -2}, PadMode::replicate).shape(), (Shape{1, 2, 0}));
  EXPECT_EQ(pad(randn({0, 3}), {1, 1, 0, 0}).shape(), (Shape{0, 5}));
}

TEST(Pad, Layers) {
  nn::ReflectionPad2d reflect(2);
  EXPECT_EQ(reflect(randn({1, 3, 4, 5})).shape(), (Shape{1, 3, 8, 9}));
  nn::ZeroPad2d zero({1, 0, 2, 0});
  const Tensor z = zero(ones({1, 1, 1, 1}));
  EXPECT_EQ(z.shape(), (Shape{1, 1, 3, 2}));
  EXPECT_EQ(z.sum().item<float>(), 1.0f);
  nn::ConstantPad1d constant(1, 3.5);
  EXPECT_EQ(values(constant(row({1}))), (std::vector<float>{3.5f, 1, 3.5f}));
  nn::ReplicationPad3d replicate({1, 1, 0, 0, 0, 2});
  EXPECT_EQ(replicate(randn({2, 1, 2, 3})).shape(), (Shape{2, 3, 2, 5}));
  nn::CircularPad2d circular(1);
  EXPECT_EQ(circular(randn({1, 1, 2, 2})).shape(), (Shape{1, 1, 4, 4}));
  EXPECT_TRUE(reflect.parameters().empty());
  EXPECT_THROW(reflect(randn({1, 3, 2, 5})), ValueError);  // 2 >= 2 rows
}

TEST(Interpolate, NearestAndTorchsScaleFactorRule) {
  InterpolateOptions o;
  o.scale_factor = {2};
  EXPECT_EQ(values(interpolate(row({1, 2}), o)), (std::vector<float>{1, 1, 2, 2}));
  // scale_factor 1.5 of 4 gives 6, with positions mapped by 1 / 1.5 (here in / out too).
  o.scale_factor = {1.5};
  EXPECT_EQ(values(interpolate(row({0, 1, 2, 3}), o)), (std::vector<float>{0, 0, 1, 2, 2, 3}));
  // 1.1 of 4 gives 4 elements, mapped by 1 / 1.1: floor(j / 1.1) = 0 0 1 2 (not a copy)...
  o.scale_factor = {1.1};
  EXPECT_EQ(values(interpolate(row({0, 1, 2, 3}), o)), (std::vector<float>{0, 0, 1, 2}));
  // ...unless recomputed (in / out = 1).
  o.recompute_scale_factor = true;
  EXPECT_EQ(values(interpolate(row({0, 1, 2, 3}), o)), (std::vector<float>{0, 1, 2, 3}));
  InterpolateOptions exact{.size = {3}, .mode = InterpolateMode::nearest_exact};
  EXPECT_EQ(values(interpolate(row({0, 1, 2, 3, 4}), exact)), (std::vector<float>{0, 2, 4}));
  // Any dtype.
  EXPECT_EQ(interpolate(arange(2).reshape({1, 1, 2}), InterpolateOptions{.size = {4}})
                .to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{0, 0, 1, 1}));
}

TEST(Interpolate, LinearModes) {
  InterpolateOptions o{.size = {3}, .mode = InterpolateMode::linear, .align_corners = true};
  EXPECT_EQ(values(interpolate(row({0, 1}), o)), (std::vector<float>{0, 0.5f, 1}));
  // Half-pixel centres: 0.25 and 0.75 of the way, clamped at the edges.
  o = {.size = {4}, .mode = InterpolateMode::linear};
  EXPECT_EQ(values(interpolate(row({0, 4}), o)), (std::vector<float>{0, 1, 3, 4}));
  // Bilinear is linear along each dimension.
  const Tensor img = tensor({0.0f, 2.0f, 4.0f, 6.0f}).reshape({1, 1, 2, 2});
  const Tensor up =
      interpolate(img, {.size = {3, 3}, .mode = InterpolateMode::bilinear, .align_corners = true});
  EXPECT_EQ(values(up), (std::vector<float>{0, 1, 2, 2, 3, 4, 4, 5, 6}));
  // Bicubic keeps a constant (its weights sum to 1) and overshoots at a step.
  const Tensor flat =
      interpolate(full({1, 1, 3, 3}, 2.0), {.size = {5, 7}, .mode = InterpolateMode::bicubic});
  for (float v : values(flat)) EXPECT_NEAR(v, 2.0f, 1e-5);  // float32 rounding
  const Tensor step = interpolate(tensor({0.0f, 0.0f, 1.0f, 1.0f}).reshape({1, 1, 1, 4}),
                                  {.size = {1, 8}, .mode = InterpolateMode::bicubic});
  EXPECT_LT(step.min().item<float>(), 0.0f);
  // area is adaptive_avg_pool.
  EXPECT_EQ(values(interpolate(row({1, 3, 5, 7}), {.size = {2}, .mode = InterpolateMode::area})),
            (std::vector<float>{2, 6}));
  const Tensor vol = randn({1, 2, 4, 4, 6});
  const Tensor pooled = interpolate(vol, {.size = {2, 2, 3}, .mode = InterpolateMode::area});
  EXPECT_NEAR(pooled.mean().item<float>(), vol.mean().item<float>(), 1e-5);
  EXPECT_NEAR(pooled[0][0][0][0][0].item<float>(),
              vol.narrow(2, 0, 2).narrow(3, 0, 2).narrow(4, 0, 2)[0][0].mean().item<float>(), 1e-5);
}

// The gradient is the adjoint of the forward in every mode, including where torch 1.13's
// backward is not (nearest and bicubic with a scale_factor that keeps the size).
TEST(Interpolate, GradientIsTheForwardsAdjoint) {
  const std::vector<std::pair<InterpolateMode, Shape>> modes = {
      {InterpolateMode::nearest, {2, 2, 4, 5}}, {InterpolateMode::nearest_exact, {2, 2, 4, 5}},
      {InterpolateMode::linear, {2, 2, 5}},     {InterpolateMode::bilinear, {2, 2, 4, 5}},
      {InterpolateMode::bicubic, {2, 2, 4, 5}}, {InterpolateMode::trilinear, {1, 2, 3, 4, 5}},
      {InterpolateMode::area, {2, 2, 4, 5}}};
  for (const auto& [mode, shape] : modes)
    for (double s : {1.1, 1.7, 0.6}) {
      InterpolateOptions o{.scale_factor = {s}, .mode = mode};
      EXPECT_LT(adjoint_gap([&o](const Tensor& t) { return interpolate(t, o); }, shape), 1e-12)
          << interpolate_mode_name(mode) << " scale " << s;
    }
  // 16-bit: computed and summed in float32, rounded once.
  const Tensor h = randn({1, 1, 8}).to(DType::bfloat16).requires_grad_();
  const Tensor y = interpolate(h, {.size = {64}});
  EXPECT_EQ(y.dtype(), DType::bfloat16);
  y.backward(full(y.shape(), 0.1, TensorOptions().dtype(DType::bfloat16)));
  for (float v : values(h.grad())) EXPECT_NEAR(v, 0.8f, 0.8f / 128);
}

TEST(Interpolate, RefusesAsTorch) {
  const Tensor x = randn({1, 2, 3, 4});
  EXPECT_THROW(interpolate(x, {}), ValueError);  // neither size nor scale_factor
  EXPECT_THROW(interpolate(x, {.size = {5, 6}, .scale_factor = {2}}), ValueError);
  EXPECT_THROW(interpolate(x, {.size = {5, 6, 7}}), ValueError);
  EXPECT_THROW(interpolate(x, {.size = {5, 6}, .align_corners = true}), ValueError);
  EXPECT_THROW(interpolate(x, {.size = {5, 6}, .recompute_scale_factor = true}), ValueError);
  EXPECT_THROW(interpolate(x, {.scale_factor = {NAN}}), ValueError);
  EXPECT_THROW(interpolate(x, {.size = {5, 6}, .mode = InterpolateMode::linear}),
               NotImplementedError);
  EXPECT_THROW(interpolate(randn({2, 3}), {.size = {5}}), NotImplementedError);
  EXPECT_THROW(interpolate(x, {.size = {0, 6}}), ShapeError);
  EXPECT_THROW(interpolate(x, {.scale_factor = {0.2}}), ShapeError);  // floor(3 * 0.2) = 0
  EXPECT_THROW(interpolate(randn({1, 0, 3}), {.size = {5}}), ShapeError);
  EXPECT_THROW(
      interpolate(arange(4).reshape({1, 1, 4}), {.size = {5}, .mode = InterpolateMode::linear}),
      DTypeError);
  // An empty batch is fine.
  EXPECT_EQ(interpolate(randn({0, 2, 3}), {.size = {5}}).shape(), (Shape{0, 2, 5}));
  // A size no memory holds is a typed error, before any host table grows. (2^61: beyond
  // std::vector's max_size, so no build asks operator new for it; under AddressSanitizer
  // a smaller impossible request aborts instead of throwing std::bad_alloc.)
  EXPECT_THROW(interpolate(randn({1, 1, 2}), {.size = {std::int64_t{1} << 61}}), OutOfMemoryError);
  EXPECT_THROW(pad(randn({1, 2}), {0, std::int64_t{1} << 61}, PadMode::replicate),
               OutOfMemoryError);
}

TEST(Interpolate, UpsampleLayer) {
  nn::Upsample up({.scale_factor = {2}, .mode = InterpolateMode::bilinear, .align_corners = false});
  const Tensor x = randn({2, 3, 4, 5}).requires_grad_();
  const Tensor y = up(x);
  EXPECT_EQ(y.shape(), (Shape{2, 3, 8, 10}));
  y.sum().backward();
  // Each input element feeds weights that sum to 4 (2 x 2 per output row and column) in
  // total, less at the clamped edges; the total is the output's count.
  EXPECT_NEAR(x.grad().sum().item<float>(), 2 * 3 * 8 * 10, 1e-3);
  EXPECT_TRUE(up.parameters().empty());
  // One size serves every spatial dimension (torch's int form); three do not fit two.
  EXPECT_EQ(nn::Upsample({.size = {4}})(x).shape(), (Shape{2, 3, 4, 4}));
  nn::Upsample bad({.size = {4, 4, 4}});
  EXPECT_THROW(bad(x), ValueError);
}
