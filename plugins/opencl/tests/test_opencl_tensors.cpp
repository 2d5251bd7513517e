// SPDX-License-Identifier: Apache-2.0
// The opencl backend through hetero's public API: tensors on opencl:0, the copy ladder
// between cpu and opencl, the same-device rule, try_gpu's treatment of a CPU-kind OpenCL
// device, and results equal to the cpu backend's. Needs an OpenCL device (PoCL here);
// skips with the reason where none exists.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include <hetero/hetero.hpp>

using namespace hetero;

namespace {

class OpenClTensors : public ::testing::Test {
 protected:
  void SetUp() override {
    // Run with HETERO_PLUGIN_DISCOVERY=0: the installed cpu plugin and exactly the opencl
    // plugin of this build (an installed one of that name would otherwise win).
    load_plugin(default_plugin_dir() + "/libhetero-cpu.so");
    const BackendStatus s = load_plugin(HETERO_TEST_OPENCL_PLUGIN);
    ASSERT_TRUE(s.loaded) << s.reason;
    if (s.devices == 0) GTEST_SKIP() << "no OpenCL device: " << s.reason;
  }
  const Device cl{"opencl:0"};
};

void expect_near(const Tensor& a, const Tensor& b, double tol) {
  ASSERT_EQ(a.shape(), b.shape());
  const auto x = a.cpu().to(DType::float64).to_vector<double>();
  const auto y = b.cpu().to(DType::float64).to_vector<double>();
  for (std::size_t i = 0; i < x.size(); ++i)
    EXPECT_NEAR(x[i], y[i], tol * (1 + std::abs(y[i]))) << "at " << i;
}

}  // namespace

TEST_F(OpenClTensors, DeviceIsListedWithItsTrueKindAndIsNotAGpu) {
  const auto info = device_info(cl);
  EXPECT_FALSE(info.properties.name.empty());
  EXPECT_GT(info.properties.total_memory, 0u);
  bool listed = false;
  for (const auto& d : all_devices()) listed = listed || d == cl;
  EXPECT_TRUE(listed);
  if (info.properties.kind != DeviceKind::gpu) {
    // PoCL's device is a CPU device: try_gpu must not pick it (the chapter's fallback).
    EXPECT_NE(try_gpu().type(), "opencl");
  }
}

TEST_F(OpenClTensors, TensorsAreCreatedOnTheDeviceAndCopiedBothWays) {
  const Tensor x = ones({2, 3}, TensorOptions().device(cl));
  EXPECT_EQ(x.device(), cl);
  EXPECT_EQ(x.sum().item<float>(), 6.0f);
  const Tensor host = arange(12).to(DType::float32).reshape({3, 4});
  const Tensor on_cl = host.to(cl);
  EXPECT_EQ(on_cl.device(), cl);
  EXPECT_EQ(on_cl.cpu().to_vector<float>(), host.to_vector<float>());
  EXPECT_TRUE(on_cl.to(cl).is_same(on_cl));        // to() on the same device: no copy
  EXPECT_FALSE(on_cl.copy_to(cl).is_same(on_cl));  // copy_to(): always a copy
  // A transposed (strided) view goes through the ladder too.
  EXPECT_EQ(on_cl.t().cpu().to_vector<float>(), host.t().contiguous().to_vector<float>());
}

TEST_F(OpenClTensors, MixingDevicesIsRefused) {
  const Tensor a = ones({2}, TensorOptions().device(cl));
  const Tensor b = ones({2});
  EXPECT_THROW(a + b, DeviceMismatchError);
}

TEST_F(OpenClTensors, ResultsEqualTheCpuBackend) {
  manual_seed(7);
  const Tensor a = randn({33, 17});
  const Tensor b = randn({17, 9});
  const Tensor ca = a.to(cl);
  const Tensor cb = b.to(cl);
  manual_seed(7);
  expect_near(randn({33, 17}, TensorOptions().device(cl)), a, 1e-6);  // same stream of numbers
  expect_near(ca.matmul(cb), a.matmul(b), 1e-4);
  expect_near((ca * 2 + ca.exp()).relu(), (a * 2 + a.exp()).relu(), 1e-5);
  expect_near(ca.sum(0), a.sum(0), 1e-5);
  expect_near(ca.max(1), a.max(1), 0);
  EXPECT_EQ(ca.argmax(1).cpu().to_vector<std::int64_t>(), a.argmax(1).to_vector<std::int64_t>());
  expect_near(ca.to(DType::int32), a.to(DType::int32), 0);
}

// A float64 sum whose partial sums overflow where the exact sum does not is the exact sum,
// as on the cpu backend (docs/semantics.md row 47, reduce.cl): per output in one pass (rows
// of 64) and over a long tensor in two (chunks, whose partial holding the huge values
// overflowed); beside an infinity of one sign, that infinity.
TEST_F(OpenClTensors, Float64SumsWhosePartialSumsOverflowAreTheExactSums) {
  constexpr double kHuge = 1.35e308, kInf = std::numeric_limits<double>::infinity();
  std::vector<double> rows;
  for (int r = 0; r < 6; ++r)
    for (int k = 0; k < 64; ++k)
      rows.push_back(k == r || k == r + 4 ? -kHuge : k == r + 8 ? kHuge : 0.25 * k - 3);
  const Tensor x = from_vector(rows, {6, 64});
  std::vector<double> sums;
  try {
    sums = x.to(cl).sum(1).cpu().to_vector<double>();
  } catch (const NotImplementedError& e) {  // a device without cl_khr_fp64
    GTEST_SKIP() << "no float64 on this device: " << e.what();
  }
  const auto want = x.sum(1).to_vector<double>();
  for (std::size_t r = 0; r < want.size(); ++r) {
    ASSERT_TRUE(std::isfinite(want[r]));
    EXPECT_NEAR(sums[r], want[r], std::abs(want[r]) * 1e-14) << "row " << r;
  }
  EXPECT_NEAR(x.to(cl).mean(1).cpu().to_vector<double>()[2], want[2] / 64,
              std::abs(want[2]) / 64 * 1e-14);
  std::vector<double> flat(100000, 0.5);
  flat[0] = flat[1] = -kHuge;
  flat[2] = kHuge;
  const Tensor y = from_vector(flat, {100000});
  const double exact = -kHuge + 0.5 * 99997;
  EXPECT_NEAR(y.to(cl).sum().item<double>(), exact, kHuge * 1e-14);
  EXPECT_NEAR(y.to(cl).mean().item<double>(), exact / 100000, kHuge / 100000 * 1e-14);
  flat[50000] = kInf;
  EXPECT_EQ(from_vector(flat, {100000}).to(cl).sum().item<double>(), kInf);
  flat[60000] = -kInf;
  EXPECT_TRUE(std::isnan(from_vector(flat, {100000}).to(cl).sum().item<double>()));
}

TEST_F(OpenClTensors, ANetworkMovesToTheDevice) {
  manual_seed(1);
  nn::Sequential net{nn::Linear(3, 4), nn::ReLU(), nn::Linear(4, 1)};
  const Tensor x = rand({5, 3});
  const Tensor expected = net(x);
  net.to(cl);
  const Tensor y = net(x.to(cl));
  EXPECT_EQ(y.device(), cl);
  expect_near(y, expected, 1e-5);
}
