// SPDX-License-Identifier: Apache-2.0
// The vector kernels (Note [Vector kernels], vector_kernels.hpp). Highway compiles this
// file once per target: foreach_target.h includes it again for each, with HWY_NAMESPACE
// naming the target, and the part under HWY_ONCE (compiled once) exports the per-target
// functions and dispatches to the best one for the running CPU.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <type_traits>

#include "vector_kernels.hpp"

// clang-format off: the order of these includes is Highway's protocol.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "vector_kernels.cpp"
#include <hwy/foreach_target.h>
#include <hwy/highway.h>
// clang-format on

#include "sleef_x86.hpp"

HWY_BEFORE_NAMESPACE();
namespace hetero::cpu::vec {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// Elements converted through a float32 block at a time for float16 and bfloat16 input.
constexpr std::int64_t kBlock = 512;

// Applies f(vector) -> vector to n dense elements: whole vectors, then the tail through a
// zero-padded vector-sized buffer (the padding's results are dropped).
template <class D, class F>
HWY_INLINE void map1(D d, const hn::TFromD<D>* in, hn::TFromD<D>* out, std::int64_t n, F f) {
  using T = hn::TFromD<D>;
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(d));
  std::int64_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(f(hn::LoadU(d, in + i)), d, out + i);
  if (i < n) {
    alignas(64) T buf[HWY_MAX_BYTES / sizeof(T)] = {};
    std::memcpy(buf, in + i, static_cast<std::size_t>(n - i) * sizeof(T));
    hn::StoreU(f(hn::LoadU(d, buf)), d, buf);
    std::memcpy(out + i, buf, static_cast<std::size_t>(n - i) * sizeof(T));
  }
}

// out[i] = f(a[i * a_step], b[i * b_step]), steps 0 or 1, as map1.
template <class D, class F>
HWY_INLINE void map2(D d, const hn::TFromD<D>* a, int a_step, const hn::TFromD<D>* b, int b_step,
                     hn::TFromD<D>* out, std::int64_t n, F f) {
  using T = hn::TFromD<D>;
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(d));
  auto load = [&](const T* p, int step, std::int64_t i) {
    return step == 0 ? hn::Set(d, *p) : hn::LoadU(d, p + i);
  };
  std::int64_t i = 0;
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(f(load(a, a_step, i), load(b, b_step, i)), d, out + i);
  if (i < n) {
    alignas(64) T xa[HWY_MAX_BYTES / sizeof(T)] = {};
    alignas(64) T xb[HWY_MAX_BYTES / sizeof(T)] = {};
    const std::size_t rest = static_cast<std::size_t>(n - i);
    for (std::size_t k = 0; k < rest; ++k) {
      xa[k] = a[a_step * (i + static_cast<std::int64_t>(k))];
      xb[k] = b[b_step * (i + static_cast<std::int64_t>(k))];
    }
    hn::StoreU(f(hn::LoadU(d, xa), hn::LoadU(d, xb)), d, xa);
    std::memcpy(out + i, xa, rest * sizeof(T));
  }
}

// ---- transcendental functions: SLEEF's u10 variant of the target's width, where one exists.
// The SLEEF symbols of this target's vector width: float and double variants.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
#define HETERO_SLEEF_F(fn) Sleef_##fn##f16_u10avx512f
#define HETERO_SLEEF_D(fn) Sleef_##fn##d8_u10avx512f
#elif HWY_ARCH_X86 && HWY_TARGET == HWY_AVX2
#define HETERO_SLEEF_F(fn) Sleef_##fn##f8_u10avx2
#define HETERO_SLEEF_D(fn) Sleef_##fn##d4_u10avx2
#elif HWY_ARCH_X86 && HWY_TARGET == HWY_SSE4
#define HETERO_SLEEF_F(fn) Sleef_##fn##f4_u10sse4
#define HETERO_SLEEF_D(fn) Sleef_##fn##d2_u10sse4
#endif
#ifdef HETERO_SLEEF_F
constexpr bool kHasMath = true;
#define HETERO_SLEEF_FN(fn)                                                                    \
  HWY_INLINE hn::Vec<hn::ScalableTag<float>> Sleef_##fn(hn::Vec<hn::ScalableTag<float>> v) {   \
    return {HETERO_SLEEF_F(fn)(v.raw)};                                                        \
  }                                                                                            \
  HWY_INLINE hn::Vec<hn::ScalableTag<double>> Sleef_##fn(hn::Vec<hn::ScalableTag<double>> v) { \
    return {HETERO_SLEEF_D(fn)(v.raw)};                                                        \
  }
#else
// No SLEEF build for this target: never called (kHasMath), only type-checked.
constexpr bool kHasMath = false;
#define HETERO_SLEEF_FN(fn)      \
  template <class V>             \
  HWY_INLINE V Sleef_##fn(V v) { \
    return v;                    \
  }
