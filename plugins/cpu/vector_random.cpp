// SPDX-License-Identifier: Apache-2.0
// vec::random: the counter stream of <hetero/sdk/counter_rng.hpp> in vector lanes, one
// counter per 64-bit lane. Philox4x32-10 needs 32 x 32 -> 64-bit products, which MulEven
// gives on every target, and otherwise xors and shifts: the lanes' bits are the scalar
// rng::mix's. Scalar, the generator took 10 ns per float32 uniform and 40 ns per normal on an
// AVX-512 Xeon (randn of 16M float32: 0.70 s against libtorch's 0.18 s).
#include <cstdint>

#include "vector_kernels.hpp"

// clang-format off: the order of these includes is Highway's protocol.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "vector_random.cpp"
#include <hwy/foreach_target.h>
#include <hwy/highway.h>
// clang-format on

#include "vector_sleef-inl.h"

HWY_BEFORE_NAMESPACE();
namespace hetero::cpu::vec {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR  // the scalar target cannot split a 64-bit lane into 32-bit ones
using D64 = hn::ScalableTag<std::uint64_t>;
using V64 = hn::Vec<D64>;

// rng::mix(seed, c) for the counters c in the lanes of `ctr`: Philox4x32-10 of the counter
// {lo(c), hi(c), 0, 0} under the key {lo(seed), hi(seed)} (Random123's philox4x32_R: each
// round (hi0, lo0) = M0 * x0, (hi1, lo1) = M1 * x2, x = {hi1 ^ x1 ^ k0, lo1, hi0 ^ x3 ^ k1,
// lo0}, the key bumped by the Weyl constants between rounds), words 1 and 0 as high and low
// half. Each 32-bit word is kept in the low half of a 64-bit lane.
HWY_INLINE V64 philox_mix(std::uint64_t seed, V64 ctr) {
  const D64 d;
  const hn::Repartition<std::uint32_t, D64> d32;
  const V64 low32 = hn::Set(d, 0xFFFFFFFFull);
  const auto m0 = hn::BitCast(d32, hn::Set(d, std::uint64_t{0xD2511F53u}));
  const auto m1 = hn::BitCast(d32, hn::Set(d, std::uint64_t{0xCD9E8D57u}));
  V64 x0 = hn::And(ctr, low32), x1 = hn::ShiftRight<32>(ctr), x2 = hn::Zero(d), x3 = hn::Zero(d);
  auto k0 = static_cast<std::uint32_t>(seed), k1 = static_cast<std::uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    const V64 p0 = hn::MulEven(hn::BitCast(d32, x0), m0);
    const V64 p1 = hn::MulEven(hn::BitCast(d32, x2), m1);
    const V64 y0 = hn::Xor(hn::Xor(hn::ShiftRight<32>(p1), x1), hn::Set(d, std::uint64_t{k0}));
    const V64 y2 = hn::Xor(hn::Xor(hn::ShiftRight<32>(p0), x3), hn::Set(d, std::uint64_t{k1}));
    x1 = hn::And(p1, low32);
    x3 = hn::And(p0, low32);
    x0 = y0;
    x2 = y2;
    k0 += 0x9E3779B9u;  // PHILOX_W32_0, PHILOX_W32_1 (unsigned: wraps as Random123's)
    k1 += 0xBB67AE85u;
  }
  return hn::Or(hn::ShiftLeft<32>(x1), x0);
}

// The top `53` or `24` bits of each lane as a double in [0, 1) (rng::uniform_double /
// uniform_float: exact, the integers are below 2^53).
template <int Shift>
HWY_INLINE hn::Vec<hn::ScalableTag<double>> unit(V64 bits, double scale) {
  const hn::ScalableTag<double> dd;
  const hn::RebindToSigned<D64> di;
  return hn::Mul(hn::ConvertTo(dd, hn::BitCast(di, hn::ShiftRight<Shift>(bits))),
                 hn::Set(dd, scale));
}

