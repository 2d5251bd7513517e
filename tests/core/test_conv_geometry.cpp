// SPDX-License-Identifier: Apache-2.0
// Convolution and pooling geometry that overflows int64 or describes no window (issue #44
// items 11 and 17), and the rounding of 16-bit convolutions (item 7): a ShapeError naming the op,
// where the sizes crashed (SIGSEGV), returned garbage, hit an internal assertion or returned zeros.
// torch 1.13 raises for each.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <hetero/hetero.hpp>

using namespace hetero;

namespace {
constexpr std::int64_t k61 = std::int64_t{1} << 61, k62 = std::int64_t{1} << 62;
}

TEST(ConvGeometry, OverflowingPaddingOrDilationRaises) {
  const Tensor x = ones({1, 1, 4, 4}), w = ones({1, 1, 2, 2});
  EXPECT_THROW((void)conv2d(x, w, {}, 1, {k61, 0}), ShapeError);
  EXPECT_THROW((void)conv2d(x, w, {}, 1, {0, k62}), ShapeError);
  EXPECT_THROW((void)conv2d(x, w, {}, 1, 0, {k62, 1}), ShapeError);
  EXPECT_THROW((void)conv2d(x, w, {}, 1, 0, {1, INT64_MAX}), ShapeError);
  // Large but representable: the kernel does not fit (as torch's message).
  EXPECT_THROW((void)conv2d(x, w, {}, 1, 0, {k61, 1}), ShapeError);
}

TEST(ConvGeometry, EmptyKernelsAndEmptySpatialInputsRaise) {
  EXPECT_THROW((void)conv2d(ones({1, 1, 4, 4}), ones({1, 1, 0, 0})), ShapeError);
  EXPECT_THROW((void)conv2d(ones({1, 1, 4, 4}), ones({1, 1, 0, 2})), ShapeError);
  EXPECT_THROW((void)conv2d(ones({1, 1, 0, 4}), ones({1, 1, 1, 1}), {}, 1, 1), ShapeError);
  // A zero batch is fine (as torch).
  EXPECT_EQ(conv2d(ones({0, 1, 4, 4}), ones({2, 1, 3, 3})).shape(), (Shape{0, 2, 2, 2}));
}

TEST(ConvGeometry, AWeightWithFewerRowsThanGroupsRaises) {
  // torch 1.13: F.conv2d(torch.ones(1, 4, 5, 5), torch.ones(0, 4, 3, 3)): RuntimeError "Given
  // groups=1, expected weight to be at least 1 at dimension 0, but got weight of size [0, 4,
  // 3, 3] instead", empty batch or not; with groups=2 and one output channel, "at least 2".
  // These gave an empty result (no output channels), or ValueError for 1 % 2.
  EXPECT_THROW((void)conv2d(ones({1, 4, 5, 5}), ones({0, 4, 3, 3})), ShapeError);
  EXPECT_THROW((void)conv2d(ones({0, 4, 5, 5}), ones({0, 4, 3, 3})), ShapeError);
  EXPECT_THROW((void)conv2d(ones({1, 4, 5, 5}), ones({1, 2, 3, 3}), {}, 1, 0, 1, 2), ShapeError);
  EXPECT_THROW((void)conv1d(ones({1, 4, 5}), ones({0, 4, 3})), ShapeError);
  try {
    (void)conv1d(ones({1, 4, 5}), ones({0, 4, 3}));
  } catch (const ShapeError& e) {
    EXPECT_NE(
        std::string(e.what()).find("at least 1 at dimension 0, but got weight of size [0, 4, 3]"),
        std::string::npos)
        << e.what();
  }
}

TEST(ConvGeometry, OverflowingPoolGeometryRaises) {
  const Tensor x = ones({1, 1, 4, 4});
  EXPECT_THROW((void)max_pool2d(x, {2, 2}, std::nullopt, 0, {k62, 1}), ShapeError);
  EXPECT_THROW((void)max_pool2d(x, {k62, k62}, std::nullopt, {k61, k61}), ShapeError);
  EXPECT_THROW((void)max_pool2d(x, {INT64_MAX, 2}, std::nullopt, {INT64_MAX / 2, 0}), ShapeError);
  EXPECT_THROW((void)avg_pool2d(x, {k62, 2}, std::nullopt, {k61, 0}), ShapeError);
  EXPECT_THROW((void)max_pool2d(x, {3, 3}, {{INT64_MAX, INT64_MAX}}, 0, 1, /*ceil_mode=*/true),
               ShapeError);
  // A stride far larger than the input: one window (as torch gives for 2^40).
  EXPECT_EQ(max_pool2d(x, {3, 3}, {{std::int64_t{1} << 40, 1}}).shape(), (Shape{1, 1, 1, 2}));
}

// Issue #44 item 7: a 16-bit convolution adds the bias in float32 and rounds once (values
// from torch 1.13; rounding the product first gave -0.248046875).
TEST(ConvGeometry, SixteenBitConvolutionRoundsOnceWithItsBias) {
  const Tensor x = tensor({-0.79296875f, -0.0208740234375f, -0.71875f, 0.51953125f})
                       .view({1, 1, 2, 2})
                       .to(DType::bfloat16);
  const Tensor w = tensor({-1.3125f, 0.1923828125f, 0.54296875f, -2.21875f})
                       .view({1, 1, 2, 2})
                       .to(DType::bfloat16);
  const Tensor b = tensor({0.259765625f}).to(DType::bfloat16);
  const Tensor y = conv2d(x, w, b);
  EXPECT_EQ(y.dtype(), DType::bfloat16);
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{-0.24609375f}));
  // Gradients come back in the input's dtype.
  const Tensor xg = x.clone().requires_grad_(), wg = w.clone().requires_grad_();
  conv2d(xg, wg, b).sum().backward();
  EXPECT_EQ(xg.grad().dtype(), DType::bfloat16);
  EXPECT_EQ(wg.grad().dtype(), DType::bfloat16);
  EXPECT_EQ(wg.grad().to_vector<float>(), x.to_vector<float>());
}