#endif
HETERO_SLEEF_FN(exp)
HETERO_SLEEF_FN(log)
HETERO_SLEEF_FN(tanh)
HETERO_SLEEF_FN(sin)
HETERO_SLEEF_FN(cos)
HETERO_SLEEF_FN(log1p)
HETERO_SLEEF_FN(expm1)
HETERO_SLEEF_FN(erf)
#undef HETERO_SLEEF_FN
#undef HETERO_SLEEF_F
#undef HETERO_SLEEF_D

// The op's vector rule on n dense elements of float or double (the scalar rules of
// op_table.hpp, in the same arithmetic); false where there is none.
template <class T>
bool unary_dense(UnaryOp op, const T* in, T* out, std::int64_t n) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  switch (op) {
    case UnaryOp::neg:
      map1(d, in, out, n, [](V v) { return hn::Neg(v); });
      return true;
    case UnaryOp::abs:
      map1(d, in, out, n, [](V v) { return hn::Abs(v); });
      return true;
    case UnaryOp::sqrt:
      map1(d, in, out, n, [](V v) { return hn::Sqrt(v); });
      return true;
    case UnaryOp::relu:  // x <= 0 is false for NaN, which passes through; -0 gives +0
      map1(d, in, out, n, [d](V v) { return hn::IfThenZeroElse(v <= hn::Zero(d), v); });
      return true;
#if HETERO_TARGET_INTERFACE_MINOR >= 5
    case UnaryOp::rsqrt:  // 1 / sqrt(x), both correctly rounded: the scalar rule bit for bit
      map1(d, in, out, n, [d](V v) { return hn::Set(d, T(1)) / hn::Sqrt(v); });
      return true;
#endif
#if HETERO_TARGET_INTERFACE_MINOR >= 11
    // Exact, as the scalar rules: 1 / x correctly rounded; floor, ceil, trunc and round (ties
    // to even, as rint in the default rounding mode) keep NaN and infinities, and the input's
    // sign (CopySign: Highway's SSSE3 emulation rounds through integers and loses -0, as in
    // ceil(-0.5) = -0).
    case UnaryOp::reciprocal:
      map1(d, in, out, n, [d](V v) { return hn::Set(d, T(1)) / v; });
      return true;
    case UnaryOp::floor:
      map1(d, in, out, n, [](V v) { return hn::CopySign(hn::Floor(v), v); });
      return true;
    case UnaryOp::ceil:
      map1(d, in, out, n, [](V v) { return hn::CopySign(hn::Ceil(v), v); });
      return true;
    case UnaryOp::round:
      map1(d, in, out, n, [](V v) { return hn::CopySign(hn::Round(v), v); });
      return true;
    case UnaryOp::trunc:
      map1(d, in, out, n, [](V v) { return hn::CopySign(hn::Trunc(v), v); });
      return true;
    case UnaryOp::sign:  // 1, -1, or 0 for 0 and NaN (both comparisons false)
      map1(d, in, out, n, [d](V v) {
        return hn::IfThenElse(v > hn::Zero(d), hn::Set(d, T(1)),
                              hn::IfThenElseZero(v < hn::Zero(d), hn::Set(d, T(-1))));
      });
      return true;
#endif
    default:
      break;
  }
  if constexpr (!kHasMath) return false;
  switch (op) {
    case UnaryOp::exp:
      map1(d, in, out, n, [](V v) { return Sleef_exp(v); });
      return true;
    case UnaryOp::log:
      map1(d, in, out, n, [](V v) { return Sleef_log(v); });
      return true;
    case UnaryOp::tanh:
      map1(d, in, out, n, [](V v) { return Sleef_tanh(v); });
      return true;
    case UnaryOp::sigmoid: {  // 1 / (1 + exp(-x))
      map1(d, in, out, n, [d](V v) {
        const V one = hn::Set(d, T(1));
        return one / (one + Sleef_exp(hn::Neg(v)));
      });
      return true;
    }
#if HETERO_TARGET_INTERFACE_MINOR >= 1
    case UnaryOp::sin:
      map1(d, in, out, n, [](V v) { return Sleef_sin(v); });
      return true;
    case UnaryOp::cos:
      map1(d, in, out, n, [](V v) { return Sleef_cos(v); });
      return true;
#endif
#if HETERO_TARGET_INTERFACE_MINOR >= 5
    case UnaryOp::log1p:
      map1(d, in, out, n, [](V v) { return Sleef_log1p(v); });
      return true;
    case UnaryOp::expm1:
      map1(d, in, out, n, [](V v) { return Sleef_expm1(v); });
      return true;
#endif
#if HETERO_TARGET_INTERFACE_MINOR >= 11
    case UnaryOp::erf:
      map1(d, in, out, n, [](V v) { return Sleef_erf(v); });
      return true;
#endif
    default:
      return false;
  }
}

