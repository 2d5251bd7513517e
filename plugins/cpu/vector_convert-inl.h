// SPDX-License-Identifier: Apache-2.0
// Conversions between float32 and float16, bfloat16 and float64, with the scalar rules'
// rounding (Note [Vector kernels]): one vector (widen, narrow: what the 16-bit element-wise
// and reduction paths use, Note [16-bit in registers]) or a dense run.
// Highway's per-target header protocol: included by each vector_*.cpp once per target
// (foreach_target.h toggles HWY_TARGET_TOGGLE), so the guard flips instead of closing.
#if defined(HETERO_CPU_VECTOR_CONVERT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef HETERO_CPU_VECTOR_CONVERT_INL_H_
#undef HETERO_CPU_VECTOR_CONVERT_INL_H_
#else
#define HETERO_CPU_VECTOR_CONVERT_INL_H_
#endif
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <hetero/dtype.hpp>

#include <hwy/highway.h>

#include "prefetch_ahead.hpp"

HWY_BEFORE_NAMESPACE();
namespace hetero::cpu::vec {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// float16 <-> float32 with F16C (AVX2 and newer); Highway's SSE4 emulation truncates.
constexpr bool kHasF16C = HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2;

// One vector of float32 lanes read from n >= Lanes(df) 16-bit elements at p, widened
// exactly (S: float16 or bfloat16; float16 only where kHasF16C).
template <DType S, class DF>
HWY_INLINE hn::Vec<DF> widen(DF df, const std::uint16_t* p) {
  if constexpr (S == DType::float16) {
    const hn::Rebind<hwy::float16_t, DF> dh;
    return hn::PromoteTo(df, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(p)));
  } else {
    const hn::RebindToUnsigned<DF> du32;
    const hn::Rebind<std::uint16_t, DF> du16;
    return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du32, hn::LoadU(du16, p))));
  }
}

// f(x) as the visitors' result: true where f returns nothing, else f's result as a bool.
template <class F, class X>
HWY_INLINE bool call_as_bool(F& f, X x) {
  if constexpr (std::is_void_v<decltype(f(x))>)
    return f(x), true;
  else
    return static_cast<bool>(f(x));
}

// Calls f(std::integral_constant<DType, S>()) for the 16-bit storage S = dtype that this
// target widens (float16 where kHasF16C, bfloat16 everywhere) and returns its result (true
// where f returns nothing); false for any other dtype.
template <class F>
bool visit_16bit(DType dtype, F f) {
  const auto call = [&](auto s) { return call_as_bool(f, s); };
  if (dtype == DType::float16 && kHasF16C)
    return call(std::integral_constant<DType, DType::float16>());
  if (dtype == DType::bfloat16) return call(std::integral_constant<DType, DType::bfloat16>());
  return false;
}

// One S element widened exactly to float32 (the tails of the dense loops).
template <DType S>
HWY_INLINE float widen_one(std::uint16_t bits) {
  const hn::ScalableTag<float> df;
  alignas(64) std::uint16_t buf[HWY_MAX_BYTES / 4] = {};
  buf[0] = bits;
  return hn::GetLane(widen<S>(df, buf));
}

// An element of 16-bit storage S (float16 or bfloat16) as a type of its own, so that one
// kernel body templated on its element pointer serves float32, float64 and both 16-bit
// storages (visit_float_storage): a const Bits16<S>* points at S's bits, and widen(df, p) and
// value_of(p[i]) read them widened to float32 (Note [16-bit in registers]).
template <DType S>
struct Bits16 {
  std::uint16_t bits;
};
static_assert(sizeof(Bits16<DType::float16>) == 2, "an array of Bits16 is an array of the bits");

template <DType S, class DF>
HWY_INLINE hn::Vec<DF> widen(DF df, const Bits16<S>* p) {
  return widen<S>(df, reinterpret_cast<const std::uint16_t*>(p));
}

// The value of one element: float32 and float64 as they are, 16-bit storage widened exactly.
template <class T>
HWY_INLINE T value_of(T x) {
  return x;
}
template <DType S>
HWY_INLINE float value_of(Bits16<S> x) {
  return widen_one<S>(x.bits);
}

// Calls f(p) with `in` as a pointer to its elements: const float* (float32), const double*
// (float64), or const Bits16<S>* for the 16-bit storage this target widens (visit_16bit).
// Returns f's result (true where f returns nothing); false for any other dtype.
template <class F>
bool visit_float_storage(DType dtype, const void* in, F f) {
  const auto call = [&](const auto* p) { return call_as_bool(f, p); };
  if (dtype == DType::float32) return call(static_cast<const float*>(in));
  if (dtype == DType::float64) return call(static_cast<const double*>(in));
  return visit_16bit(
      dtype, [&](auto s) { return call(static_cast<const Bits16<decltype(s)::value>*>(in)); });
}

