// SPDX-License-Identifier: Apache-2.0
// expect_like_torch: a float64 result against the values torch 1.13 printed for it.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <hetero/tensor.hpp>

namespace hetero::test {

/// `got` (read as float64) element by element against torch's `want`: NaN where torch has
/// NaN, infinities and zeros exact (signed zeros compare equal), else within 4 float64 ulps.
inline void expect_like_torch(const Tensor& got, const std::vector<double>& want) {
  const auto v = got.to_vector<double>();
  ASSERT_EQ(v.size(), want.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(v[i])) << "element " << i << " got " << v[i];
    } else if (std::isinf(want[i]) || want[i] == 0.0) {
      EXPECT_EQ(v[i], want[i]) << "element " << i;
    } else {
      EXPECT_NEAR(v[i], want[i], 4 * std::fabs(want[i]) * 2.220446049250313e-16) << "element " << i;
    }
  }
}

}  // namespace hetero::test