template <class T>
bool binary_dense(BinaryOp op, const T* a, int sa, const T* b, int sb, T* out, std::int64_t n) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  switch (op) {
    case BinaryOp::add:
      map2(d, a, sa, b, sb, out, n, [](V x, V y) { return x + y; });
      return true;
    case BinaryOp::sub:
      map2(d, a, sa, b, sb, out, n, [](V x, V y) { return x - y; });
      return true;
    case BinaryOp::mul:
      map2(d, a, sa, b, sb, out, n, [](V x, V y) { return x * y; });
      return true;
    case BinaryOp::div:
      map2(d, a, sa, b, sb, out, n, [](V x, V y) { return x / y; });
      return true;
    case BinaryOp::maximum:  // (x != x || x > y) ? x : y: a NaN on either side wins
      map2(d, a, sa, b, sb, out, n,
           [](V x, V y) { return hn::IfThenElse(hn::Or(hn::IsNaN(x), x > y), x, y); });
      return true;
    case BinaryOp::minimum:
      map2(d, a, sa, b, sb, out, n,
           [](V x, V y) { return hn::IfThenElse(hn::Or(hn::IsNaN(x), x < y), x, y); });
      return true;
    // Comparisons: 1 or 0 in T (IEEE: every comparison with NaN is false but !=).
    case BinaryOp::eq:
      map2(d, a, sa, b, sb, out, n,
           [d](V x, V y) { return hn::IfThenElseZero(x == y, hn::Set(d, T(1))); });
      return true;
    case BinaryOp::ne:
      map2(d, a, sa, b, sb, out, n,
           [d](V x, V y) { return hn::IfThenZeroElse(x == y, hn::Set(d, T(1))); });
      return true;
    case BinaryOp::lt:
      map2(d, a, sa, b, sb, out, n,
           [d](V x, V y) { return hn::IfThenElseZero(x < y, hn::Set(d, T(1))); });
      return true;
    case BinaryOp::le:
      map2(d, a, sa, b, sb, out, n,
           [d](V x, V y) { return hn::IfThenElseZero(x <= y, hn::Set(d, T(1))); });
      return true;
    case BinaryOp::gt:
      map2(d, a, sa, b, sb, out, n,
           [d](V x, V y) { return hn::IfThenElseZero(x > y, hn::Set(d, T(1))); });
      return true;
    case BinaryOp::ge:
      map2(d, a, sa, b, sb, out, n,
           [d](V x, V y) { return hn::IfThenElseZero(x >= y, hn::Set(d, T(1))); });
      return true;
    default:  // pow, atan2: the scalar rules (C pow, atan2), which SLEEF's would not match bit
      return false;  // for bit
  }
}

// ---- conversions
// float16 <-> float32 with F16C (AVX2 and newer); Highway's SSE4 emulation truncates.
constexpr bool kHasF16C = HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2;

void f16_to_f32(const std::uint16_t* in, float* out, std::int64_t n) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<hwy::float16_t, decltype(df)> dh;
  const auto* src = reinterpret_cast<const hwy::float16_t*>(in);
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(df));
  std::int64_t i = 0;
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(hn::PromoteTo(df, hn::LoadU(dh, src + i)), df, out + i);
  if (i < n) {
    alignas(64) hwy::float16_t buf[HWY_MAX_BYTES / 4] = {};
    alignas(64) float res[HWY_MAX_BYTES / 4];
    std::memcpy(buf, src + i, static_cast<std::size_t>(n - i) * 2);
    hn::StoreU(hn::PromoteTo(df, hn::LoadU(dh, buf)), df, res);
    std::memcpy(out + i, res, static_cast<std::size_t>(n - i) * 4);
  }
}

// NaN becomes the quiet NaN 0x7E00 with the input's sign, as the scalar rule
// (fp16_ieee_from_fp32_value); F16C alone would keep the payload's upper bits.
void f32_to_f16(const float* in, std::uint16_t* out, std::int64_t n) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<hwy::float16_t, decltype(df)> dh;
  auto* dst = reinterpret_cast<hwy::float16_t*>(out);
  const auto quiet_nan =
      hn::BitCast(df, hn::Set(hn::RebindToUnsigned<decltype(df)>(), 0x7FC00000u));
  auto narrow = [&](hn::Vec<decltype(df)> v) {
    return hn::DemoteTo(dh, hn::IfThenElse(hn::IsNaN(v), hn::CopySign(quiet_nan, v), v));
  };
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(df));
  std::int64_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(narrow(hn::LoadU(df, in + i)), dh, dst + i);
  if (i < n) {
    alignas(64) float buf[HWY_MAX_BYTES / 4] = {};
    alignas(64) hwy::float16_t res[HWY_MAX_BYTES / 4];
    std::memcpy(buf, in + i, static_cast<std::size_t>(n - i) * 4);
    hn::StoreU(narrow(hn::LoadU(df, buf)), dh, res);
    std::memcpy(dst + i, res, static_cast<std::size_t>(n - i) * 2);
  }
}

