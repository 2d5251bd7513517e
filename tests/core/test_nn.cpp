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
