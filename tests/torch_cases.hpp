// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the tests against torch-computed cases share (run_torch_cases.sh: tests/torch_conv,
// tests/torch_optim): the cases file and device from the environment, and the comparison.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include <hetero/hetero.hpp>

namespace hetero::torch_cases {

/// The file HETERO_TORCH_CASES names, loaded on HETERO_TEST_DEVICE (default cpu): its
/// tensors and its metadata (one JSON object per case). std::runtime_error when unset.
struct Cases {
  Device device = Device::cpu();
  nn::NamedTensors tensors;
  Metadata meta;
};

inline Cases load_cases() {
  const char* path = std::getenv("HETERO_TORCH_CASES");
  if (path == nullptr)
    throw std::runtime_error("run through run_torch_cases.sh (HETERO_TORCH_CASES unset)");
  const char* dev_name = std::getenv("HETERO_TEST_DEVICE");
  Cases c;
  c.device = Device(dev_name ? dev_name : "cpu");
  c.tensors = load_file(path, c.device);
  c.meta = load_metadata(path);
  return c;
}

/// The largest |got - want| / (1 + |want|) over the elements (in float64), infinity for NaN
/// or a different element count (a test failure is recorded for the count).
inline double worst(const Tensor& got, const Tensor& want) {
  EXPECT_EQ(got.numel(), want.numel());
  if (got.numel() != want.numel()) return INFINITY;
  const auto g = got.to(DType::float64).to_vector<double>(),
             w = want.to(DType::float64).to_vector<double>();
  double err = 0;
  for (std::size_t i = 0; i < g.size(); ++i)
    err = std::max(err, std::isnan(g[i]) ? INFINITY : std::abs(g[i] - w[i]) / (1 + std::abs(w[i])));
  return err;
}

}  // namespace hetero::torch_cases
