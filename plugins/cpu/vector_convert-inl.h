// SPDX-License-Identifier: Apache-2.0
// Dense conversions between float32 and float16, bfloat16 and float64, with the scalar
// rules' rounding (Note [Vector kernels]); the 16-bit element-wise and reduction paths
// widen through them.
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

#include <hetero/dtype.hpp>

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace hetero::cpu::vec {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// float16 <-> float32 with F16C (AVX2 and newer); Highway's SSE4 emulation truncates.
constexpr bool kHasF16C = HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2;

inline void f16_to_f32(const std::uint16_t* in, float* out, std::int64_t n) {
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
inline void f32_to_f16(const float* in, std::uint16_t* out, std::int64_t n) {
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

inline void bf16_to_f32(const std::uint16_t* in, float* out, std::int64_t n) {
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
inline void f32_to_bf16(const float* in, std::uint16_t* out, std::int64_t n) {
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
  if (from == DType::bfloat16) return bf16_to_f32(p, out, n), true;
  if (from == DType::float16 && kHasF16C) return f16_to_f32(p, out, n), true;
  return false;
}
inline bool from_f32(DType to, const float* in, void* out, std::int64_t n) {
  auto* p = static_cast<std::uint16_t*>(out);
  if (to == DType::bfloat16) return f32_to_bf16(in, p, n), true;
  if (to == DType::float16 && kHasF16C) return f32_to_f16(in, p, n), true;
  return false;
}

}  // namespace HWY_NAMESPACE
}  // namespace hetero::cpu::vec
HWY_AFTER_NAMESPACE();

#endif  // HETERO_CPU_VECTOR_CONVERT_INL_H_
