// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

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
