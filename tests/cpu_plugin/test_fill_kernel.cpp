// SPDX-License-Identifier: Apache-2.0
// The cpu plugin's fill kernel (kernels_copy.cpp) on dense runs of 2-byte elements, which it
// stores as 64-bit words of four copies between an unaligned head and tail: every start
// alignment and length up to a few words, each element of the run set and none beside it,
// float16 and bfloat16 (and a strided view, the element-wise loop).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <hetero/sdk/half.hpp>

#include "kernels.hpp"
#include "vector_buffer.hpp"

using namespace hetero;

namespace {

// `n` elements of dtype t in `buffer`, `stride` apart from element `offset`.
StridedView run_of(Buffer& buffer, DType t, std::int64_t offset, std::int64_t n,
                   std::int64_t stride) {
  StridedView v;
  v.buffer = &buffer;
  v.dtype = t;
  v.offset = offset;
  v.ndim = 1;
  v.shape[0] = n;
  v.strides[0] = stride;
  return v;
}

}  // namespace

TEST(FillKernel, SixteenBitRunsAreSetAtEveryAlignmentAndLengthAndNothingBeside) {
  constexpr std::uint16_t kUntouched = 0xABCD;
  for (const DType t : {DType::float16, DType::bfloat16}) {
    const std::uint16_t want = t == DType::float16 ? Half(1.5F).bits : BFloat16(1.5F).bits;
    for (std::int64_t start = 0; start < 8; ++start)
      for (std::int64_t n = 0; n <= 41; ++n) {
        std::vector<std::uint16_t> bits(64, kUntouched);
        test::VectorBuffer<std::uint16_t> buffer(bits);
        cpu::kernels::fill(run_of(buffer, t, start, n, 1), Scalar{1.5, 1});
        for (std::int64_t i = 0; i < 64; ++i) {
          const bool inside = i >= start && i < start + n;
          ASSERT_EQ(bits[static_cast<std::size_t>(i)], inside ? want : kUntouched)
              << dtype_name(t) << " start " << start << " length " << n << " element " << i;
        }
      }
    std::vector<std::uint16_t> bits(64, kUntouched);  // every third element of 20
    test::VectorBuffer<std::uint16_t> buffer(bits);
    cpu::kernels::fill(run_of(buffer, t, 1, 20, 3), Scalar{1.5, 1});
    for (std::int64_t i = 0; i < 64; ++i)
      EXPECT_EQ(bits[static_cast<std::size_t>(i)],
                i >= 1 && i <= 58 && (i - 1) % 3 == 0 ? want : kUntouched)
          << dtype_name(t) << " element " << i;
  }
}
