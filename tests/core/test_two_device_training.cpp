// SPDX-License-Identifier: Apache-2.0
// Training across two devices (run with HETERO_CPU_DEVICES=2): the companion article's
// criterion.cuda() case, gradients moved with module.to, and model parallelism (the
// article's VeryBigModule, scaled down): two halves on two devices, activations moved
// explicitly, gradients flowing back across the boundary.
#include <gtest/gtest.h>

#include <hetero/hetero.hpp>

namespace {
using namespace hetero;

TEST(Losses, CriterionWeightMovesWithTo) {
  // The companion article: criterion.cuda() moves the class weights with the loss.
  const Device d("cpu:1");
  nn::CrossEntropyLoss criterion(tensor({1.0, 2.0, 3.0}));
  const Tensor logits = tensor({{1.0, 2.0, 3.0}, {1.0, 1.0, 1.0}}).to(d);
  const Tensor target = tensor({2, 0}).to(d);
  EXPECT_THROW(criterion(logits, target), DeviceMismatchError);  // weight still on cpu
  criterion.to(d);
  EXPECT_EQ(criterion.class_weight().device(), d);
  EXPECT_EQ(criterion.named_buffers().at("weight").device(), d);
  const Tensor loss = criterion(logits, target);
  EXPECT_EQ(loss.device(), d);
}

TEST(Layers, ModuleToMovesGradients) {
  const Device d("cpu:1");
  nn::Sequential net{nn::Linear(2, 1)};
  nn::MSELoss()(net(ones({3, 2})), zeros({3, 1})).backward();
  net.to(d);
  for (const auto& p : net.parameters()) {
    EXPECT_EQ(p.device(), d);
    EXPECT_EQ(p.grad().device(), d);
    EXPECT_TRUE(p.requires_grad());
  }
}

TEST(TransferStats, CrossDeviceCopiesAreCountedOnTheDestination) {
  const Device d0("cpu:0"), d1("cpu:1");
  const Tensor x = ones({4, 4}, d0);
  reset_transfer_stats();
  const Tensor y = x.to(d1);
  EXPECT_EQ(transfer_stats(d1).device_to_device, 1u);
  EXPECT_EQ(transfer_stats(d1).device_to_device_bytes, 64u);
  EXPECT_EQ(transfer_stats(d0).device_to_device, 0u);
  EXPECT_EQ(transfer_stats(d0).host_syncs, 0u);  // ordered by an event, not a host wait
  EXPECT_EQ(y.sum().item<float>(), 16.0f);
  EXPECT_EQ(transfer_stats(d1).host_syncs, 1u);
}

// The article's VeryBigModule, scaled down: the first half on cpu:0, the second on
// cpu:1, the activation moved explicitly between them.
class SplitMlp : public nn::Module {
 public:
  SplitMlp(Device d0, Device d1) : d0_(d0), d1_(d1) {
    front_ = std::make_shared<nn::Sequential>(nn::Linear(6, 12), nn::ReLU());
    back_ = std::make_shared<nn::Linear>(12, 3);
    register_module("front", front_);
    register_module("back", back_);
    front_->to(d0);
    back_->to(d1);
  }
  Tensor forward(const Tensor& x) override { return (*back_)((*front_)(x.to(d0_)).to(d1_)); }

 private:
  Device d0_, d1_;
  std::shared_ptr<nn::Sequential> front_;
  std::shared_ptr<nn::Linear> back_;
};

TEST(ModelParallel, GradientsCrossTheDeviceBoundaryAndMatchOneDevice) {
  manual_seed(11);
  SplitMlp split(Device("cpu:0"), Device("cpu:1"));
  SplitMlp single(Device("cpu:0"), Device("cpu:0"));
  // Same initial values in both models (under NoGradGuard: copy_ into a leaf that requires
  // grad raises otherwise, as torch's).
  {
    NoGradGuard no_grad;
    for (const auto& [name, t] : split.named_parameters()) {
      Tensor dst = single.named_parameters().at(name);
      dst.copy_(t);
    }
  }
  const Tensor x = randn({16, 6});
  const Tensor y = tensor({0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0});
  nn::CrossEntropyLoss criterion;
  const Tensor loss_split = criterion(split(x), y.to(Device("cpu:1")));
  EXPECT_EQ(loss_split.device(), Device("cpu:1"));
  loss_split.backward();
  criterion(single(x), y).backward();

  for (const auto& [name, p] : split.named_parameters()) {
    const Device expected = name.rfind("front", 0) == 0 ? Device("cpu:0") : Device("cpu:1");
    EXPECT_EQ(p.device(), expected) << name;
    ASSERT_TRUE(p.grad().defined()) << name;
    EXPECT_EQ(p.grad().device(), expected) << name;  // the gradient lives with the parameter
    const auto a = p.grad().to_vector<float>();
    const auto b = single.named_parameters().at(name).grad().to_vector<float>();
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
      EXPECT_FLOAT_EQ(a[i], b[i]) << name << "[" << i << "]";
  }

  // A few SGD steps lower the loss.
  optim::SGD sgd(split.parameters(), {.lr = 0.2, .momentum = 0.9});
  float first = 0, last = 0;
  for (int step = 0; step < 20; ++step) {
    sgd.zero_grad();
    const Tensor loss = criterion(split(x), y.to(Device("cpu:1")));
    loss.backward();
    sgd.step();
    (step == 0 ? first : last) = loss.item<float>();
  }
  EXPECT_LT(last, 0.5f * first);
  EXPECT_EQ(split.named_parameters().at("front.0.weight").device(), Device("cpu:0"));
}

}  // namespace
