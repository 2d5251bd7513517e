// SPDX-License-Identifier: Apache-2.0
// Short rows (vector_rows.hpp), compiled once per target as vector_elementwise.cpp.
#include <cstdint>

#include "vector_rows.hpp"

// clang-format off: the order of these includes is Highway's protocol.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "vector_rows.cpp"
#include <hwy/foreach_target.h>
#include <hwy/highway.h>
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace hetero::cpu::vec {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Native masked loads (AVX2's vmaskmov, AVX-512's masks) do not fault on masked-off lanes.
constexpr bool kMaskedLoads =
    HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL;

// One row: whole vectors of the widest width, then 128-bit vectors, then one masked 128-bit
// vector. No access reaches more than 16 bytes past the row: a wide masked access would
// overlap the next row's elements, and a load overlapping an earlier masked store waits for
// it (store-to-load forwarding fails), which cost col2im most of its time with 64-byte
// vectors on 10-element rows.
template <bool kAdd, class T>
bool blocks_of(const T* src, const std::int64_t* src_strides, T* dst,
               const std::int64_t* dst_strides, const std::int64_t* counts, std::int64_t n) {
  if constexpr (!kMaskedLoads) {
    return false;
  } else {
    const hn::ScalableTag<T> d;
    const hn::Full128<T> d4;
    const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(d));
    const std::int64_t lanes4 = static_cast<std::int64_t>(hn::Lanes(d4));
    const std::int64_t wide = n / lanes * lanes;
    const std::int64_t narrow = wide + (n - wide) / lanes4 * lanes4;
    const auto tail = hn::FirstN(d4, static_cast<std::size_t>(n - narrow));
    const auto row = [&](const T* s, T* o) {
      for (std::int64_t j = 0; j < wide; j += lanes) {
        auto v = hn::LoadU(d, s + j);
        if constexpr (kAdd) v = hn::Add(v, hn::LoadU(d, o + j));
        hn::StoreU(v, d, o + j);
      }
      for (std::int64_t j = wide; j < narrow; j += lanes4) {
        auto v = hn::LoadU(d4, s + j);
        if constexpr (kAdd) v = hn::Add(v, hn::LoadU(d4, o + j));
        hn::StoreU(v, d4, o + j);
      }
      if (narrow < n) {
        auto v = hn::MaskedLoad(tail, d4, s + narrow);
        if constexpr (kAdd) v = hn::Add(v, hn::MaskedLoad(tail, d4, o + narrow));
        hn::BlendedStore(v, tail, d4, o + narrow);
      }
    };
    for (std::int64_t a = 0; a < counts[0]; ++a)
      for (std::int64_t b = 0; b < counts[1]; ++b)
        for (std::int64_t c = 0; c < counts[2]; ++c) {
          const T* s = src + a * src_strides[0] + b * src_strides[1] + c * src_strides[2];
          T* o = dst + a * dst_strides[0] + b * dst_strides[1] + c * dst_strides[2];
          for (std::int64_t r = 0; r < counts[3]; ++r)
            row(s + r * src_strides[3], o + r * dst_strides[3]);
        }
    return true;
  }
}

template <bool kAdd>
bool blocks_dispatch(DType dtype, const void* src, const std::int64_t* src_strides, void* dst,
                     const std::int64_t* dst_strides, const std::int64_t* counts, std::int64_t n) {
  if (dtype == DType::float32)
    return blocks_of<kAdd>(static_cast<const float*>(src), src_strides, static_cast<float*>(dst),
                           dst_strides, counts, n);
  if (dtype == DType::float64)
    return blocks_of<kAdd>(static_cast<const double*>(src), src_strides, static_cast<double*>(dst),
                           dst_strides, counts, n);
  return false;
}

bool CopyBlocksImpl(DType dtype, const void* src, const std::int64_t* src_strides, void* dst,
                    const std::int64_t* dst_strides, const std::int64_t* counts, std::int64_t n) {
  return blocks_dispatch<false>(dtype, src, src_strides, dst, dst_strides, counts, n);
}
bool AddBlocksImpl(DType dtype, const void* src, const std::int64_t* src_strides, void* dst,
                   const std::int64_t* dst_strides, const std::int64_t* counts, std::int64_t n) {
  return blocks_dispatch<true>(dtype, src, src_strides, dst, dst_strides, counts, n);
}

}  // namespace HWY_NAMESPACE
}  // namespace hetero::cpu::vec
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace hetero::cpu::vec {

HWY_EXPORT(CopyBlocksImpl);
HWY_EXPORT(AddBlocksImpl);

bool copy_blocks(DType dtype, const void* src, const Strides4& src_strides, void* dst,
                 const Strides4& dst_strides, const Strides4& counts, std::int64_t n) {
  return HWY_DYNAMIC_DISPATCH(CopyBlocksImpl)(dtype, src, src_strides.data(), dst,
                                              dst_strides.data(), counts.data(), n);
}
bool add_blocks(DType dtype, const void* src, const Strides4& src_strides, void* dst,
                const Strides4& dst_strides, const Strides4& counts, std::int64_t n) {
  return HWY_DYNAMIC_DISPATCH(AddBlocksImpl)(dtype, src, src_strides.data(), dst,
                                             dst_strides.data(), counts.data(), n);
}

}  // namespace hetero::cpu::vec
#endif