void bf16_to_f32(const std::uint16_t* in, float* out, std::int64_t n) {
  const hn::ScalableTag<float> df;
  const hn::RebindToUnsigned<decltype(df)> du32;
  const hn::Rebind<std::uint16_t, decltype(df)> du16;
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(df));
  auto widen = [&](auto h) { return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du32, h))); };
  std::int64_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(widen(hn::LoadU(du16, in + i)), df, out + i);
  for (; i < n; ++i) {
    const std::uint32_t u = static_cast<std::uint32_t>(in[i]) << 16;
    std::memcpy(out + i, &u, 4);
  }
}

// Round to nearest even on the upper 16 bits, NaN as the quiet NaN 0x7FC0: the rule of
// hetero::BFloat16::from_float (Highway 1.0's DemoteTo truncates).
void f32_to_bf16(const float* in, std::uint16_t* out, std::int64_t n) {
  const hn::ScalableTag<float> df;
  const hn::RebindToUnsigned<decltype(df)> du32;
  const hn::RebindToSigned<decltype(df)> di32;
  const hn::Rebind<std::uint16_t, decltype(df)> du16;
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(df));
  auto narrow = [&](hn::Vec<decltype(df)> v) {
    const auto u = hn::BitCast(du32, v);
    const auto lsb = hn::And(hn::ShiftRight<16>(u), hn::Set(du32, 1u));
    const auto rounded = hn::ShiftRight<16>(u + hn::Set(du32, 0x7FFFu) + lsb);
    const auto bits =
        hn::IfThenElse(hn::RebindMask(du32, hn::IsNaN(v)), hn::Set(du32, 0x7FC0u), rounded);
    return hn::DemoteTo(du16, hn::BitCast(di32, bits));  // values < 2^16: exact
  };
  std::int64_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(narrow(hn::LoadU(df, in + i)), du16, out + i);
  if (i < n) {
    alignas(64) float buf[HWY_MAX_BYTES / 4] = {};
    alignas(64) std::uint16_t res[HWY_MAX_BYTES / 4];
    std::memcpy(buf, in + i, static_cast<std::size_t>(n - i) * 4);
    hn::StoreU(narrow(hn::LoadU(df, buf)), du16, res);
    std::memcpy(out + i, res, static_cast<std::size_t>(n - i) * 2);
  }
}

void f32_to_f64(const float* in, double* out, std::int64_t n) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(dd));
  std::int64_t i = 0;
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(hn::PromoteTo(dd, hn::LoadU(df, in + i)), dd, out + i);
  for (; i < n; ++i) out[i] = static_cast<double>(in[i]);
}

