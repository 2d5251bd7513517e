// SPDX-License-Identifier: Apache-2.0
// Max pooling rows (vector_pool.hpp), compiled once per target (Highway's foreach_target).
//
// Outputs in vectors: the values in a vector of T, their positions in a vector of the signed
// integer of T's size (int32 for float32: a plane of fewer than 2^31 elements, else the
// scalar loop), widened to int64 when written out. Each input row of the window is first copied
// into a row padded with -inf on both sides, so that every load is in bounds and a padded element
// never wins (-inf > -inf is false and -inf is no NaN): the in-bounds elements then decide alone,
// in the scalar order. A stride of 2 reads the window's column q of consecutive outputs as the even
// lanes of two vectors (LoadInterleaved2).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "vector_pool.hpp"

// clang-format off: the order of these includes is Highway's protocol.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "vector_pool.cpp"
#include <hwy/foreach_target.h>
#include <hwy/highway.h>
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace hetero::cpu::vec {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class T>
void max_pool_row_of(const T* plane, std::int64_t w, std::int64_t r0, std::int64_t r1,
                     std::int64_t kw, std::int64_t sw, std::int64_t pw, std::int64_t ow, T* out,
                     std::int64_t* index) {
  const hn::ScalableTag<T> d;
  const hn::RebindToSigned<decltype(d)> di;
  using I = hn::TFromD<decltype(di)>;
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(d));
  const std::int64_t vectors = (ow + lanes - 1) / lanes;
  // Padded row: pw elements of -inf, the row, then -inf up to the last vector's reach (its
  // last output's window, plus one element for the interleaved load).
  const std::int64_t padded = std::max(pw + w, vectors * lanes * sw + kw + sw);
  thread_local std::vector<T> row_buffer, best_buffer;
  thread_local std::vector<I> where_buffer;
  row_buffer.assign(static_cast<std::size_t>(padded), -std::numeric_limits<T>::infinity());
  best_buffer.resize(static_cast<std::size_t>(vectors * lanes));
  where_buffer.resize(static_cast<std::size_t>(vectors * lanes));
  T* row = row_buffer.data();
  T* best_out = best_buffer.data();
  I* where_out = where_buffer.data();

  const auto step = hn::Mul(hn::Iota(di, 0), hn::Set(di, static_cast<I>(sw)));  // k * sw
  for (std::int64_t v = 0; v < vectors; ++v) {
    const std::int64_t j0 = v * lanes;
    // The first in-bounds element of each window: row r0, column max(j * sw - pw, 0).
    const auto first_col =
        hn::Max(hn::Add(hn::Set(di, static_cast<I>(j0 * sw - pw)), step), hn::Zero(di));
    hn::StoreU(hn::Add(hn::Set(di, static_cast<I>(r0 * w)), first_col), di, where_out + j0);
    hn::StoreU(hn::Set(d, -std::numeric_limits<T>::infinity()), d, best_out + j0);
  }
  const auto one = hn::Set(di, I{1});
  for (std::int64_t r = r0; r < r1; ++r) {
    std::copy(plane + r * w, plane + (r + 1) * w, row + pw);  // the padding stays -inf
    for (std::int64_t v = 0; v < vectors; ++v) {
      const std::int64_t j0 = v * lanes;
      auto best = hn::LoadU(d, best_out + j0);
      auto where = hn::LoadU(di, where_out + j0);
      // Output j's window element q: column j * sw - pw + q of the plane, row[j * sw + q].
      auto position = hn::Add(hn::Set(di, static_cast<I>(r * w + j0 * sw - pw)), step);
      const T* at = row + j0 * sw;
      for (std::int64_t q = 0; q < kw; ++q) {
        hn::Vec<decltype(d)> value;
        if (sw == 1) {
          value = hn::LoadU(d, at + q);
        } else {
          hn::Vec<decltype(d)> odd;
          hn::LoadInterleaved2(d, at + q, value, odd);
        }
        const auto take = hn::Or(hn::Gt(value, best), hn::IsNaN(value));
        best = hn::IfThenElse(take, value, best);
        where = hn::IfThenElse(hn::RebindMask(di, take), position, where);
        position = hn::Add(position, one);
      }
      hn::StoreU(best, d, best_out + j0);
      hn::StoreU(where, di, where_out + j0);
    }
  }
  std::copy(best_out, best_out + ow, out);
  std::copy(where_out, where_out + ow, index);
}

bool MaxPoolRowImpl(DType dtype, const void* plane, std::int64_t w, std::int64_t r0,
                    std::int64_t r1, std::int64_t kw, std::int64_t sw, std::int64_t pw,
                    std::int64_t ow, void* out, std::int64_t* index) {
  if (sw != 1 && sw != 2) return false;
  // float32's positions are int32 lanes: the window's rows must lie below 2^31 elements.
  if (dtype == DType::float32 && r1 * w >= (std::int64_t{1} << 31)) return false;
  if (dtype == DType::float32)
    return max_pool_row_of(static_cast<const float*>(plane), w, r0, r1, kw, sw, pw, ow,
                           static_cast<float*>(out), index),
           true;
  if (dtype == DType::float64)
    return max_pool_row_of(static_cast<const double*>(plane), w, r0, r1, kw, sw, pw, ow,
                           static_cast<double*>(out), index),
           true;
  return false;
}

}  // namespace HWY_NAMESPACE
}  // namespace hetero::cpu::vec
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace hetero::cpu::vec {

HWY_EXPORT(MaxPoolRowImpl);

bool max_pool_row(DType dtype, const void* plane, std::int64_t w, std::int64_t r0, std::int64_t r1,
                  std::int64_t kw, std::int64_t sw, std::int64_t pw, std::int64_t ow, void* out,
                  std::int64_t* index) {
  return HWY_DYNAMIC_DISPATCH(MaxPoolRowImpl)(dtype, plane, w, r0, r1, kw, sw, pw, ow, out, index);
}

}  // namespace hetero::cpu::vec
#endif
