// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <hetero/hetero.hpp>

using namespace hetero;

TEST(NN, SequentialNamesParametersAsPyTorch) {
  nn::Sequential net{nn::Linear(3, 4), nn::ReLU(), nn::Linear(4, 1, false)};
  std::vector<std::string> names;
  for (const auto& [name, t] : net.named_parameters()) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"0.weight", "0.bias", "2.weight"}));
  EXPECT_EQ(net.named_parameters().at("0.weight").shape(), (Shape{4, 3}));
  EXPECT_EQ(net.size(), 3u);
  EXPECT_THROW(net[3], IndexError);
  EXPECT_THROW(net[1].weight(), IndexError);
  EXPECT_THROW(net.named_parameters().at("9.weight"), IndexError);
  Tensor y = net(ones({2, 3}));
  EXPECT_EQ(y.shape(), (Shape{2, 1}));
}

TEST(NN, ToReturnsTheModuleAndKeepsHandles) {
  nn::Sequential net{nn::Linear(3, 1)};
  Tensor w = net[0].weight();
  nn::Module& same = net.to(try_gpu());
  EXPECT_EQ(&same, &net);
  EXPECT_TRUE(w.is_same(net[0].weight()));
  EXPECT_EQ(net[0].weight().device(), try_gpu());
  EXPECT_EQ(net(ones({2, 3}, try_gpu())).device(), try_gpu());
}

TEST(NN, ReluLayer) {
  nn::ReLU r;
  EXPECT_EQ(r(tensor({-1.0, 1.0})).to_vector<float>(), (std::vector<float>{0, 1}));
}

// torch.nn.init.constant_ / zeros_ / ones_ are a no-grad fill_ of any dtype (hetero refused
// integer and bool tensors with "expected a floating tensor"); torch 1.13's values.
TEST(Init, ConstantFillsAnyDtypeAsTorch) {
  Tensor i64 = empty({3}, DType::int64), flags = empty({2}, DType::bool_);
  Tensor i32 = empty({2}, DType::int32), i8 = empty({2}, DType::int8);
  EXPECT_EQ(nn::init::constant_(i64, 2.5).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{2, 2, 2}));
  EXPECT_EQ(nn::init::constant_(i64, -2.7).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{-2, -2, -2}));
  EXPECT_EQ(nn::init::constant_(flags, 0.3).to_vector<bool>(), (std::vector<bool>{true, true}));
  EXPECT_EQ(nn::init::zeros_(i32).to_vector<std::int32_t>(), (std::vector<std::int32_t>{0, 0}));
  EXPECT_EQ(nn::init::ones_(flags).to_vector<bool>(), (std::vector<bool>{true, true}));
  EXPECT_THROW(nn::init::constant_(i8, 1e10), DTypeError);  // "cannot be converted ... overflow"
  // A leaf that requires grad is filled without recording (torch's no_grad).
  Tensor w = ones({2}).requires_grad_();
  nn::init::constant_(w, 3.0);
  EXPECT_EQ(w.to_vector<float>(), (std::vector<float>{3, 3}));
  EXPECT_TRUE(w.requires_grad());
  EXPECT_TRUE(w.grad_fn_name().empty());
  // The random initialisers stay floating only, as torch's kernels.
  EXPECT_THROW(nn::init::uniform_(i64), DTypeError);
  EXPECT_THROW(nn::init::normal_(i64), DTypeError);
}
