// SPDX-License-Identifier: Apache-2.0
// expect_same: a tensor written by one path holds exactly what another computed.
#pragma once
#include <gtest/gtest.h>

#include <hetero/ops.hpp>
#include <hetero/tensor.hpp>

namespace hetero::test {

/// Whether two tensors hold the same bits (same dtype, shape and elements; NaN nowhere).
inline void expect_same(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.dtype(), want.dtype());
  ASSERT_EQ(got.shape(), want.shape());
  EXPECT_TRUE(equal(got, want));
}

}  // namespace hetero::test
