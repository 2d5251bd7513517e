// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>

#include <hetero/hetero.hpp>

using namespace hetero;

namespace {
std::string str(const Tensor& t) {
  std::ostringstream os;
  os << t;
  return os.str();
}
}  // namespace

TEST(Print, FollowsPyTorchLayout) {
  EXPECT_EQ(str(ones({2, 3})), "tensor([[1., 1., 1.],\n        [1., 1., 1.]])");
  EXPECT_EQ(str(tensor({1, 2, 3})), "tensor([1, 2, 3])");
  EXPECT_EQ(str(tensor({0.5, -1.25})), "tensor([ 0.5000, -1.2500])");
  EXPECT_EQ(str(ones({})), "tensor(1.)");
  EXPECT_EQ(str(zeros({0})), "tensor([])");
  EXPECT_EQ(str(zeros({0, 3})), "tensor([], size=(0, 3))");
  EXPECT_EQ(str(ones({2}, DType::float64)), "tensor([1., 1.], dtype=float64)");
  EXPECT_EQ(str(ones({2}, DType::int32)), "tensor([1, 1], dtype=int32)");
  EXPECT_EQ(str(ones({1, 2, 2})), "tensor([[[1., 1.],\n         [1., 1.]]])");
  EXPECT_EQ(str(tensor({1e-5, 1.0})), "tensor([1.0000e-05, 1.0000e+00])");
}

TEST(Print, SummarisesLargeTensors) {
  const std::string s = str(arange(2000));
  EXPECT_EQ(s, "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])");
}

