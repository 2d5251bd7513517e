// SPDX-License-Identifier: Apache-2.0
// The reduction kernels: sums and column accumulations in float64 or wrapping int64, and
// minima and maxima of a run or folded into a row of running extremes.
// Highway compiles this file once per target (foreach_target.h includes it again for each,
// with HWY_NAMESPACE naming the target); the part under HWY_ONCE exports the per-target
// functions and dispatches to the best one for the running CPU (Note [Vector kernels]).
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "prefetch_ahead.hpp"
#include "vector_kernels.hpp"

// clang-format off: the order of these includes is Highway's protocol.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "vector_reduce.cpp"
#include <hwy/cache_control.h>
#include <hwy/foreach_target.h>
#include <hwy/highway.h>
// clang-format on

#include "vector_convert-inl.h"
#include "vector_extreme-inl.h"

HWY_BEFORE_NAMESPACE();
namespace hetero::cpu::vec {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Lanes(d) elements from p as d's 64-bit lanes: loaded, or promoted from 32-bit ones
// (float to double, int32 to int64).
template <class D, class T>
HWY_INLINE hn::Vec<D> load_wide(D d, const T* p) {
  if constexpr (sizeof(T) == sizeof(hn::TFromD<D>))
    return hn::LoadU(d, p);
  else
    return hn::PromoteTo(d, hn::LoadU(hn::Rebind<T, D>(), p));
}

// Lanes(d) elements of 16-bit storage S from p as d's double lanes: widened to float32, then
// to double, as they are loaded (Note [16-bit in registers]).
template <class D, DType S>
HWY_INLINE hn::Vec<D> load_wide(D d, const Bits16<S>* p) {
  return hn::PromoteTo(d, widen(hn::Rebind<float, D>(), p));
}

// Dense sum in double, four vector accumulators, combined in a fixed order: the
// accumulators pairwise, their lanes by the target's SumOfLanes, then the tail in order.
// load(i) gives the Lanes(dd) elements from i widened to double (exactly), element(i) the
// one at i; base is the first element, of `bytes` bytes each, prefetched ahead (Note
// [Prefetching a dense scan]) through the first `readable` >= n elements from base (more than
// n where the scan's next run follows this one: Note [Prefetching into the next row]).
template <class D, class Load, class Element>
HWY_INLINE double sum_lanes(D dd, std::int64_t n, const void* base, std::int64_t bytes, Load load,
                            Element element, std::int64_t readable) {
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(dd));
  PrefetchRead prefetch(base, std::max(n, readable) * bytes);
  auto s0 = hn::Zero(dd), s1 = hn::Zero(dd), s2 = hn::Zero(dd), s3 = hn::Zero(dd);
  std::int64_t i = 0;
  for (; i + 4 * lanes <= n; i += 4 * lanes) {
    prefetch.through((i + 4 * lanes) * bytes);
    s0 = s0 + load(i);
    s1 = s1 + load(i + lanes);
    s2 = s2 + load(i + 2 * lanes);
    s3 = s3 + load(i + 3 * lanes);
  }
  for (; i + lanes <= n; i += lanes) s0 = s0 + load(i);
  // The lanes added in registers (the target's tree): storing them and adding them one by one
  // in C made each row wait for its store to reach the loads, 2x the time of a short row's sum.
  double total = hn::GetLane(hn::SumOfLanes(dd, (s0 + s1) + (s2 + s3)));
  for (; i < n; ++i) total += element(i);
  return total;
}

// float32 or 16-bit storage (widened lane by lane as loaded: a 16-bit sum is the same sum, in
// the same order, as of the float32 values) or float64 (visit_float_storage's pointers).
// readable: as sum_lanes'.
template <class T>
double sum_dense(const T* in, std::int64_t n, std::int64_t readable = 0) {
  const hn::ScalableTag<double> dd;
  return sum_lanes(
      dd, n, in, static_cast<std::int64_t>(sizeof(T)),
      [&](std::int64_t i) { return load_wide(dd, in + i); },
      [&](std::int64_t i) { return static_cast<double>(value_of(in[i])); }, readable);
}

bool SumImpl(DType dtype, const void* in, std::int64_t n, double* result) {
  return visit_float_storage(dtype, in, [&](const auto* p) { *result = sum_dense(p, n); });
}

