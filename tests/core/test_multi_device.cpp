// SPDX-License-Identifier: Apache-2.0
// Cross-device behaviour on two virtual CPU devices (HETERO_CPU_DEVICES=2, set by CTest).
#include <gtest/gtest.h>

#include <hetero/hetero.hpp>

#include "cpu_only.hpp"

using namespace hetero;

namespace {
const Device d0("cpu:0"), d1("cpu:1");
}

TEST(MultiDevice, TwoVirtualDevicesExist) {
  test::CpuOnlyScope cpu_only;  // try_gpu() falls back to cpu:0, on machines with GPUs too
  ASSERT_EQ(device_count("cpu"), 2) << "run with HETERO_CPU_DEVICES=2";
  EXPECT_EQ(num_gpus(), 0);
  EXPECT_EQ(try_gpu(), Device("cpu"));
  EXPECT_THROW(ones({1}, Device("cpu:2")), InvalidDeviceError);
}

TEST(MultiDevice, OpsAcrossDevicesThrowNamingBothAndTheOp) {
  Tensor X = ones({2, 3}, d0);
  Tensor Y = rand({2, 3}, d1);
  EXPECT_EQ(Y.device(), d1);
  for (auto op : {+[](const Tensor&a, const Tensor&b) { return a + b; },
                  +[](const Tensor&a, const Tensor&b) { return matmul(a, b.t()); }}) {
    try {
      op(X, Y);
      FAIL();
    } catch (const DeviceMismatchError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("cpu:0 and cpu:1"), std::string::npos) << m;
    }
  }
  try {
    X* Y;
  } catch (const DeviceMismatchError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("mul:", 0), 0u) << e.what();
  }
}