// Stores v's lanes at p as S, each rounded once by the scalar rule:
// - float16: F16C's round to nearest even, NaN as the quiet NaN 0x7E00 with the input's
//   sign (fp16_ieee_from_fp32_value; F16C alone would keep the payload's upper bits);
// - bfloat16: round to nearest even on the upper 16 bits, NaN as the quiet NaN 0x7FC0 (the
//   rule of hetero::BFloat16::from_float; Highway 1.0's DemoteTo truncates).
template <DType S, class DF>
HWY_INLINE void narrow(DF df, hn::Vec<DF> v, std::uint16_t* p) {
  if constexpr (S == DType::float16) {
    const hn::Rebind<hwy::float16_t, DF> dh;
    const auto quiet_nan = hn::BitCast(df, hn::Set(hn::RebindToUnsigned<DF>(), 0x7FC00000u));
    hn::StoreU(hn::DemoteTo(dh, hn::IfThenElse(hn::IsNaN(v), hn::CopySign(quiet_nan, v), v)), dh,
               reinterpret_cast<hwy::float16_t*>(p));
  } else {
    const hn::RebindToUnsigned<DF> du32;
    const hn::RebindToSigned<DF> di32;
    const hn::Rebind<std::uint16_t, DF> du16;
    const auto u = hn::BitCast(du32, v);
    const auto lsb = hn::And(hn::ShiftRight<16>(u), hn::Set(du32, 1u));
    const auto rounded = hn::ShiftRight<16>(u + hn::Set(du32, 0x7FFFu) + lsb);
    const auto bits =
        hn::IfThenElse(hn::RebindMask(du32, hn::IsNaN(v)), hn::Set(du32, 0x7FC0u), rounded);
    hn::StoreU(hn::DemoteTo(du16, hn::BitCast(di32, bits)), du16, p);  // values < 2^16: exact
  }
}

// n elements of S widened to float32: whole vectors, then the tail through a zero-padded
// vector-sized buffer. The output's lines are prefetched for writing ahead of the stores
// (Note [Prefetching a dense scan]): 4096 x 4096 float16 to float32, 0.80 -> 1.14 of
// libtorch's.
template <DType S>
inline void widen_dense(const std::uint16_t* in, float* out, std::int64_t n) {
  const hn::ScalableTag<float> df;
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(df));
  PrefetchWrite prefetch(out, n * 4);
  std::int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    prefetch.through((i + lanes) * 4);
    hn::StoreU(widen<S>(df, in + i), df, out + i);
  }
  if (i < n) {
    alignas(64) std::uint16_t buf[HWY_MAX_BYTES / 4] = {};
    alignas(64) float res[HWY_MAX_BYTES / 4];
    std::memcpy(buf, in + i, static_cast<std::size_t>(n - i) * 2);
    hn::StoreU(widen<S>(df, buf), df, res);
    std::memcpy(out + i, res, static_cast<std::size_t>(n - i) * 4);
  }
}

// n float32 elements narrowed to S, as widen_dense, but with the input read ahead instead:
// 4096 x 4096 float32 to float16 went from 0.86 to 1.06 of a plain F16C loop (a write
// prefetch of the 16-bit output gained nothing).
template <DType S>
inline void narrow_dense(const float* in, std::uint16_t* out, std::int64_t n) {
  const hn::ScalableTag<float> df;
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(df));
  PrefetchRead prefetch(in, n * 4);
  std::int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    prefetch.through((i + lanes) * 4);
    narrow<S>(df, hn::LoadU(df, in + i), out + i);
  }
  if (i < n) {
    alignas(64) float buf[HWY_MAX_BYTES / 4] = {};
    alignas(64) std::uint16_t res[HWY_MAX_BYTES / 4];
    std::memcpy(buf, in + i, static_cast<std::size_t>(n - i) * 4);
    narrow<S>(df, hn::LoadU(df, buf), res);
    std::memcpy(out + i, res, static_cast<std::size_t>(n - i) * 2);
  }
}

inline void f32_to_f64(const float* in, double* out, std::int64_t n) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(dd));
  std::int64_t i = 0;
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(hn::PromoteTo(dd, hn::LoadU(df, in + i)), dd, out + i);
  for (; i < n; ++i) out[i] = static_cast<double>(in[i]);
}

inline void f64_to_f32(const double* in, float* out, std::int64_t n) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(dd));
  std::int64_t i = 0;
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(hn::DemoteTo(df, hn::LoadU(dd, in + i)), df, out + i);
  for (; i < n; ++i) out[i] = static_cast<float>(in[i]);
}

// A 16-bit floating dtype's conversions to and from float32; false where this target has
// none for it.
inline bool to_f32(DType from, const void* in, float* out, std::int64_t n) {
  const auto* p = static_cast<const std::uint16_t*>(in);
  if (from == DType::bfloat16) return widen_dense<DType::bfloat16>(p, out, n), true;
  if (from == DType::float16 && kHasF16C) return widen_dense<DType::float16>(p, out, n), true;
  return false;
}
inline bool from_f32(DType to, const float* in, void* out, std::int64_t n) {
  auto* p = static_cast<std::uint16_t*>(out);
  if (to == DType::bfloat16) return narrow_dense<DType::bfloat16>(in, p, n), true;
  if (to == DType::float16 && kHasF16C) return narrow_dense<DType::float16>(in, p, n), true;
  return false;
}

}  // namespace HWY_NAMESPACE
}  // namespace hetero::cpu::vec
HWY_AFTER_NAMESPACE();

#endif  // HETERO_CPU_VECTOR_CONVERT_INL_H_