// Note [Prefetching short rows]: a loop over short rows (262,144 rows of 64 float32) keeps
// too few loads in flight for the memory's latency: each row's first load waited (56% of
// sum_rows' samples), and [262144, 64].mean(1) read 64 MiB at 3/4 of a whole-tensor sum's
// speed. Asking for the row kPrefetchBytesAhead on (8 rows of 64 float32 ahead) took a
// 2-thread loop over those rows from 3.5 to 2.7 ms on a Zen 3. Rows of more than
// kPrefetchedRowBytes run long enough for the hardware prefetcher. Prefetches do not fault,
// and their addresses are computed as integers, so those past the last row are harmless.
//
// Note [Prefetching into the next row]: a longer row is one dense scan, prefetched
// kScanPrefetchBytes ahead (Note [Prefetching a dense scan]) but not past its end, so the next
// row's first 4 KiB were read cold: x.sum(1) of 4096 x 4096 float32 (rows of 16 KiB) took
// 1.18 ms against the whole tensor's sum's 0.90 on a 2-core Zen 5 EPYC. Where the rows follow
// one another (row_stride == n), a row's scan may prefetch on into the rows after it, up to
// the end of the block of rows this call reduces (its caller's thread's share).
constexpr std::int64_t kPrefetchedRowBytes = 1024;
constexpr std::int64_t kPrefetchBytesAhead = 2048;

// Calls row(r, p + r * row_stride, readable) for r in [0, rows), each row of n elements,
// where readable (>= n) is how many elements from the row's start its scan may prefetch:
// short rows prefetched kPrefetchBytesAhead earlier here, readable n (Note [Prefetching short
// rows]); longer ones readable through the last row where the rows are contiguous (Note
// [Prefetching into the next row]).
template <class T, class F>
HWY_INLINE void each_row_prefetched(const T* p, std::int64_t rows, std::int64_t n,
                                    std::int64_t row_stride, F row) {
  const std::int64_t row_bytes = n * static_cast<std::int64_t>(sizeof(T));
  if (row_bytes > kPrefetchedRowBytes || rows < 2) {
    const bool contiguous = row_stride == n;
    for (std::int64_t r = 0; r < rows; ++r)
      row(r, p + r * row_stride, contiguous ? (rows - r) * n : n);
    return;
  }
  const std::int64_t ahead =
      std::max<std::int64_t>(1, kPrefetchBytesAhead / std::max<std::int64_t>(row_bytes, 1));
  for (std::int64_t r = 0; r < rows; ++r) {
    // An address, not a pointer into the array: rows past the last one are only prefetched
    // (in integers, so that no pointer is formed past the end).
    const std::uintptr_t next = reinterpret_cast<std::uintptr_t>(p) +
                                static_cast<std::uintptr_t>((r + ahead) * row_stride *
                                                            static_cast<std::int64_t>(sizeof(T)));
    for (std::int64_t b = 0; b < row_bytes; b += 64)
      hwy::Prefetch(reinterpret_cast<const char*>(next + static_cast<std::uintptr_t>(b)));
    row(r, p + r * row_stride, n);
  }
}

bool SumRowsImpl(DType dtype, const void* in, std::int64_t rows, std::int64_t n,
                 std::int64_t row_stride, double* out) {
  return visit_float_storage(dtype, in, [&](const auto* p) {
    each_row_prefetched(p, rows, n, row_stride,
                        [&](std::int64_t r, const auto* row, std::int64_t readable) {
                          out[r] = sum_dense(row, n, readable);
                        });
  });
}

// acc[j] += the j-th element, j < n; load and element as sum_lanes'. next, where not null,
// is prefetched `bytes` per element as the row is read.
template <class D, class Load, class Element>
HWY_INLINE void accumulate_lanes(D dd, double* acc, std::int64_t n, const void* next,
                                 std::int64_t bytes, Load load, Element element) {
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(dd));
  std::int64_t j = 0;
  if (next != nullptr) {
    PrefetchRead prefetch(next, n * bytes, 0);
    for (; j + lanes <= n; j += lanes) {
      prefetch.through((j + lanes) * bytes);
      hn::StoreU(hn::LoadU(dd, acc + j) + load(j), dd, acc + j);
    }
  }
  for (; j + lanes <= n; j += lanes) hn::StoreU(hn::LoadU(dd, acc + j) + load(j), dd, acc + j);
  for (; j < n; ++j) acc[j] += element(j);
}

bool AccumulateImpl(DType dtype, const void* in, double* acc, std::int64_t n, const void* next) {
  const hn::ScalableTag<double> dd;
  return visit_float_storage(dtype, in, [&](const auto* p) {
    accumulate_lanes(
        dd, acc, n, next, static_cast<std::int64_t>(sizeof(*p)),
        [&](std::int64_t j) { return load_wide(dd, p + j); },
        [&](std::int64_t j) { return static_cast<double>(value_of(p[j])); });
  });
}