void f64_to_f32(const double* in, float* out, std::int64_t n) {
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
bool to_f32(DType from, const void* in, float* out, std::int64_t n) {
  const auto* p = static_cast<const std::uint16_t*>(in);
  if (from == DType::bfloat16) return bf16_to_f32(p, out, n), true;
  if (from == DType::float16 && kHasF16C) return f16_to_f32(p, out, n), true;
  return false;
}
bool from_f32(DType to, const float* in, void* out, std::int64_t n) {
  auto* p = static_cast<std::uint16_t*>(out);
  if (to == DType::bfloat16) return f32_to_bf16(in, p, n), true;
  if (to == DType::float16 && kHasF16C) return f32_to_f16(in, p, n), true;
  return false;
}

bool ConvertImpl(DType from, DType to, const void* in, void* out, std::int64_t n) {
  if (from == DType::float32 && to == DType::float64)
    return f32_to_f64(static_cast<const float*>(in), static_cast<double*>(out), n), true;
  if (from == DType::float64 && to == DType::float32)
    return f64_to_f32(static_cast<const double*>(in), static_cast<float*>(out), n), true;
  if (from == DType::float32 && ::hetero::is_half(to))
    return from_f32(to, static_cast<const float*>(in), out, n);
  if (::hetero::is_half(from) && to == DType::float32)
    return to_f32(from, in, static_cast<float*>(out), n);
  return false;
}

// ---- entry points
bool UnaryImpl(UnaryOp op, DType dtype, const void* in, void* out, std::int64_t n) {
  if (dtype == DType::float32)
    return unary_dense(op, static_cast<const float*>(in), static_cast<float*>(out), n);
  if (dtype == DType::float64)
    return unary_dense(op, static_cast<const double*>(in), static_cast<double*>(out), n);
  if (!::hetero::is_half(dtype) || (dtype == DType::float16 && !kHasF16C)) return false;
  // 16-bit input: blocks widened to float32, the float32 rule, each result rounded once.
  alignas(64) float block[kBlock];
  const auto* src = static_cast<const std::uint16_t*>(in);
  auto* dst = static_cast<std::uint16_t*>(out);
  for (std::int64_t i = 0; i < n; i += kBlock) {
    const std::int64_t m = std::min(kBlock, n - i);
    to_f32(dtype, src + i, block, m);
    if (!unary_dense(op, block, block, m)) return false;  // only on the first block
    from_f32(dtype, block, dst + i, m);
  }
  return true;
}

bool BinaryImpl(BinaryOp op, DType dtype, const void* a, int sa, const void* b, int sb, void* out,
                std::int64_t n) {
  if (dtype == DType::float32)
    return binary_dense(op, static_cast<const float*>(a), sa, static_cast<const float*>(b), sb,
                        static_cast<float*>(out), n);
  if (dtype == DType::float64)
    return binary_dense(op, static_cast<const double*>(a), sa, static_cast<const double*>(b), sb,
                        static_cast<double*>(out), n);
  if (!::hetero::is_half(dtype) || (dtype == DType::float16 && !kHasF16C)) return false;
  alignas(64) float xa[kBlock];
  alignas(64) float xb[kBlock];
  alignas(64) float res[kBlock];  // apart from xa and xb: a broadcast input is read throughout
  const auto* pa = static_cast<const std::uint16_t*>(a);
  const auto* pb = static_cast<const std::uint16_t*>(b);
  auto* dst = static_cast<std::uint16_t*>(out);
  for (std::int64_t i = 0; i < n; i += kBlock) {
    const std::int64_t m = std::min(kBlock, n - i);
    to_f32(dtype, pa + i * sa, xa, sa ? m : 1);
    to_f32(dtype, pb + i * sb, xb, sb ? m : 1);
    if (!binary_dense(op, xa, sa, xb, sb, res, m)) return false;  // only on the first block
    from_f32(dtype, res, dst + i, m);
  }
  return true;
}

// Lanes(d) elements from p as d's 64-bit lanes: loaded, or promoted from 32-bit ones
// (float to double, int32 to int64).
template <class D, class T>
HWY_INLINE hn::Vec<D> load_wide(D d, const T* p) {
  if constexpr (sizeof(T) == sizeof(hn::TFromD<D>))
    return hn::LoadU(d, p);
  else
    return hn::PromoteTo(d, hn::LoadU(hn::Rebind<T, D>(), p));
}

// Dense sum in double, four vector accumulators (float32 widened lane by lane), combined in
// a fixed order.
template <class T>
double sum_dense(const T* in, std::int64_t n) {
  const hn::ScalableTag<double> dd;
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(dd));
  auto load = [&](std::int64_t i) { return load_wide(dd, in + i); };
  auto s0 = hn::Zero(dd), s1 = hn::Zero(dd), s2 = hn::Zero(dd), s3 = hn::Zero(dd);
  std::int64_t i = 0;
  for (; i + 4 * lanes <= n; i += 4 * lanes) {
    s0 = s0 + load(i);
    s1 = s1 + load(i + lanes);
    s2 = s2 + load(i + 2 * lanes);
    s3 = s3 + load(i + 3 * lanes);
  }
  for (; i + lanes <= n; i += lanes) s0 = s0 + load(i);
  alignas(64) double part[HWY_MAX_BYTES / 8];
  hn::StoreU((s0 + s1) + (s2 + s3), dd, part);
  double total = 0;
  for (std::int64_t k = 0; k < lanes; ++k) total += part[k];
  for (; i < n; ++i) total += static_cast<double>(in[i]);
  return total;
}

// float16 / bfloat16 input of the reductions: blocks of kWideBlock widened to float32
// (exactly), each handed to f(block, count).
constexpr std::int64_t kWideBlock = 2048;  // 8 KiB of float32, in L1

template <class F>
bool widened_blocks(DType dtype, const void* in, std::int64_t n, F f) {
  if (!((dtype == DType::float16 && kHasF16C) || dtype == DType::bfloat16)) return false;
  alignas(64) float block[kWideBlock];
  const auto* p = static_cast<const std::uint16_t*>(in);
  for (std::int64_t i = 0; i < n; i += kWideBlock) {
    const std::int64_t m = std::min(kWideBlock, n - i);
    (dtype == DType::bfloat16 ? bf16_to_f32 : f16_to_f32)(p + i, block, m);
    f(block, i, m);
  }
  return true;
}