template <class T>
void store(hn::Vec<hn::ScalableTag<double>> v, T* out) {
  const hn::ScalableTag<double> dd;
  if constexpr (sizeof(T) == sizeof(double)) {
    hn::StoreU(v, dd, out);
  } else {
    const hn::Rebind<float, decltype(dd)> df;
    hn::StoreU(hn::DemoteTo(df, v), df, out);  // exact for uniforms; rounds a normal once
  }
}

// Elements first .. first + lanes - 1 of the call (seed, offset) into out[0, lanes).
template <class T>
void fill_vector(RandomDistribution dist, T* out, std::uint64_t seed, std::uint64_t offset,
                 std::uint64_t first) {
  const D64 d;
  const hn::ScalableTag<double> dd;
  const V64 iota = hn::Iota(d, 0);
  if (dist == RandomDistribution::uniform) {
    const V64 bits = philox_mix(seed, hn::Add(hn::Set(d, offset + first), iota));
    store(sizeof(T) == sizeof(double) ? unit<11>(bits, 0x1.0p-53) : unit<40>(bits, 0x1.0p-24), out);
    return;
  }
  // Box-Muller as rng::normal_at: counters offset + 2i and offset + 2i + 1.
  const V64 base = hn::Add(hn::Set(d, offset + 2 * first), hn::Add(iota, iota));
  const auto u1 = hn::Sub(hn::Set(dd, 1.0), unit<11>(philox_mix(seed, base), 0x1.0p-53));
  const auto u2 = unit<11>(philox_mix(seed, hn::Add(base, hn::Set(d, 1))), 0x1.0p-53);
  constexpr double two_pi = 6.283185307179586476925286766559;
  const auto radius = hn::Sqrt(hn::Mul(hn::Set(dd, -2.0), Sleef_log_u35(u1)));
  store(hn::Mul(radius, Sleef_cos_u35(hn::Mul(hn::Set(dd, two_pi), u2))), out);
}

// Every element through the vector code, a partial last vector computed whole and cut: an
// element's value is a function of its counter alone, never of where a call (or a thread's
// share of it) starts or ends (conformance RandomIsReproducibleAndSplittable), which a
// scalar tail with libm's log and cos broke in the last bits.
template <class T>
void fill(RandomDistribution dist, T* out, std::int64_t n, std::uint64_t seed, std::uint64_t offset,
          std::uint64_t first) {
  const auto lanes = static_cast<std::int64_t>(hn::Lanes(D64()));
  std::int64_t j = 0;
  for (; j + lanes <= n; j += lanes)
    fill_vector(dist, out + j, seed, offset, first + static_cast<std::uint64_t>(j));
  if (j == n) return;
  alignas(64) T last[HWY_MAX_BYTES / sizeof(std::uint64_t)];
  fill_vector(dist, last, seed, offset, first + static_cast<std::uint64_t>(j));
  for (std::int64_t k = 0; j + k < n; ++k) out[j + k] = last[k];
}

#endif  // HWY_TARGET != HWY_SCALAR

bool RandomImpl(RandomDistribution dist, DType dtype, void* out, std::int64_t n, std::uint64_t seed,
                std::uint64_t offset, std::uint64_t first) {
#if HWY_TARGET == HWY_SCALAR
  (void)dist, (void)dtype, (void)out, (void)n, (void)seed, (void)offset, (void)first;
  return false;  // the scalar loop of kernels::random
#else
  if (dist == RandomDistribution::normal && !kHasMath) return false;  // libm's, per element
  if (dtype == DType::float32)
    return fill(dist, static_cast<float*>(out), n, seed, offset, first), true;
  if (dtype == DType::float64)
    return fill(dist, static_cast<double*>(out), n, seed, offset, first), true;
  return false;
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace hetero::cpu::vec
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace hetero::cpu::vec {

HWY_EXPORT(RandomImpl);

bool random(RandomDistribution dist, DType dtype, void* out, std::int64_t n, std::uint64_t seed,
            std::uint64_t offset, std::uint64_t first) {
  return HWY_DYNAMIC_DISPATCH(RandomImpl)(dist, dtype, out, n, seed, offset, first);
}

}  // namespace hetero::cpu::vec
#endif