// ---- integer reductions: sums wrap modulo 2^64 (int64 lanes), so any order gives the
// scalar loop's result bit for bit. (The core sums bool, int8, uint8 and int32 after casting
// them to int64, torch's result dtype: int64 is the sum the core reaches.)
#if HWY_TARGET != HWY_SCALAR
// Sum of n int32 (or int64) as int64 lanes, wrapping.
template <class T>
HWY_INLINE std::uint64_t sum_wide(const T* in, std::int64_t n) {
  // Unsigned lanes: wrapping is defined on every target (an emulated one adds in C).
  const hn::ScalableTag<std::int64_t> d64;
  const hn::RebindToUnsigned<decltype(d64)> du;
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(d64));
  auto load = [&](std::int64_t i) { return hn::BitCast(du, load_wide(d64, in + i)); };
  auto s0 = hn::Zero(du), s1 = hn::Zero(du);
  std::int64_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    s0 = s0 + load(i);
    s1 = s1 + load(i + lanes);
  }
  // The lanes added in C as uint64 too (SumOfLanes of int64 would overflow a signed type).
  alignas(64) std::uint64_t part[HWY_MAX_BYTES / 8];
  hn::StoreU(s0 + s1, du, part);
  std::uint64_t total = 0;
  for (std::int64_t k = 0; k < lanes; ++k) total += part[k];
  for (; i < n; ++i) total += static_cast<std::uint64_t>(static_cast<std::int64_t>(in[i]));
  return total;
}

// Sum of n bytes, uint8 or int8 (Signed), as uint64: SumsOf8 adds each 8 bytes into a 64-bit
// lane (psadbw on x86); an int8 x is summed as the byte x ^ 0x80 (x + 128, in 0..255), and
// 128 per element is taken off after.
template <bool Signed>
HWY_INLINE std::uint64_t sum_bytes(const std::uint8_t* in, std::int64_t n) {
  const hn::ScalableTag<std::uint8_t> d8;
  const hn::Repartition<std::uint64_t, decltype(d8)> du;
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(d8));
  const std::uint8_t bias = Signed ? 0x80 : 0;
  const auto flip = hn::Set(d8, bias);
  auto s0 = hn::Zero(du), s1 = hn::Zero(du);
  std::int64_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    s0 = s0 + hn::SumsOf8(hn::Xor(hn::LoadU(d8, in + i), flip));
    s1 = s1 + hn::SumsOf8(hn::Xor(hn::LoadU(d8, in + i + lanes), flip));
  }
  alignas(64) std::uint64_t part[HWY_MAX_BYTES / 8];
  hn::StoreU(s0 + s1, du, part);
  std::uint64_t total = 0;
  for (std::size_t k = 0; k < hn::Lanes(du); ++k) total += part[k];
  for (; i < n; ++i) total += static_cast<std::uint8_t>(in[i] ^ bias);
  return Signed ? total - 128u * static_cast<std::uint64_t>(n) : total;
}

#endif

bool SumIntImpl(DType dtype, const void* in, std::int64_t n, std::int64_t* result) {
#if HWY_TARGET == HWY_SCALAR
  (void)dtype, (void)in, (void)n, (void)result;
  return false;
#else
  std::uint64_t s = 0;
  if (dtype == DType::int32)
    s = sum_wide(static_cast<const std::int32_t*>(in), n);
  else if (dtype == DType::int64)
    s = sum_wide(static_cast<const std::int64_t*>(in), n);
  else if (dtype == DType::uint8)
    s = sum_bytes<false>(static_cast<const std::uint8_t*>(in), n);
  else if (dtype == DType::int8)
    s = sum_bytes<true>(static_cast<const std::uint8_t*>(in), n);
  else
    return false;
  *result = static_cast<std::int64_t>(s);
  return true;
#endif
}

// acc[j] += in[j] (int64, wrapping) for a column reduction's row of int32 or int64.
template <class T>
void accumulate_int_dense(const T* in, std::int64_t* acc, std::int64_t n) {
  const hn::ScalableTag<std::int64_t> d64;
  const hn::RebindToUnsigned<decltype(d64)> du;  // wrapping adds, defined everywhere
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(d64));
  std::int64_t j = 0;
  for (; j + lanes <= n; j += lanes) {
    const auto sum =
        hn::BitCast(du, hn::LoadU(d64, acc + j)) + hn::BitCast(du, load_wide(d64, in + j));
    hn::StoreU(hn::BitCast(d64, sum), d64, acc + j);
  }
  for (; j < n; ++j)
    acc[j] = static_cast<std::int64_t>(static_cast<std::uint64_t>(acc[j]) +
                                       static_cast<std::uint64_t>(std::int64_t{in[j]}));
}

