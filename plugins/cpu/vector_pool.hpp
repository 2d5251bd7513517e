// SPDX-License-Identifier: Apache-2.0
#pragma once
// One output row of max pooling in Highway (Note [Vector kernels]), for kernels_pool.cpp's
// forward (Note [Max pooling on the cpu]): the scalar window loop branches on every element,
// and in real data the window's maximum moves unpredictably, so most of its time went to
// mispredicted branches. Thread-safe.
#include <cstdint>

#include <hetero/dtype.hpp>

namespace hetero::cpu::vec {

/// Outputs j < ow of row `i` of one (image, channel) plane of max pooling with dilation 1:
/// the window of output j covers input rows [r0, r1) and columns [j * sw - pw, j * sw - pw +
/// kw) clipped to [0, w) (`plane` is row-major with rows of w elements). out[j] is the
/// window's maximum, index[j] its position r * w + c in the plane, by torch's rule (the
/// scalar kernel's): starting from -inf at the first in-bounds element, a greater value or a
/// NaN replaces the maximum, elements in row-major order (so the last NaN wins). Requires
/// 0 <= pw < kw and r0 < r1 (every window has an element). Returns false, writing nothing,
/// for a dtype other than float32 and float64 or a stride other than 1 and 2; the caller then
/// runs its scalar loop, which gives the same results.
bool max_pool_row(DType dtype, const void* plane, std::int64_t w, std::int64_t r0, std::int64_t r1,
                  std::int64_t kw, std::int64_t sw, std::int64_t pw, std::int64_t ow, void* out,
                  std::int64_t* index);

}  // namespace hetero::cpu::vec
