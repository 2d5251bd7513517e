// SPDX-License-Identifier: Apache-2.0
// Tensors without elements (Note [Empty tensors]): the core handles them before dispatch,
// on every device, without asking a backend for memory or work.
#include <gtest/gtest.h>

#include <cmath>

#include <hetero/hetero.hpp>

using namespace hetero;

namespace {

std::vector<Device> every_device() { return all_devices(); }

}  // namespace

TEST(EmptyTensors, AllocateNoDeviceMemory) {
  for (const Device& d : every_device()) {
    synchronize(d);
    const auto before = memory_stats(d);
    Tensor a = zeros({0}, d), b = empty({3, 0, 2}, TensorOptions(d).dtype(DType::float64));
    Tensor c = ones({0, 5}, d).t().contiguous();
    const auto after = memory_stats(d);
    EXPECT_EQ(after.allocated, before.allocated) << d;
    EXPECT_EQ(after.allocation_count + after.pool_hits, before.allocation_count + before.pool_hits)
        << d;
    EXPECT_EQ(b.shape(), (Shape{3, 0, 2}));
    EXPECT_EQ(c.shape(), (Shape{5, 0}));
  }
}

TEST(EmptyTensors, OpsCopiesAndMovesKeepShapes) {
  for (const Device& d : every_device()) {
    SCOPED_TRACE(testing::Message() << d);
    Tensor x = zeros({2, 0, 3}, d);
    EXPECT_EQ((x + 1.0).shape(), x.shape());
    EXPECT_EQ(exp(x).shape(), x.shape());
    EXPECT_EQ((x * ones({1, 1, 3}, d)).shape(), x.shape());
    EXPECT_EQ(x.clone().shape(), x.shape());
    EXPECT_EQ(x.to(DType::int32).dtype(), DType::int32);
    EXPECT_EQ(x.cpu().shape(), x.shape());
    EXPECT_EQ(x.to(d).to_vector<float>(), std::vector<float>{});
    Tensor y = zeros({2, 0, 3}, d);
    y.copy_(x.transpose(0, 1).transpose(0, 1));
    EXPECT_EQ(rand({0, 4}, d).shape(), (Shape{0, 4}));
    if (d.is_cpu())
      EXPECT_EQ(x.host_data_ptr(), nullptr);
    else
      EXPECT_THROW(x.host_data_ptr(), InvalidDeviceError);
  }
}

TEST(EmptyTensors, ReductionsOfNothingGiveTheIdentityOrThrow) {
  for (const Device& d : every_device()) {
    SCOPED_TRACE(testing::Message() << d);
    const Tensor x = zeros({0, 3}, d);
    EXPECT_EQ(x.sum().item<double>(), 0.0);
    EXPECT_EQ(x.norm().item<double>(), 0.0);
    EXPECT_TRUE(std::isnan(x.mean().item<double>()));
    EXPECT_EQ(x.sum(0).to_vector<float>(), std::vector<float>(3, 0.0f));
    EXPECT_EQ(x.sum(1).shape(), (Shape{0}));
    const auto means = x.mean(0).to_vector<float>();
    ASSERT_EQ(means.size(), 3u);
    for (float m : means) EXPECT_TRUE(std::isnan(m));
    EXPECT_EQ(tensor({1, 2}, d).narrow(0, 0, 0).sum().item<std::int64_t>(), 0);
    EXPECT_THROW(x.max(), ShapeError);
    EXPECT_THROW(x.argmax(0), ShapeError);
  }
}

TEST(EmptyTensors, MatmulWithAnEmptyInnerDimensionIsZeros) {
  for (const Device& d : every_device())
    for (DType t : {DType::float32, DType::float64}) {
      SCOPED_TRACE(testing::Message() << d << " " << t);
      const TensorOptions o = TensorOptions(d).dtype(t);
      // k == 0: every element is an empty sum.
      EXPECT_EQ(matmul(ones({3, 0}, o), ones({0, 4}, o)).to_vector<double>(),
                std::vector<double>(12, 0.0));
      EXPECT_EQ(matmul(ones({2, 3, 0}, o), ones({0, 2}, o)).to_vector<double>(),
                std::vector<double>(12, 0.0));
      // m == 0 or n == 0: an empty result.
      EXPECT_EQ(matmul(ones({0, 3}, o), ones({3, 4}, o)).shape(), (Shape{0, 4}));
      EXPECT_EQ(matmul(ones({2, 3}, o), ones({3, 0}, o)).shape(), (Shape{2, 0}));
      // Its gradient: zero-sized gradients for the operands.
      Tensor a = ones({3, 0}, o).requires_grad_(), b = ones({0, 4}, o).requires_grad_();
      matmul(a, b).sum().backward();
      EXPECT_EQ(a.grad().shape(), (Shape{3, 0}));
      EXPECT_EQ(b.grad().shape(), (Shape{0, 4}));
    }
}

TEST(EmptyTensors, PinnedEmptyTensor) {
  // Pinned memory needs a backend that offers it (cuda on a GPU machine; test_pinned loads
  // the pinnedhost test plugin for it everywhere). Without one, pinning is refused, empty
  // or not; with one, any error fails.
  bool offered = false;
  for (const Device& d : every_device()) offered |= device_info(d).capabilities.pinned_memory;
  if (!offered) {
    EXPECT_THROW(zeros({0}).pin_memory(), DeviceUnavailableError);
    EXPECT_THROW(empty({0}, TensorOptions().pinned_memory(true)), DeviceUnavailableError);
    return;
  }
  Tensor p = zeros({0}).pin_memory();
  EXPECT_TRUE(p.is_pinned());
  EXPECT_EQ(p.numel(), 0);
}