bool AccumulateIntImpl(DType dtype, const void* in, std::int64_t* acc, std::int64_t n) {
#if HWY_TARGET == HWY_SCALAR
  (void)dtype, (void)in, (void)acc, (void)n;
  return false;
#else
  if (dtype == DType::int32)
    return accumulate_int_dense(static_cast<const std::int32_t*>(in), acc, n), true;
  if (dtype == DType::int64)
    return accumulate_int_dense(static_cast<const std::int64_t*>(in), acc, n), true;
  return false;
#endif
}

// The minimum or maximum of n >= 1 integers in two vector accumulators.
template <bool Min, class T>
T extreme_int_dense(const T* in, std::int64_t n) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(d));
  auto pick = [](V a, V b) { return Min ? hn::Min(a, b) : hn::Max(a, b); };
  V a0 = hn::Set(d, in[0]), a1 = a0;
  std::int64_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    a0 = pick(a0, hn::LoadU(d, in + i));
    a1 = pick(a1, hn::LoadU(d, in + i + lanes));
  }
  alignas(64) T part[HWY_MAX_BYTES / sizeof(T)];
  hn::StoreU(pick(a0, a1), d, part);
  T best = part[0];
  for (std::int64_t k = 1; k < lanes; ++k)
    best = (Min ? part[k] < best : best < part[k]) ? part[k] : best;
  for (; i < n; ++i) best = (Min ? in[i] < best : best < in[i]) ? in[i] : best;
  return best;
}

bool ExtremeIntImpl(Extreme which, DType dtype, const void* in, std::int64_t n,
                    std::int64_t* result) {
  const bool min = which == Extreme::min;
  auto run = [&](const auto* p) {
    *result = static_cast<std::int64_t>(min ? extreme_int_dense<true>(p, n)
                                            : extreme_int_dense<false>(p, n));
    return true;
  };
  switch (dtype) {
    case DType::uint8:
      return run(static_cast<const std::uint8_t*>(in));
    case DType::int8:
      return run(static_cast<const std::int8_t*>(in));
    case DType::int32:
      return run(static_cast<const std::int32_t*>(in));
    case DType::int64:
      return run(static_cast<const std::int64_t*>(in));
    default:  // bool: the scalar loop (Highway has no bool lanes)
      return false;
  }
}

// best[j] = the maximum (minimum) of x[j] and best[j] as the instruction computes it, and
// z NaN once an x[j] is NaN or infinite (x * 0 folded in, one fused multiply-add per
// vector, as extreme_dense). x86's max and min return their second operand when either
// input is NaN or both are equal, so with best as that operand the result equals the
// NaN-propagating rule's, (x != x || x > best) ? x : best, wherever x is not NaN: ties
// keep best's value (and its zero's sign), and a NaN already in best stays.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSE4
constexpr bool kMaxKeepsSecondOperand = true;
#else
constexpr bool kMaxKeepsSecondOperand = false;  // other targets: the caller's exact rule
#endif

template <bool Min, class T>
bool extreme_into_dense(const T* in, T* best, std::int64_t n, const void* next) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(d));
  auto pick = [](V x, V b) { return Min ? hn::Min(x, b) : hn::Max(x, b); };
  const V zero = hn::Zero(d);
  V z0 = zero, z1 = zero;
  // Where there is no next row, none (an empty scan).
  PrefetchRead prefetch(next, next != nullptr ? n * static_cast<std::int64_t>(sizeof(T)) : 0, 0);
  std::int64_t j = 0;
  for (; j + 2 * lanes <= n; j += 2 * lanes) {
    prefetch.through((j + 2 * lanes) * static_cast<std::int64_t>(sizeof(T)));
    const V x0 = hn::LoadU(d, in + j), x1 = hn::LoadU(d, in + j + lanes);
    hn::StoreU(pick(x0, hn::LoadU(d, best + j)), d, best + j);
    hn::StoreU(pick(x1, hn::LoadU(d, best + j + lanes)), d, best + j + lanes);
    z0 = hn::MulAdd(x0, zero, z0);
    z1 = hn::MulAdd(x1, zero, z1);
  }
  bool special = !hn::AllFalse(d, hn::IsNaN(z0 + z1));
  for (; j < n; ++j) {
    const T x = in[j];
    special = special || x != x;
    best[j] = (Min ? x < best[j] : best[j] < x) ? x : best[j];
  }
  return special;
}

