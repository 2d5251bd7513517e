// SPDX-License-Identifier: Apache-2.0
#pragma once
// Short rows in Highway (Note [Vector kernels]): copies and adds of rows of `n` elements
// between two strided blocks of up to four outer levels, each row in whole vectors and a masked
// last vector, for the im2col and col2im of the convolution kernels (kernels_conv.cpp), whose rows
// are an output width long (10 elements in LeNet): a scalar or plain vector loop spends more on its
// remainder than on the row. The masked loads never touch memory outside the rows. Each returns
// false, without writing, for a dtype other than float32 and float64 or a target without masked
// loads (SSE4: Highway emulates them with a full load); the caller then runs its scalar loop, which
// gives the same results. Thread-safe.
#include <array>
#include <cstdint>

#include <hetero/dtype.hpp>

namespace hetero::cpu::vec {

/// Four outer counts, or the element strides of the four outer levels.
using Strides4 = std::array<std::int64_t, 4>;

/// dst[a, b, c, r][j] = src[a, b, c, r][j] for j < n at every position (a, b, c, r) of
/// `counts`, where [a, b, c, r] is the element offset a * strides[0] + b * strides[1] +
/// c * strides[2] + r * strides[3] of each side; the blocks do not overlap.
bool copy_blocks(DType dtype, const void* src, const Strides4& src_strides, void* dst,
                 const Strides4& dst_strides, const Strides4& counts, std::int64_t n);

/// dst[...][j] += src[...][j] likewise, in `dtype`, position after position in C order of
/// (a, b, c, r): dst rows may overlap one another (col2im adds several kernel offsets into
/// one input row), never src.
bool add_blocks(DType dtype, const void* src, const Strides4& src_strides, void* dst,
                const Strides4& dst_strides, const Strides4& counts, std::int64_t n);

}  // namespace hetero::cpu::vec