// Each expected string is what torch 1.13 prints for the same tensor (str(t), with "torch."
// dropped from the dtype): the sci-notation rule of integer-valued floats, widths from the
// nonzero finite values, exact int64, the dtype of an empty tensor, rows wrapped at 80
// columns, summarised rows and blocks, and a suffix moved to its own line.
TEST(Print, MatchesTorch) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(str(tensor({1.0f, 2000.0f})), "tensor([1.0000e+00, 2.0000e+03])");
  EXPECT_EQ(str(tensor({1.0f, nan, inf})), "tensor([1., nan, inf])");
  EXPECT_EQ(str(tensor({0.0f, -0.0f})), "tensor([0., -0.])");
  EXPECT_EQ(str(tensor({1.5f, nan, -inf})), "tensor([1.5000,    nan,   -inf])");
  EXPECT_EQ(str(tensor({-1e-5f, 1e5f})), "tensor([-1.0000e-05,  1.0000e+05])");
  EXPECT_EQ(str(tensor({1e9f, 1.0f})), "tensor([1.0000e+09, 1.0000e+00])");
  EXPECT_EQ(str(tensor(std::initializer_list<std::int64_t>{std::numeric_limits<std::int64_t>::max(),
                                                           std::numeric_limits<std::int64_t>::min(),
                                                           (std::int64_t{1} << 53) + 1})),
            "tensor([ 9223372036854775807, -9223372036854775808,     9007199254740993])");
  EXPECT_EQ(str(zeros({0}, DType::int64)), "tensor([], dtype=int64)");
  EXPECT_EQ(str(zeros({0}, DType::bool_)), "tensor([], dtype=bool)");
  EXPECT_EQ(str(zeros({0, 3}, DType::int64)), "tensor([], size=(0, 3), dtype=int64)");
  EXPECT_EQ(str(zeros({2, 0}, DType::float64)), "tensor([], size=(2, 0), dtype=float64)");
  EXPECT_EQ(str(arange(30.0, DType::float32)),
            "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n"
            "        14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25., 26., 27.,\n"
            "        28., 29.])");
  EXPECT_EQ(str(arange(30)),
            "tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n"
            "        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29])");
  EXPECT_EQ(str(arange(12.0, DType::float64) + 0.5),
            "tensor([ 0.5000,  1.5000,  2.5000,  3.5000,  4.5000,  5.5000,  6.5000,  7.5000,\n"
            "         8.5000,  9.5000, 10.5000, 11.5000], dtype=float64)");
  EXPECT_EQ(str(arange(8.0, DType::float64) + 0.5),
            "tensor([0.5000, 1.5000, 2.5000, 3.5000, 4.5000, 5.5000, 6.5000, 7.5000],\n"
            "       dtype=float64)");
  EXPECT_EQ(str(arange(2000.0, DType::float32).reshape({2, 1000})),
            "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 9.9700e+02, 9.9800e+02,\n"
            "         9.9900e+02],\n"
            "        [1.0000e+03, 1.0010e+03, 1.0020e+03,  ..., 1.9970e+03, 1.9980e+03,\n"
            "         1.9990e+03]])");
  EXPECT_EQ(str(cat({zeros({1500}), tensor({1e-6f})})),
            "tensor([0.0000e+00, 0.0000e+00, 0.0000e+00,  ..., 0.0000e+00, 0.0000e+00,\n"
            "        1.0000e-06])");
  EXPECT_EQ(str(arange(1024.0, DType::float32).reshape({8, 2, 64}).to(DType::float16)),
            "tensor([[[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 6.1000e+01,\n"
            "          6.2000e+01, 6.3000e+01],\n"
            "         [6.4000e+01, 6.5000e+01, 6.6000e+01,  ..., 1.2500e+02,\n"
            "          1.2600e+02, 1.2700e+02]],\n"
            "\n"
            "        [[1.2800e+02, 1.2900e+02, 1.3000e+02,  ..., 1.8900e+02,\n"
            "          1.9000e+02, 1.9100e+02],\n"
            "         [1.9200e+02, 1.9300e+02, 1.9400e+02,  ..., 2.5300e+02,\n"
            "          2.5400e+02, 2.5500e+02]],\n"
            "\n"
            "        [[2.5600e+02, 2.5700e+02, 2.5800e+02,  ..., 3.1700e+02,\n"
            "          3.1800e+02, 3.1900e+02],\n"
            "         [3.2000e+02, 3.2100e+02, 3.2200e+02,  ..., 3.8100e+02,\n"
            "          3.8200e+02, 3.8300e+02]],\n"
            "\n"
            "        ...,\n"
            "\n"
            "        [[6.4000e+02, 6.4100e+02, 6.4200e+02,  ..., 7.0100e+02,\n"
            "          7.0200e+02, 7.0300e+02],\n"
            "         [7.0400e+02, 7.0500e+02, 7.0600e+02,  ..., 7.6500e+02,\n"
            "          7.6600e+02, 7.6700e+02]],\n"
            "\n"
            "        [[7.6800e+02, 7.6900e+02, 7.7000e+02,  ..., 8.2900e+02,\n"
            "          8.3000e+02, 8.3100e+02],\n"
            "         [8.3200e+02, 8.3300e+02, 8.3400e+02,  ..., 8.9300e+02,\n"
            "          8.9400e+02, 8.9500e+02]],\n"
            "\n"
            "        [[8.9600e+02, 8.9700e+02, 8.9800e+02,  ..., 9.5700e+02,\n"
            "          9.5800e+02, 9.5900e+02],\n"
            "         [9.6000e+02, 9.6100e+02, 9.6200e+02,  ..., 1.0210e+03,\n"
            "          1.0220e+03, 1.0230e+03]]], dtype=float16)");
  EXPECT_EQ(str(ge(arange(30), 15)),
            "tensor([False, False, False, False, False, False, False, False, False, False,\n"
            "        False, False, False, False, False,  True,  True,  True,  True,  True,\n"
            "         True,  True,  True,  True,  True,  True,  True,  True,  True,  True])");
  EXPECT_EQ(str(arange(1001).reshape({7, 143})),
            "tensor([[   0,    1,    2,  ...,  140,  141,  142],\n"
            "        [ 143,  144,  145,  ...,  283,  284,  285],\n"
            "        [ 286,  287,  288,  ...,  426,  427,  428],\n"
            "        ...,\n"
            "        [ 572,  573,  574,  ...,  712,  713,  714],\n"
            "        [ 715,  716,  717,  ...,  855,  856,  857],\n"
            "        [ 858,  859,  860,  ...,  998,  999, 1000]])");
}

// A NaN with its sign bit set prints as "nan" in every mode (printf writes "-nan").
TEST(Print, NegativeNaNIsNaN) {
  const float nan = -std::numeric_limits<float>::quiet_NaN();
  ASSERT_TRUE(std::signbit(nan));
  EXPECT_EQ(str(tensor({nan, 1e9f})), "tensor([       nan, 1.0000e+09])");
  EXPECT_EQ(str(tensor({nan, 1.0f})), "tensor([nan, 1.])");
  EXPECT_EQ(str(tensor({nan, 0.5f})), "tensor([   nan, 0.5000])");
  EXPECT_EQ(str(full({}, nan)), "tensor(nan)");
}

TEST(Print, MarksGradients) {
  Tensor x = tensor({1.0f, 2.0f});
  x.requires_grad_();
  EXPECT_EQ(str(x), "tensor([1., 2.], requires_grad=True)");
  const Tensor y = x * 2.0;
  EXPECT_EQ(str(y), "tensor([2., 4.], grad_fn=<" + y.grad_fn_name() + ">)");
  EXPECT_EQ(str(y.detach()), "tensor([2., 4.])");
}
