// SPDX-License-Identifier: Apache-2.0
#pragma once
// expect_sums_near: the kit's check of results that are sums of products (convolutions and
// their gradients) against direct loops in double. Internal to the kit's sources.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <hetero/conformance/conformance.hpp>
#include <hetero/conformance/matchers.hpp>
#include <hetero/tensor.hpp>

namespace hetero::conformance {

/// Expects `got` (read from its device) within tolerance of `want`, element by element:
/// 1e-4 (float32), 1e-10 (float64) or one rounding (16-bit: epsilon(t)) relative to
/// 1 + |want|, growing with the square root of `terms` (the products summed into each
/// element) beyond 256, as rounding errors of a long sum add up as a random walk.
inline void expect_sums_near(const Tensor& got, const std::vector<double>& want, DType t,
                             const std::string& what, std::int64_t terms = 1) {
  ASSERT_TRUE(got.defined()) << what << ": undefined";
  const auto v = got.to_vector<double>();  // read from the device: the backend may be alone
  const double growth = std::sqrt(std::max(1.0, static_cast<double>(terms) / 256.0));
  const double unit = t == DType::float64   ? 1e-10
                      : t == DType::float32 ? 1e-4
                                            : epsilon(t);  // 16-bit: the result's one rounding
  const double tol = unit * growth;
  EXPECT_THAT(v, ElementsNear(
                     want, [tol](double e) { return tol * (1 + std::abs(e)); }, got.shape()))
      << describe_result(what, got);
}

}  // namespace hetero::conformance