bool ExtremeIntoImpl(Extreme which, DType dtype, const void* in, void* best, std::int64_t n,
                     bool* maybe_nan, const void* next) {
  const bool min = which == Extreme::min;
  if (!kMaxKeepsSecondOperand) return false;
  auto run = [&](auto* b) {  // b: float or double
    const auto* p = static_cast<const std::remove_pointer_t<decltype(b)>*>(in);
    *maybe_nan =
        min ? extreme_into_dense<true>(p, b, n, next) : extreme_into_dense<false>(p, b, n, next);
    return true;
  };
  if (dtype == DType::float32) return run(static_cast<float*>(best));
  if (dtype == DType::float64) return run(static_cast<double*>(best));
  return false;
}

bool ExtremeImpl(Extreme which, DType dtype, const void* in, std::int64_t n, double* result,
                 bool* has_nan) {
  const bool min = which == Extreme::min;
  return visit_float_storage(dtype, in, [&](const auto* p) {
    min ? extreme_dense<true>(p, n, result, has_nan) : extreme_dense<false>(p, n, result, has_nan);
  });
}

bool ExtremeRowsImpl(Extreme which, DType dtype, const void* in, std::int64_t rows, std::int64_t n,
                     std::int64_t row_stride, double* out, bool* has_nan) {
  return visit_float_storage(dtype, in, [&](const auto* p) {
    if (which == Extreme::min)
      each_row_prefetched(p, rows, n, row_stride,
                          [&](std::int64_t r, const auto* row, std::int64_t readable) {
                            extreme_dense<true>(row, n, out + r, has_nan + r, readable);
                          });
    else
      each_row_prefetched(p, rows, n, row_stride,
                          [&](std::int64_t r, const auto* row, std::int64_t readable) {
                            extreme_dense<false>(row, n, out + r, has_nan + r, readable);
                          });
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace hetero::cpu::vec
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace hetero::cpu::vec {

HWY_EXPORT(SumImpl);
HWY_EXPORT(SumRowsImpl);
HWY_EXPORT(AccumulateImpl);
HWY_EXPORT(SumIntImpl);
HWY_EXPORT(AccumulateIntImpl);
HWY_EXPORT(ExtremeImpl);
HWY_EXPORT(ExtremeRowsImpl);
HWY_EXPORT(ExtremeIntoImpl);
HWY_EXPORT(ExtremeIntImpl);

bool sum(DType dtype, const void* in, std::int64_t n, double* result) {
  return HWY_DYNAMIC_DISPATCH(SumImpl)(dtype, in, n, result);
}
bool sum_rows(DType dtype, const void* in, std::int64_t rows, std::int64_t n,
              std::int64_t row_stride, double* out) {
  return HWY_DYNAMIC_DISPATCH(SumRowsImpl)(dtype, in, rows, n, row_stride, out);
}
bool accumulate(DType dtype, const void* in, double* acc, std::int64_t n, const void* next) {
  return HWY_DYNAMIC_DISPATCH(AccumulateImpl)(dtype, in, acc, n, next);
}
bool sum_int(DType dtype, const void* in, std::int64_t n, std::int64_t* result) {
  return HWY_DYNAMIC_DISPATCH(SumIntImpl)(dtype, in, n, result);
}
bool accumulate_int(DType dtype, const void* in, std::int64_t* acc, std::int64_t n) {
  return HWY_DYNAMIC_DISPATCH(AccumulateIntImpl)(dtype, in, acc, n);
}
bool extreme(Extreme which, DType dtype, const void* in, std::int64_t n, double* result,
             bool* has_nan) {
  return HWY_DYNAMIC_DISPATCH(ExtremeImpl)(which, dtype, in, n, result, has_nan);
}
bool extreme_rows(Extreme which, DType dtype, const void* in, std::int64_t rows, std::int64_t n,
                  std::int64_t row_stride, double* out, bool* has_nan) {
  return HWY_DYNAMIC_DISPATCH(ExtremeRowsImpl)(which, dtype, in, rows, n, row_stride, out, has_nan);
}
bool extreme_into(Extreme which, DType dtype, const void* in, void* best, std::int64_t n,
                  bool* maybe_nan, const void* next) {
  return HWY_DYNAMIC_DISPATCH(ExtremeIntoImpl)(which, dtype, in, best, n, maybe_nan, next);
}
bool extreme_int(Extreme which, DType dtype, const void* in, std::int64_t n, std::int64_t* result) {
  return HWY_DYNAMIC_DISPATCH(ExtremeIntImpl)(which, dtype, in, n, result);
}

}  // namespace hetero::cpu::vec
#endif
