// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cmath>

#include <hetero/hetero.hpp>

using namespace hetero;

TEST(Ops, BroadcastingArithmetic) {
  Tensor a = tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  Tensor row = tensor({10.0, 20.0, 30.0});
  Tensor col = tensor({100.0, 200.0}).view({2, 1});
  EXPECT_EQ((a + row).to_vector<float>(), (std::vector<float>{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ((a + col).to_vector<float>(), (std::vector<float>{101, 102, 103, 204, 205, 206}));
  EXPECT_EQ((row + col).shape(), (Shape{2, 3}));
  EXPECT_EQ((a - 1).to_vector<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ((2 * a).to_vector<float>(), (std::vector<float>{2, 4, 6, 8, 10, 12}));
  EXPECT_EQ((1 / tensor({2.0, 4.0})).to_vector<float>(), (std::vector<float>{0.5f, 0.25f}));
  EXPECT_EQ((-a).to_vector<float>()[0], -1.0f);
  EXPECT_EQ(maximum(a, row / 10 * 3).to_vector<float>(), (std::vector<float>{3, 6, 9, 4, 6, 9}));
}

TEST(Ops, NonBroadcastableShapesNameBoth) {
  try {
    ones({2, 3}) + ones({4});
    FAIL();
  } catch (const ShapeError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("[2, 3]"), std::string::npos) << m;
    EXPECT_NE(m.find("[4]"), std::string::npos) << m;
    EXPECT_NE(m.find("add"), std::string::npos) << m;
  }
}

TEST(Ops, DtypePromotionAsTorch) {
  EXPECT_EQ((tensor({1, 2}) + tensor({0.5, 0.5})).dtype(), DType::float32);
  EXPECT_EQ((tensor({1, 2}) + 1).dtype(), DType::int64);
  EXPECT_EQ((tensor({1, 2}) + 1.5).dtype(), DType::float32);
  EXPECT_EQ((tensor({1, 2}) / tensor({2, 2})).to_vector<float>(), (std::vector<float>{0.5f, 1.0f}));
  EXPECT_EQ((ones({1}, DType::float64) * ones({1})).dtype(), DType::float64);
  EXPECT_EQ((tensor({5, -7}) * tensor({3, 3})).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{15, -21}));
}

TEST(Ops, UnaryFunctions) {
  Tensor x = tensor({-1.0, 0.0, 2.0});
  EXPECT_EQ(relu(x).to_vector<float>(), (std::vector<float>{0, 0, 2}));
  EXPECT_EQ(abs(x).to_vector<float>(), (std::vector<float>{1, 0, 2}));
  EXPECT_NEAR(exp(x).to_vector<float>()[2], std::exp(2.0), 1e-5);
  EXPECT_NEAR(sigmoid(x).to_vector<float>()[0], 1 / (1 + std::exp(1.0)), 1e-6);
  EXPECT_NEAR(tanh(x).to_vector<float>()[0], std::tanh(-1.0), 1e-6);
  EXPECT_NEAR(sqrt(tensor({4, 9})).to_vector<float>()[1], 3.0, 1e-6);
  EXPECT_EQ(sqrt(tensor({4, 9})).dtype(), DType::float32);
  EXPECT_NEAR(log(tensor({1.0, std::exp(1.0)})).to_vector<float>()[1], 1.0, 1e-6);
}

TEST(Ops, Reductions) {
  Tensor a = tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  EXPECT_EQ(a.sum().item<float>(), 21.0f);
  EXPECT_EQ(a.sum().dim(), 0);
  EXPECT_EQ(a.sum(0).to_vector<float>(), (std::vector<float>{5, 7, 9}));
  EXPECT_EQ(a.sum(1, true).shape(), (Shape{2, 1}));
  EXPECT_EQ(a.sum(-1).to_vector<float>(), (std::vector<float>{6, 15}));
  EXPECT_EQ(a.mean().item<float>(), 3.5f);
  EXPECT_EQ(a.max().item<float>(), 6.0f);
  EXPECT_EQ(a.min(1).to_vector<float>(), (std::vector<float>{1, 4}));
  EXPECT_NEAR(a.norm().item<float>(), std::sqrt(91.0), 1e-5);
  EXPECT_EQ(a.argmax().item<std::int64_t>(), 5);
  EXPECT_EQ(a.argmax(0).to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 1, 1}));
  EXPECT_EQ(tensor({1, 2, 3}).sum().dtype(), DType::int64);
  EXPECT_THROW(tensor({1, 2}).mean(), DTypeError);
  EXPECT_THROW(zeros({0}).max(), ShapeError);
  EXPECT_EQ(zeros({0}).sum().item<float>(), 0.0f);
  EXPECT_THROW(a.sum(2), IndexError);
}

TEST(Ops, SoftmaxAndLogSoftmax) {
  Tensor x = tensor({{1.0, 2.0, 3.0}, {1000.0, 1000.0, 1000.0}});
  Tensor s = softmax(x, 1);
  const auto v = s.to_vector<float>();
  const double e1 = std::exp(1.0), e2 = std::exp(2.0), e3 = std::exp(3.0);
  EXPECT_NEAR(v[0], e1 / (e1 + e2 + e3), 1e-6);
  EXPECT_NEAR(v[4], 1.0 / 3, 1e-6);  // stable for large inputs
  EXPECT_NEAR(log_softmax(x, 1).to_vector<float>()[2], std::log(e3 / (e1 + e2 + e3)), 1e-5);
}

TEST(Ops, CastRoundsTowardsZeroAndToBool) {
  Tensor x = tensor({-1.7, 0.0, 2.9});
  EXPECT_EQ(x.to(DType::int32).to_vector<int>(), (std::vector<int>{-1, 0, 2}));
  EXPECT_EQ(x.to(DType::bool_).to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{1, 0, 1}));
}