bool SumImpl(DType dtype, const void* in, std::int64_t n, double* result) {
  if (dtype == DType::float32) return *result = sum_dense(static_cast<const float*>(in), n), true;
  if (dtype == DType::float64) return *result = sum_dense(static_cast<const double*>(in), n), true;
  double total = 0;  // 16-bit input: the blocks' sums added in order
  const bool done = widened_blocks(
      dtype, in, n,
      [&](const float* block, std::int64_t, std::int64_t m) { total += sum_dense(block, m); });
  return done && (*result = total, true);
}

template <class T>
void accumulate_dense(const T* in, double* acc, std::int64_t n) {
  const hn::ScalableTag<double> dd;
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(dd));
  std::int64_t j = 0;
  for (; j + lanes <= n; j += lanes)
    hn::StoreU(hn::LoadU(dd, acc + j) + load_wide(dd, in + j), dd, acc + j);
  for (; j < n; ++j) acc[j] += static_cast<double>(in[j]);
}

bool AccumulateImpl(DType dtype, const void* in, double* acc, std::int64_t n) {
  if (dtype == DType::float32) return accumulate_dense(static_cast<const float*>(in), acc, n), true;
  if (dtype == DType::float64)
    return accumulate_dense(static_cast<const double*>(in), acc, n), true;
  return widened_blocks(dtype, in, n, [acc](const float* block, std::int64_t i, std::int64_t m) {
    accumulate_dense(block, acc + i, m);
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

bool ExtremeIntImpl(bool min, DType dtype, const void* in, std::int64_t n, std::int64_t* result) {
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
bool extreme_into_dense(const T* in, T* best, std::int64_t n) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(d));
  auto pick = [](V x, V b) { return Min ? hn::Min(x, b) : hn::Max(x, b); };
  const V zero = hn::Zero(d);
  V z0 = zero, z1 = zero;
  std::int64_t j = 0;
  for (; j + 2 * lanes <= n; j += 2 * lanes) {
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

bool ExtremeIntoImpl(bool min, DType dtype, const void* in, void* best, std::int64_t n,
                     bool* maybe_nan) {
  if (!kMaxKeepsSecondOperand) return false;
  auto run = [&](auto* b) {  // b: float or double
    const auto* p = static_cast<const std::remove_pointer_t<decltype(b)>*>(in);
    *maybe_nan = min ? extreme_into_dense<true>(p, b, n) : extreme_into_dense<false>(p, b, n);
    return true;
  };
  if (dtype == DType::float32) return run(static_cast<float*>(best));
  if (dtype == DType::float64) return run(static_cast<double*>(best));
  return false;
}

// Min or max over n >= 1 dense elements in four vector accumulators. NaNs are noted apart
// (the instructions' NaN rules differ by target; the caller's rule is "any NaN wins"), in
// two passes: the fast one folds the elements times 0 into a sum, which turns NaN on a NaN
// or an infinity (three fused multiply-adds per four vectors instead of a compare and an or
// per vector: the check costs memory-bound time, 7-8% for one per vector and 4% for these
// three, measured on 64 MiB float32 with 2 threads); only when it does are the elements
// tested one by one for NaN.
template <bool Min, class T>
void extreme_dense(const T* in, std::int64_t n, double* result, bool* has_nan) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(d));
  auto pick = [](V a, V b) { return Min ? hn::Min(a, b) : hn::Max(a, b); };
  const V first = hn::Set(d, in[0]), zero = hn::Zero(d);
  V a0 = first, a1 = first, a2 = first, a3 = first;
  V z0 = zero, z1 = zero;  // NaN once a NaN or an infinity was seen
  std::int64_t i = 0;
  for (; i + 4 * lanes <= n; i += 4 * lanes) {
    const V x0 = hn::LoadU(d, in + i), x1 = hn::LoadU(d, in + i + lanes);
    const V x2 = hn::LoadU(d, in + i + 2 * lanes), x3 = hn::LoadU(d, in + i + 3 * lanes);
    a0 = pick(a0, x0);
    a1 = pick(a1, x1);
    a2 = pick(a2, x2);
    a3 = pick(a3, x3);
    // x0 * x1 + x2 covers three vectors in one instruction; an overflow to infinity
    // (|x| > ~1.8e19 in float32) only costs a rescan, it hides no NaN.
    z0 = hn::MulAdd(hn::MulAdd(x0, x1, x2), zero, z0);
    z1 = hn::MulAdd(x3, zero, z1);
  }
  for (; i + lanes <= n; i += lanes) {
    const V x = hn::LoadU(d, in + i);
    a0 = pick(a0, x);
    z0 = hn::MulAdd(x, zero, z0);
  }
  alignas(64) T part[HWY_MAX_BYTES / sizeof(T)];
  hn::StoreU(pick(pick(a0, a1), pick(a2, a3)), d, part);
  T best = part[0];
  bool any_nan = false;
  if (!hn::AllFalse(d, hn::IsNaN(z0 + z1))) {  // a NaN or an infinity: look for NaNs
    auto nan = hn::IsNaN(first);
    for (std::int64_t k = 0; k + lanes <= i; k += lanes)
      nan = hn::Or(nan, hn::IsNaN(hn::LoadU(d, in + k)));
    any_nan = !hn::AllFalse(d, nan);
  }
  for (std::int64_t k = 1; k < lanes; ++k)
    best = (Min ? part[k] < best : best < part[k]) ? part[k] : best;
  for (; i < n; ++i) {
    const T x = in[i];
    any_nan = any_nan || x != x;
    best = (Min ? x < best : best < x) ? x : best;
  }
  *result = static_cast<double>(best);
  *has_nan = any_nan;
}

// float16 / bfloat16: blocks widened to float32, then the float32 kernel per block.
template <bool Min>
bool extreme_widened(DType dtype, const void* in, std::int64_t n, double* result, bool* has_nan) {
  *has_nan = false;
  return widened_blocks(dtype, in, n, [&](const float* block, std::int64_t i, std::int64_t m) {
    double r = 0;
    bool nan = false;
    extreme_dense<Min>(block, m, &r, &nan);
    *has_nan = *has_nan || nan;
    if (i == 0 || (Min ? r < *result : *result < r)) *result = r;
  });
}

bool ExtremeImpl(bool min, DType dtype, const void* in, std::int64_t n, double* result,
                 bool* has_nan) {
  if (::hetero::is_half(dtype))
    return min ? extreme_widened<true>(dtype, in, n, result, has_nan)
               : extreme_widened<false>(dtype, in, n, result, has_nan);
  if (dtype == DType::float32) {
    const auto* p = static_cast<const float*>(in);
    return (min ? extreme_dense<true>(p, n, result, has_nan)
                : extreme_dense<false>(p, n, result, has_nan)),
           true;
  }
  if (dtype == DType::float64) {
    const auto* p = static_cast<const double*>(in);
    return (min ? extreme_dense<true>(p, n, result, has_nan)
                : extreme_dense<false>(p, n, result, has_nan)),
           true;
  }
  return false;
}

#if HWY_TARGET == HWY_SCALAR
template <class T>
bool softmax_dense(bool, const T*, T*, std::int64_t) {
  return false;  // one lane: no vector exp, no halves
}
#else
// Adds the lanes of v (float or double) to the float64 lanes of sum.
template <class DD, class V>
HWY_INLINE hn::Vec<DD> add_widened(DD dd, hn::Vec<DD> sum, V v) {
  if constexpr (sizeof(hn::TFromV<V>) == 8) {
    return sum + v;
  } else {
    const hn::Half<hn::DFromV<V>> dh;
    return sum + hn::PromoteTo(dd, hn::LowerHalf(dh, v)) + hn::PromoteTo(dd, hn::UpperHalf(dh, v));
  }
}

template <class T>
bool softmax_dense(bool log, const T* in, T* out, std::int64_t n) {
  if constexpr (!kHasMath) {
    return false;
  } else {
    const hn::ScalableTag<T> d;
    using V = hn::Vec<decltype(d)>;
    // The sum's lanes: float64, as many as T's for double, half as many (widened) for float.
    using DSum = std::conditional_t<sizeof(T) == 8, hn::ScalableTag<double>,
                                    hn::Rebind<double, hn::Half<decltype(d)>>>;
    const std::int64_t lanes = static_cast<std::int64_t>(hn::Lanes(d));
    double max = 0;
    bool nan = false;
    extreme_dense<false>(in, n, &max, &nan);
    if (nan) {
      std::fill(out, out + n, std::numeric_limits<T>::quiet_NaN());
      return true;
    }
    // x - max: <= 0, or NaN throughout the line when max is +-inf (as the composition).
    const V vmax = hn::Set(d, static_cast<T>(max));
    auto sum = hn::Zero(DSum());
    std::int64_t i = 0;
    for (; i + lanes <= n; i += lanes) {
      const V e = Sleef_exp(hn::LoadU(d, in + i) - vmax);
      if (!log) hn::StoreU(e, d, out + i);
      sum = add_widened(DSum(), sum, e);
    }
    alignas(64) T tail[HWY_MAX_BYTES / sizeof(T)];
    if (i < n) {  // padded with -inf: adds exp(-inf) = 0, or NaN where the line is NaN anyway
      std::fill(std::begin(tail), std::end(tail), -std::numeric_limits<T>::infinity());
      std::copy(in + i, in + n, tail);
      const V e = Sleef_exp(hn::LoadU(d, tail) - vmax);
      hn::StoreU(e, d, tail);
      sum = add_widened(DSum(), sum, e);
    }
    alignas(64) double parts[HWY_MAX_BYTES / 8];
    hn::StoreU(sum, DSum(), parts);
    double total = 0;
    for (std::size_t k = 0; k < hn::Lanes(DSum()); ++k) total += parts[k];
    if (log) {  // (x - max) - log(sum), as torch: max + log(sum) rounded first lost x - max
      const V log_sum = hn::Set(d, static_cast<T>(std::log(total)));
      map1(d, in, out, n, [vmax, log_sum](V x) { return (x - vmax) - log_sum; });
    } else {
      if (i < n) std::copy(tail, tail + (n - i), out + i);
      const V vsum = hn::Set(d, static_cast<T>(total));
      map1(d, out, out, n, [vsum](V e) { return e / vsum; });
    }
    return true;
  }
}

#endif

bool SoftmaxImpl(bool log, DType dtype, const void* in, void* out, std::int64_t n) {
  if (dtype == DType::float32)
    return softmax_dense(log, static_cast<const float*>(in), static_cast<float*>(out), n);
  if (dtype == DType::float64)
    return softmax_dense(log, static_cast<const double*>(in), static_cast<double*>(out), n);
  return false;
}

const char* TargetNameImpl() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace hetero::cpu::vec
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace hetero::cpu::vec {

HWY_EXPORT(UnaryImpl);
HWY_EXPORT(BinaryImpl);
HWY_EXPORT(ConvertImpl);
HWY_EXPORT(SumImpl);
HWY_EXPORT(ExtremeImpl);
HWY_EXPORT(ExtremeIntoImpl);
HWY_EXPORT(SumIntImpl);
HWY_EXPORT(AccumulateIntImpl);
HWY_EXPORT(ExtremeIntImpl);
HWY_EXPORT(AccumulateImpl);
HWY_EXPORT(SoftmaxImpl);
HWY_EXPORT(TargetNameImpl);

bool unary(UnaryOp op, DType dtype, const void* in, void* out, std::int64_t n) {
  return HWY_DYNAMIC_DISPATCH(UnaryImpl)(op, dtype, in, out, n);
}
bool binary(BinaryOp op, DType dtype, const void* a, int a_step, const void* b, int b_step,
            void* out, std::int64_t n) {
  return HWY_DYNAMIC_DISPATCH(BinaryImpl)(op, dtype, a, a_step, b, b_step, out, n);
}
bool convert(DType from, DType to, const void* in, void* out, std::int64_t n) {
  return HWY_DYNAMIC_DISPATCH(ConvertImpl)(from, to, in, out, n);
}
bool sum(DType dtype, const void* in, std::int64_t n, double* result) {
  return HWY_DYNAMIC_DISPATCH(SumImpl)(dtype, in, n, result);
}
bool accumulate(DType dtype, const void* in, double* acc, std::int64_t n) {
  return HWY_DYNAMIC_DISPATCH(AccumulateImpl)(dtype, in, acc, n);
}
bool softmax(bool log, DType dtype, const void* in, void* out, std::int64_t n) {
  return HWY_DYNAMIC_DISPATCH(SoftmaxImpl)(log, dtype, in, out, n);
}
bool extreme(bool min, DType dtype, const void* in, std::int64_t n, double* result, bool* has_nan) {
  return HWY_DYNAMIC_DISPATCH(ExtremeImpl)(min, dtype, in, n, result, has_nan);
}
bool extreme_into(bool min, DType dtype, const void* in, void* best, std::int64_t n,
                  bool* maybe_nan) {
  return HWY_DYNAMIC_DISPATCH(ExtremeIntoImpl)(min, dtype, in, best, n, maybe_nan);
}
bool sum_int(DType dtype, const void* in, std::int64_t n, std::int64_t* result) {
  return HWY_DYNAMIC_DISPATCH(SumIntImpl)(dtype, in, n, result);
}
bool accumulate_int(DType dtype, const void* in, std::int64_t* acc, std::int64_t n) {
  return HWY_DYNAMIC_DISPATCH(AccumulateIntImpl)(dtype, in, acc, n);
}
bool extreme_int(bool min, DType dtype, const void* in, std::int64_t n, std::int64_t* result) {
  return HWY_DYNAMIC_DISPATCH(ExtremeIntImpl)(min, dtype, in, n, result);
}
const char* target_name() { return HWY_DYNAMIC_DISPATCH(TargetNameImpl)(); }

}  // namespace hetero::cpu::vec
#endif