// A normalisation layer on another device than its input raises DeviceMismatchError naming
// the layer before it computes or updates anything: BatchNorm counted the batch in
// num_batches_tracked, then failed on its running mean.
TEST(MultiDevice, ANormLayerOnAnotherDeviceRaisesBeforeUpdatingItsStatistics) {
  const Tensor x = randn({4, 3}, d0);
  nn::BatchNorm1d bn(3);
  bn.to(d1);
  EXPECT_THROW(bn.forward(x), DeviceMismatchError);
  EXPECT_EQ(bn.buffer("num_batches_tracked").item<std::int64_t>(), 0);
  nn::BatchNorm1d stats_elsewhere(3);  // only its running mean moved
  stats_elsewhere.buffer("running_mean").set_data(stats_elsewhere.buffer("running_mean").to(d1));
  try {
    stats_elsewhere.forward(x);
    FAIL() << "expected DeviceMismatchError";
  } catch (const DeviceMismatchError& e) {
    EXPECT_NE(std::string(e.what()).find("BatchNorm1d: running_mean is on cpu:1, the input on cpu"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(stats_elsewhere.buffer("num_batches_tracked").item<std::int64_t>(), 0);
  EXPECT_EQ(stats_elsewhere.buffer("running_var").to_vector<float>(),
            (std::vector<float>{1, 1, 1}));
  nn::LayerNorm ln({3});
  ln.to(d1);
  EXPECT_THROW(ln.forward(x), DeviceMismatchError);
  nn::GroupNorm gn(1, 3);
  gn.to(d1);
  EXPECT_THROW(gn.forward(x.unsqueeze(2)), DeviceMismatchError);
  bn.to(d0);  // moved back, it trains
  EXPECT_NO_THROW(bn.forward(x));
  EXPECT_EQ(bn.buffer("num_batches_tracked").item<std::int64_t>(), 1);
}

TEST(MultiDevice, ToCopiesBetweenDevicesAndLeavesTheOriginal) {
  Tensor X = arange(6).to(DType::float32).view({2, 3});
  const auto before1 = memory_stats(d1).allocated;
  Tensor Z = X.to(d1);
  EXPECT_EQ(Z.device(), d1);
  EXPECT_EQ(X.device(), d0);
  EXPECT_FALSE(Z.shares_storage(X));
  EXPECT_EQ(Z.to_vector<float>(), X.to_vector<float>());
  EXPECT_GE(memory_stats(d1).allocated, before1 + 24);
  EXPECT_TRUE(Z.to(d1).is_same(Z));
  // Strided source: a transposed view is copied in its logical order.
  EXPECT_EQ(X.t().to(d1).to_vector<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  Tensor Y = ones({2, 3}, d1);
  EXPECT_EQ((Y + Z).device(), d1);
  EXPECT_EQ((Y + Z).to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  Tensor back = (Y + Z).to(d0);
  EXPECT_EQ(back.device(), d0);
  Tensor into = zeros({2, 3}, d0);
  into.copy_(Z);  // cross-device copy_ into an existing tensor
  EXPECT_EQ(into.to_vector<float>(), X.to_vector<float>());
}

TEST(MultiDevice, NetToMovesEveryParameterInPlace) {
  nn::Sequential net{nn::Linear(3, 4), nn::ReLU(), nn::Linear(4, 1)};
  const auto params = net.parameters();  // handles held elsewhere (as an optimiser would)
  net.to(d1);
  for (const auto& [name, p] : net.named_parameters()) EXPECT_EQ(p.device(), d1) << name;
  for (const auto& p : params) EXPECT_EQ(p.device(), d1);
  EXPECT_EQ(net[0].weight().device(), d1);
  Tensor X1 = ones({2, 3}, d1);
  Tensor y = net(X1);
  EXPECT_EQ(y.device(), d1);
  EXPECT_EQ(y.shape(), (Shape{2, 1}));
  // Forward with the input elsewhere is a DeviceMismatchError, not a silent copy.
  EXPECT_THROW(net(ones({2, 3}, d0)), DeviceMismatchError);
  // Same result on either device.
  const auto on1 = y.to_vector<float>();
  net.to(d0);
  EXPECT_EQ(net(ones({2, 3}, d0)).to_vector<float>(), on1);
}

TEST(MultiDevice, DevicesHaveTheirOwnAllocations) {
  const auto a0 = memory_stats(d0).allocated, a1 = memory_stats(d1).allocated;
  Tensor big = empty({1 << 20}, d1);
  EXPECT_EQ(memory_stats(d0).allocated, a0);
  EXPECT_EQ(memory_stats(d1).allocated, a1 + (4u << 20));
}

// copy_ from another device into a view records CopySlices (Note [View bases]): the
// source's gradient goes back to its own device, in its dtype (torch 1.13's values with
// cuda:0 as the other device).
TEST(MultiDevice, ACopyIntoAViewSendsTheSourcesGradientToItsDevice) {
  Tensor z = from_vector<double>({5, 6}, {2}).to(d1).requires_grad_();
  Tensor base = zeros({4}, d0);
  base.narrow(0, 1, 2).copy_(z);
  (base * base).sum().backward();
  ASSERT_TRUE(z.grad().defined());
  EXPECT_EQ(z.grad().device(), d1);
  EXPECT_EQ(z.grad().dtype(), DType::float64);
  EXPECT_EQ(z.grad().to_vector<double>(), (std::vector<double>{10, 12}));
}

// In-place arithmetic keeps the same-device rule (torch: "Expected all tensors to be on the
// same device"): nothing is copied implicitly, and nothing is written.
TEST(MultiDevice, InPlaceOpsRefuseAnOperandOnAnotherDevice) {
  Tensor x = ones({3}, d0);
  const Tensor y = ones({3}, d1);
  EXPECT_THROW(x.add_(y), DeviceMismatchError);
  EXPECT_THROW(x *= y, DeviceMismatchError);
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{1, 1, 1}));
  // On the second device itself, with autograd: the gradient stays there.
  Tensor w = from_vector<double>({1, 2, 3}, {3}).to(d1).requires_grad_();
  Tensor h = w * 2.0;
  h.mul_(w);  // 2 w^2
  h.sum().backward();
  EXPECT_EQ(w.grad().device(), d1);
  EXPECT_EQ(w.grad().to_vector<double>(), (std::vector<double>{4, 8, 12}));
}
