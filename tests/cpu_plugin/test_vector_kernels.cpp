// SPDX-License-Identifier: Apache-2.0
// The cpu plugin's vector kernels (Note [Vector kernels]) against the scalar rules they
// replace: exact for arithmetic, comparisons, sqrt and conversions; within 1 ulp of the
// C library for the transcendental functions. Lengths cover empty, shorter than a vector,
// whole vectors and ragged tails, and nothing past `n` may be written.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cstdlib>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <hetero/sdk/counter_rng.hpp>
#include <hetero/sdk/elementwise_ops.hpp>
#include <hetero/sdk/half.hpp>

#include "vector_kernels.hpp"
#include "vector_transpose.hpp"

namespace hetero::cpu {
namespace {

const std::vector<std::int64_t> kLengths{0, 1, 3, 8, 15, 16, 17, 31, 64, 100, 513, 1030};

// HETERO_TEST_SIMD_TARGET=NAME (a Highway target name: AVX3, AVX2, SSE4, ...): the kernels
// dispatch to that target rather than the best this CPU has, so that a machine with AVX-512
// also runs the AVX2 and SSE4 code that users of older CPUs get (tests/CMakeLists.txt adds
// a run per target on x86). A target this build compiled but the CPU lacks skips every test
// (the hardware is absent); a name this build did not compile fails.
class SimdTarget : public ::testing::Environment {
 public:
  void SetUp() override {
    const char* name = std::getenv("HETERO_TEST_SIMD_TARGET");
    if (name == nullptr || *name == '\0') return;
    for (std::int64_t targets = HWY_TARGETS; targets != 0; targets &= targets - 1) {
      const std::int64_t target = targets & -targets;  // the lowest remaining bit
      if (std::string(hwy::TargetName(target)) != name) continue;
      if ((hwy::SupportedTargets() & target) == 0)
        GTEST_SKIP() << "this CPU lacks the SIMD target " << name;
      hwy::SetSupportedTargetsForTest(target);
      ASSERT_EQ(std::string(vec::target_name()), name) << "the dispatch did not follow";
      return;
    }
    FAIL() << "HETERO_TEST_SIMD_TARGET=" << name << " names no target this build compiled";
  }
  void TearDown() override { hwy::SetSupportedTargetsForTest(0); }
};
[[maybe_unused]] const auto* const kSimdTarget =
    ::testing::AddGlobalTestEnvironment(new SimdTarget);

// Highway needs at least SSE4 on x86 for the kernels; every x86-64 CPU sold since 2008 has it.
bool vector_target() {
  const std::string name = vec::target_name();
  return name != "EMU128" && name != "SCALAR" && name != "SSSE3";
}

// Whether the vector kernels took the call. They must on every target with vector units
// (SSE4 and newer on x86); a build for one without them runs the scalar loops, which the
// rest of the suite tests.
bool taken(bool handled) {
  if (!handled) {
    EXPECT_FALSE(vector_target()) << "no vector path on " << vec::target_name();
  }
  return handled;
}

// Inputs with the special values first, then a spread of magnitudes and signs.
template <class T>
std::vector<T> inputs(std::int64_t n, unsigned seed) {
  const T inf = std::numeric_limits<T>::infinity();
  std::vector<T> specials{T(0),
                          T(-0.0),
                          T(1),
                          T(-1),
                          inf,
                          -inf,
                          std::numeric_limits<T>::quiet_NaN(),
                          T(0.5),
                          T(-2.5),
                          T(88),
                          T(-90),
                          std::numeric_limits<T>::denorm_min(),
                          T(1e-30),
                          T(3.14159),
                          T(-700),
                          T(1e6)};
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> mant(-1, 1);
  std::uniform_int_distribution<int> expo(-12, 12);
  std::vector<T> x(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    x[static_cast<std::size_t>(i)] = i < static_cast<std::int64_t>(specials.size())
                                         ? specials[static_cast<std::size_t>(i)]
                                         : static_cast<T>(std::ldexp(mant(gen), expo(gen)));
  return x;
}

// Same bits, or both NaN, or (when one_ulp) neighbours.
template <class T>
bool close(T got, T want, bool one_ulp) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
  if (std::memcmp(&got, &want, sizeof(T)) == 0) return true;
  return one_ulp && std::nextafter(want, got) == got;
}

// A float rounded to 16-bit dtype t's bits (float16 or bfloat16) by the scalar rule, and
// back (exact).
std::uint16_t bits16(DType t, float v) {
  return t == DType::float16 ? Half(v).bits : BFloat16(v).bits;
}
float from_bits16(DType t, std::uint16_t b) {
  Half hv;
  BFloat16 bv;
  hv.bits = bv.bits = b;
  return t == DType::float16 ? static_cast<float>(hv) : static_cast<float>(bv);
}

// f(std::integral_constant<Op>) for every row of the tables.
template <class F>
void visit_all_unary_ops(F&& f) {
  for (int k = 0; k < kUnaryOpCount; ++k) visit_unary(static_cast<UnaryOp>(k), f);
}
template <class F>
void visit_all_binary_ops(F&& f) {
  for (int k = 0; k < kBinaryOpCount; ++k) visit_binary(static_cast<BinaryOp>(k), f);
}

bool transcendental(UnaryOp op) {
  return op != UnaryOp::neg && op != UnaryOp::abs && op != UnaryOp::relu && op != UnaryOp::sqrt &&
         op != UnaryOp::rsqrt &&  // exact: the scalar rule's two correctly rounded steps
         op != UnaryOp::reciprocal && op != UnaryOp::floor && op != UnaryOp::ceil &&
         op != UnaryOp::round && op != UnaryOp::trunc && op != UnaryOp::sign;
}

// The op in long double (the exact result for the tests' purposes).
// 1 / (1 + exp(-x)) with exp(-x) rounded to T, which overflows to inf (result 0) below
// about -88 in float32, as in the scalar rule and torch.
template <class T>
long double reference(UnaryOp op, T xt) {
  const long double x = xt;
  switch (op) {
    case UnaryOp::exp:
      return std::exp(x);
    case UnaryOp::log:
      return std::log(x);
    case UnaryOp::tanh:
      return std::tanh(x);
    case UnaryOp::sigmoid:
      return 1 / (1 + static_cast<long double>(static_cast<T>(std::exp(-x))));
    case UnaryOp::sin:
      return std::sin(x);
    case UnaryOp::cos:
      return std::cos(x);
    case UnaryOp::log1p:
      return std::log1p(x);
    case UnaryOp::expm1:
      return std::expm1(x);
    case UnaryOp::erf:
      return std::erf(x);
    default:
      return x;
  }
}

// |got - exact| in units of T's spacing at exact: SLEEF's functions are within 1.0 of it;
// sigmoid, 1 / (1 + exp(-x)) with exp's error and two more roundings, within 2.5 (libm's
// exp in the scalar rule does no better; torch computes the same formula with SLEEF).
template <class T>
bool within_ulps(T got, long double exact, double bound) {
  const T rounded = static_cast<T>(exact);
  if (std::isnan(rounded) || std::isinf(rounded)) return close(got, rounded, false);
  const T mag = std::fabs(rounded);
  const T spacing = std::max(std::nextafter(mag, std::numeric_limits<T>::infinity()) - mag,
                             std::numeric_limits<T>::denorm_min());
  return std::fabs(static_cast<long double>(got) - exact) <= bound * spacing;
}

template <class T>
void check_unary(DType dtype) {
  for (std::int64_t n : kLengths) {
    const std::vector<T> x = inputs<T>(n, static_cast<unsigned>(n));
    visit_all_unary_ops([&](auto c) {
      constexpr UnaryOp Op = decltype(c)::value;
      SCOPED_TRACE(std::string(op_name(Op)) + " n=" + std::to_string(n));
      std::vector<T> y(x.size() + 4, T(-7));
      if (!vec::unary(Op, dtype, x.data(), y.data(), n)) return;  // listed below
      for (std::int64_t i = 0; i < n; ++i) {
        const T xi = x[static_cast<std::size_t>(i)], got = y[static_cast<std::size_t>(i)];
        if (transcendental(Op))
          EXPECT_TRUE(within_ulps(got, reference(Op, xi), Op == UnaryOp::sigmoid ? 2.5 : 1.0))
              << "x=" << xi << " got " << got << " exact "
              << static_cast<double>(reference(Op, xi));
        else
          EXPECT_TRUE(close(got, unary_element<Op>(xi), false)) << "x=" << xi << " got " << got;
      }
      for (std::size_t i = x.size(); i < y.size(); ++i) EXPECT_EQ(y[i], T(-7)) << "wrote past n";
    });
  }
}

TEST(VectorKernels, UnaryFloat32MatchesTheScalarRules) { check_unary<float>(DType::float32); }

TEST(VectorKernels, UnaryFloat64MatchesTheScalarRules) { check_unary<double>(DType::float64); }

template <class T>
void check_binary(DType dtype) {
  for (std::int64_t n : kLengths) {
    const std::vector<T> a = inputs<T>(n, 1), b = inputs<T>(n + 1, 2);
    const std::vector<T> b_shift(b.begin() + 1, b.end());  // other pairings
    static const T kNegInf = -std::numeric_limits<T>::infinity(), kHalf = T(0.5);
    visit_all_binary_ops([&](auto c) {
      constexpr BinaryOp Op = decltype(c)::value;
      for (int steps = 0; steps < 3; ++steps) {
        const int sa = steps == 1 ? 0 : 1, sb = steps == 2 ? 0 : 1;
        SCOPED_TRACE(std::string(op_name(Op)) + " n=" + std::to_string(n) + " steps " +
                     std::to_string(sa) + std::to_string(sb));
        const T* pa = sa ? a.data() : &kNegInf;  // a broadcast scalar
        const T* pb = sb ? b_shift.data() : &kHalf;
        std::vector<T> y(static_cast<std::size_t>(n) + 4, T(-7));
        if (!vec::binary(Op, dtype, pa, sa, pb, sb, y.data(), n)) return;  // listed below
        for (std::int64_t i = 0; i < n; ++i) {
          const T want = binary_element<Op>(pa[i * sa], pb[i * sb]);
          EXPECT_TRUE(close(y[static_cast<std::size_t>(i)], want, false))
              << pa[i * sa] << " , " << pb[i * sb] << " got " << y[static_cast<std::size_t>(i)];
        }
        for (std::size_t i = static_cast<std::size_t>(n); i < y.size(); ++i) EXPECT_EQ(y[i], T(-7));
      }
    });
  }
}

TEST(VectorKernels, BinaryFloat32AndFloat64AreExact) {
  check_binary<float>(DType::float32);
  check_binary<double>(DType::float64);
}

// log1p near the largest values, where SLEEF's log1p overflows to inf (above half of
// DBL_MAX / FLT_MAX; torch 1.13, which calls it, returns inf there): the vector path gives
// the scalar rule's log1p, within 1 ulp, as for every other input (torch_diff seed 4).
TEST(VectorKernels, Log1pOfTheLargestValuesIsFinite) {
  const std::vector<double> d{1.3482698511467367e308,
                              std::numeric_limits<double>::max(),
                              1e300,
                              1e19,
                              1.2e18,
                              1.1e18,
                              4.0,
                              1e-300};
  std::vector<double> yd(d.size());
  if (!taken(vec::unary(UnaryOp::log1p, DType::float64, d.data(), yd.data(),
                        static_cast<std::int64_t>(d.size()))))
    return;
  for (std::size_t i = 0; i < d.size(); ++i)
    EXPECT_TRUE(within_ulps(yd[i], std::log1p(static_cast<long double>(d[i])), 1.0))
        << d[i] << " got " << yd[i];
  const std::vector<float> f{3e38f, std::numeric_limits<float>::max(), 1.2e18f, 1e10f, 0.5f};
  std::vector<float> yf(f.size());
  ASSERT_TRUE(vec::unary(UnaryOp::log1p, DType::float32, f.data(), yf.data(),
                         static_cast<std::int64_t>(f.size())));
  for (std::size_t i = 0; i < f.size(); ++i)
    EXPECT_TRUE(within_ulps(yf[i], std::log1p(static_cast<long double>(f[i])), 1.0))
        << f[i] << " got " << yf[i];
}

// The table rows that have no vector path, and so run the scalar loop (correct, but several
// times slower on long runs): a row added to op_table.hpp without a case in
// vector_elementwise.cpp fails here until it gets one or is listed with the reason.
// pow, atan2, fmod and remainder stay with the scalar rules (C pow, atan2, fmod), which SLEEF's
// vector forms do not match bit for bit. Every other row has a path for float32, float64 and
// bfloat16 on every target with vector units (SSE4 and newer on x86); the others take only some
// rows.
TEST(VectorKernels, TableRowsWithoutAVectorPath) {
  const std::vector<std::string> kScalarOnly{"pow", "atan2", "fmod", "remainder"};
  for (DType dtype : {DType::float32, DType::float64, DType::bfloat16}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    std::vector<unsigned char> in(8 * 64, 0), out(8 * 64, 0);
    std::vector<std::string> declined;
    for (int k = 0; k < kUnaryOpCount; ++k)
      if (!vec::unary(static_cast<UnaryOp>(k), dtype, in.data(), out.data(), 64))
        declined.emplace_back(op_name(static_cast<UnaryOp>(k)));
    for (int k = 0; k < kBinaryOpCount; ++k)
      if (!vec::binary(static_cast<BinaryOp>(k), dtype, in.data(), 1, in.data(), 1, out.data(), 64))
        declined.emplace_back(op_name(static_cast<BinaryOp>(k)));
    if (!vector_target()) {  // SSSE3 and below: some exact rows, no SLEEF; never pow, atan2
      for (const std::string& name : kScalarOnly)
        EXPECT_NE(std::find(declined.begin(), declined.end(), name), declined.end()) << name;
      continue;
    }
    EXPECT_EQ(declined, kScalarOnly)
        << "a table row without a vector path (vector_elementwise.cpp): give it one, or list it "
           "here with the reason";
  }
}

// float32 -> float16 / bfloat16 over a sweep of bit patterns (both signs, every exponent,
// halfway cases), and every 16-bit pattern back, against hetero::Half / BFloat16.
TEST(VectorKernels, HalfConversionsRoundAsTheScalarRule) {
  std::vector<float> f;
  for (std::uint64_t u = 0; u <= 0xFFFFFFFFull; u += 65521) {
    float v;
    const auto bits = static_cast<std::uint32_t>(u);
    std::memcpy(&v, &bits, 4);
    f.push_back(v);
  }
  for (std::uint32_t bits : {0x3F808000u, 0x3F818000u, 0x477FF000u, 0x477FEFFFu, 0x7F7FFFFFu,
                             0x33000000u, 0x33000001u, 0x7FC00001u, 0xFFFFFFFFu, 0x7F800001u}) {
    float v;
    std::memcpy(&v, &bits, 4);
    f.push_back(v);
  }
  const auto n = static_cast<std::int64_t>(f.size());
  for (DType t : {DType::float16, DType::bfloat16}) {
    SCOPED_TRACE(std::string(dtype_name(t)));
    std::vector<std::uint16_t> h(f.size());
    if (!vec::convert(DType::float32, t, f.data(), h.data(), n)) {
      EXPECT_EQ(t, DType::float16) << "bfloat16 has a vector path on every target";
      continue;  // a CPU without F16C: the scalar conversion runs
    }
    for (std::size_t i = 0; i < f.size(); ++i) {
      const std::uint16_t want = t == DType::float16 ? Half(f[i]).bits : BFloat16(f[i]).bits;
      if (h[i] != want)
        ADD_FAILURE() << "float bits " << std::hex << std::bit_cast<std::uint32_t>(f[i]) << " -> "
                      << h[i] << " want " << want;
    }
    std::vector<std::uint16_t> all(65536);
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::uint16_t>(i);
    std::vector<float> back(all.size());
    if (!taken(vec::convert(t, DType::float32, all.data(), back.data(), 65536))) continue;
    for (std::size_t i = 0; i < all.size(); ++i) {
      Half hv;
      BFloat16 bv;
      hv.bits = bv.bits = all[i];
      const float want = t == DType::float16 ? static_cast<float>(hv) : static_cast<float>(bv);
      EXPECT_TRUE(close(back[i], want, false)) << std::hex << all[i];
    }
  }
}

// float16 / bfloat16 unary and binary ops compute in float32 and round once, as the rule.
TEST(VectorKernels, SixteenBitOpsRoundOnceFromFloat32) {
  const std::vector<float> x = inputs<float>(1030, 5);
  for (DType t : {DType::float16, DType::bfloat16}) {
    std::vector<std::uint16_t> h(x.size()), y(x.size()), z(x.size());
    for (std::size_t i = 0; i < x.size(); ++i)
      h[i] = t == DType::float16 ? Half(x[i]).bits : BFloat16(x[i]).bits;
    auto as_float = [t](std::uint16_t b) { return from_bits16(t, b); };
    auto round = [t](float v) { return bits16(t, v); };
    const auto n = static_cast<std::int64_t>(h.size());
    if (!vec::unary(UnaryOp::tanh, t, h.data(), y.data(), n)) continue;  // no F16C
    if (!taken(vec::binary(BinaryOp::mul, t, h.data(), 0, h.data() + 7, 1, z.data(), n - 7)))
      continue;
    for (std::size_t i = 0; i < h.size(); ++i) {
      // tanh in float32 within 1 ulp of exact, then rounded once to 16 bits: the rounding of
      // the exact value or of one of its float32 neighbours.
      const float exact = static_cast<float>(std::tanh(static_cast<long double>(as_float(h[i]))));
      if (std::isnan(exact)) {
        EXPECT_TRUE(std::isnan(as_float(y[i]))) << dtype_name(t) << " element " << i;
      } else {
        EXPECT_TRUE(y[i] == round(exact) || y[i] == round(std::nextafter(exact, -1.f)) ||
                    y[i] == round(std::nextafter(exact, 1.f)))
            << dtype_name(t) << " element " << i << ": " << as_float(y[i]) << " vs " << exact;
      }
      if (i + 7 < h.size()) {
        const float prod = as_float(h[0]) * as_float(h[i + 7]);
        EXPECT_TRUE(z[i] == round(prod) || (std::isnan(prod) && std::isnan(as_float(z[i]))))
            << dtype_name(t) << " element " << i;
      }
    }
  }
}

// The 16-bit unary kernels (Note [16-bit in registers]): every vectorised op gives, bit for
// bit, the float32 vector kernel's result on the widened input, rounded once; lengths around
// the vector width (the tail) and the longer ones, nothing written past the end.
TEST(VectorKernels, SixteenBitUnaryOpsAreTheFloat32KernelRoundedOnce) {
  std::vector<std::int64_t> lengths = kLengths;
  for (std::int64_t n = 0; n <= 40; ++n) lengths.push_back(n);
  for (DType t : {DType::float16, DType::bfloat16}) {
    auto bits = [t](float v) { return bits16(t, v); };
    auto as_float = [t](std::uint16_t b) { return from_bits16(t, b); };
    for (std::int64_t n : lengths) {
      const std::vector<float> x = inputs<float>(n, static_cast<unsigned>(n) + 40);
      std::vector<std::uint16_t> h(x.size());
      std::vector<float> widened(x.size());
      for (std::size_t i = 0; i < x.size(); ++i) {
        h[i] = bits(x[i]);
        widened[i] = as_float(h[i]);
      }
      visit_all_unary_ops([&](auto c) {
        constexpr UnaryOp Op = decltype(c)::value;
        SCOPED_TRACE(std::string(dtype_name(t)) + " " + std::string(op_name(Op)) +
                     " n=" + std::to_string(n));
        std::vector<std::uint16_t> y(x.size() + 4, 0xABCD);
        std::vector<float> want(x.size());
        const bool handled = vec::unary(Op, t, h.data(), y.data(), n);
        const bool in_float32 = vec::unary(Op, DType::float32, widened.data(), want.data(), n);
        if (t == DType::bfloat16 || handled) {
          EXPECT_EQ(handled, in_float32);
        }
        if (!handled || !in_float32) return;  // no vector rule (or, for float16, no F16C)
        for (std::size_t i = 0; i < x.size(); ++i) {
          const std::uint16_t w = bits(want[i]);
          EXPECT_TRUE(y[i] == w || (std::isnan(want[i]) && std::isnan(as_float(y[i]))))
              << "element " << i << " x=" << widened[i] << ": " << as_float(y[i]) << " vs "
              << as_float(w);
        }
        for (std::size_t i = x.size(); i < y.size(); ++i) EXPECT_EQ(y[i], 0xABCD) << "past n";
      });
    }
  }
}

// The 16-bit binary kernels (Note [16-bit in registers]): every vectorised op, dense and
// broadcast operands on either side, lengths around the vector width (the tail), NaN and
// infinities among the values, each element the float32 rule rounded once, nothing written
// past the end.
TEST(VectorKernels, SixteenBitBinaryOpsMatchTheRuleAtEveryLength) {
  std::vector<float> values = inputs<float>(64, 11);
  values[3] = std::numeric_limits<float>::quiet_NaN();
  values[9] = std::numeric_limits<float>::infinity();
  values[20] = -0.0f;
  const std::pair<BinaryOp, float (*)(float, float)> ops[] = {
      {BinaryOp::add, [](float x, float y) { return x + y; }},
      {BinaryOp::sub, [](float x, float y) { return x - y; }},
      {BinaryOp::mul, [](float x, float y) { return x * y; }},
      {BinaryOp::div, [](float x, float y) { return x / y; }},
      {BinaryOp::maximum, [](float x, float y) { return (x != x || x > y) ? x : y; }},
      {BinaryOp::minimum, [](float x, float y) { return (x != x || x < y) ? x : y; }},
      {BinaryOp::eq, [](float x, float y) { return x == y ? 1.0f : 0.0f; }},
      {BinaryOp::lt, [](float x, float y) { return x < y ? 1.0f : 0.0f; }},
  };
  for (DType t : {DType::float16, DType::bfloat16}) {
    auto bits = [t](float v) { return bits16(t, v); };
    auto as_float = [t](std::uint16_t b) { return from_bits16(t, b); };
    std::vector<std::uint16_t> a(values.size()), b(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
      a[i] = bits(values[i]);
      b[i] = bits(values[(i * 7 + 5) % values.size()]);
    }
    for (const auto& [op, rule] : ops)
      for (const auto& [sa, sb] : {std::pair{1, 1}, std::pair{1, 0}, std::pair{0, 1}})
        for (std::int64_t n = 0; n <= 40; ++n) {
          std::vector<std::uint16_t> out(static_cast<std::size_t>(n) + 1, 0xABCD);
          const bool handled =
              vec::binary(op, t, a.data() + 2, sa, b.data() + 1, sb, out.data(), n);
          // float16 needs F16C (AVX2 and newer); bfloat16 runs on every vector target.
          if (!(t == DType::float16 ? handled : taken(handled))) return;
          for (std::int64_t i = 0; i < n; ++i) {
            const float want = rule(as_float(a[static_cast<std::size_t>(2 + i * sa)]),
                                    as_float(b[static_cast<std::size_t>(1 + i * sb)]));
            const std::uint16_t got = out[static_cast<std::size_t>(i)];
            EXPECT_TRUE(got == bits(want) || (std::isnan(want) && std::isnan(as_float(got))))
                << dtype_name(t) << " op " << static_cast<int>(op) << " steps " << sa << sb << " n "
                << n << " element " << i << ": " << as_float(got) << " vs " << want;
          }
          EXPECT_EQ(out[static_cast<std::size_t>(n)], 0xABCD) << "written past the end, n " << n;
        }
  }
}

TEST(VectorKernels, SumAddsEveryElementOnce) {
  for (std::int64_t n : kLengths) {
    std::vector<float> f(static_cast<std::size_t>(n));
    std::vector<double> d(f.size());
    long double exact = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      f[static_cast<std::size_t>(i)] = static_cast<float>(i % 13) - 4.25f;
      d[static_cast<std::size_t>(i)] = f[static_cast<std::size_t>(i)];
      exact += f[static_cast<std::size_t>(i)];
    }
    double s32 = -1, s64 = -1;
    if (!taken(vec::sum(DType::float32, f.data(), n, &s32)) ||
        !taken(vec::sum(DType::float64, d.data(), n, &s64)))
      return;
    EXPECT_EQ(s32, static_cast<double>(exact)) << n;  // small integers and quarters: exact
    EXPECT_EQ(s64, static_cast<double>(exact)) << n;
  }
  // float16 and bfloat16, widened as they are loaded: every element counts, past 2048 too
  // (the earlier design's block); the column kernel adds each element into its own
  // accumulator.
  for (std::int64_t n : {1, 2047, 2048, 2049, 4500}) {
    std::vector<BFloat16> bf(static_cast<std::size_t>(n));
    std::vector<Half> hf(bf.size());
    double exact = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const float v = static_cast<float>(i % 13) - 4.25f;
      bf[static_cast<std::size_t>(i)] = BFloat16(v);
      hf[static_cast<std::size_t>(i)] = Half(v);
      exact += v;
    }
    double sb = -1, sh = -1;
    EXPECT_TRUE(vec::sum(DType::bfloat16, bf.data(), n, &sb));
    EXPECT_EQ(sb, exact) << n;
    std::vector<double> acc(bf.size(), 0.5);
    EXPECT_TRUE(vec::accumulate(DType::bfloat16, bf.data(), acc.data(), n));
    for (std::int64_t i = 0; i < n; i += 97)
      EXPECT_EQ(acc[static_cast<std::size_t>(i)], 0.5 + static_cast<float>(i % 13) - 4.25) << i;
    if (vec::sum(DType::float16, hf.data(), n, &sh)) {  // with F16C
      EXPECT_EQ(sh, exact) << n;
    }
  }
  double r = 0;
  EXPECT_FALSE(vec::sum(DType::int32, nullptr, 0, &r));
}

// The 16-bit reductions (Note [16-bit in registers]) are the float32 kernels on the widened
// values, bit for bit: sum, accumulate, min/max with the NaN flag, and the row kernels over
// strided rows; lengths around the vector widths (the tails) and longer, NaN and infinities
// among the values of some.
TEST(VectorKernels, SixteenBitReductionsAreTheFloat32KernelsOnTheWidenedValues) {
  std::vector<std::int64_t> lengths{63, 64, 65, 100, 1030, 4500};
  for (std::int64_t n = 1; n <= 40; ++n) lengths.push_back(n);
  for (DType t : {DType::float16, DType::bfloat16}) {
    auto bits = [t](float v) { return bits16(t, v); };
    auto as_float = [t](std::uint16_t b) { return from_bits16(t, b); };
    for (std::int64_t n : lengths) {
      for (const bool specials : {false, true}) {
        SCOPED_TRACE(std::string(dtype_name(t)) + " n=" + std::to_string(n) +
                     (specials ? " with NaN/inf" : ""));
        // inputs(): special values (NaN, inf) first; without them, a spread of magnitudes
        // whose float32 sum rounds.
        std::vector<float> x = inputs<float>(n + 16, static_cast<unsigned>(n) + 7);
        x.erase(x.begin(), x.begin() + (specials ? 16 - std::min<std::int64_t>(n, 8) : 16));
        x.resize(static_cast<std::size_t>(n));
        std::vector<std::uint16_t> h(x.size());
        std::vector<float> w(x.size());
        for (std::size_t i = 0; i < x.size(); ++i) {
          h[i] = bits(x[i]);
          w[i] = as_float(h[i]);
        }
        auto same = [](double a, double b) {
          return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b) ||
                 (std::isnan(a) && std::isnan(b));
        };
        double got = -1, want = -2;
        if (!vec::sum(t, h.data(), n, &got)) {
          EXPECT_EQ(t, DType::float16) << "bfloat16 has a vector path on every target";
          continue;  // no F16C
        }
        ASSERT_TRUE(vec::sum(DType::float32, w.data(), n, &want));
        EXPECT_TRUE(same(got, want)) << got << " vs " << want;
        std::vector<double> acc(x.size() + 1, 0.25), acc_want(x.size() + 1, 0.25);
        ASSERT_TRUE(vec::accumulate(t, h.data(), acc.data(), n));
        ASSERT_TRUE(vec::accumulate(DType::float32, w.data(), acc_want.data(), n));
        for (std::size_t i = 0; i < acc.size(); ++i)
          EXPECT_TRUE(same(acc[i], acc_want[i])) << "accumulator " << i;
        for (const auto which : {vec::Extreme::min, vec::Extreme::max}) {
          bool nan = false, want_nan = true;
          ASSERT_TRUE(vec::extreme(which, t, h.data(), n, &got, &nan));
          ASSERT_TRUE(vec::extreme(which, DType::float32, w.data(), n, &want, &want_nan));
          EXPECT_EQ(nan, want_nan);
          if (!want_nan) {
            EXPECT_TRUE(same(got, want)) << got << " vs " << want;
          }
        }
        // Rows of n with a gap of 3 (never read), the values rotated row by row.
        const std::int64_t rows = 5, stride = n + 3;
        std::vector<std::uint16_t> hr(static_cast<std::size_t>(rows * stride), bits(1e30f));
        std::vector<float> wr(hr.size());
        for (std::int64_t r = 0; r < rows; ++r)
          for (std::int64_t i = 0; i < n; ++i)
            hr[static_cast<std::size_t>(r * stride + i)] = h[static_cast<std::size_t>((i + r) % n)];
        for (std::size_t i = 0; i < hr.size(); ++i) wr[i] = as_float(hr[i]);
        std::vector<double> rg(rows), rw(rows);
        ASSERT_TRUE(vec::sum_rows(t, hr.data(), rows, n, stride, rg.data()));
        ASSERT_TRUE(vec::sum_rows(DType::float32, wr.data(), rows, n, stride, rw.data()));
        for (std::int64_t r = 0; r < rows; ++r)
          EXPECT_TRUE(same(rg[static_cast<std::size_t>(r)], rw[static_cast<std::size_t>(r)]))
              << "sum of row " << r;
        for (const auto which : {vec::Extreme::min, vec::Extreme::max}) {
          bool ng[rows], nw[rows];
          ASSERT_TRUE(vec::extreme_rows(which, t, hr.data(), rows, n, stride, rg.data(), ng));
          ASSERT_TRUE(
              vec::extreme_rows(which, DType::float32, wr.data(), rows, n, stride, rw.data(), nw));
          for (std::int64_t r = 0; r < rows; ++r) {
            EXPECT_EQ(ng[r], nw[r]) << "row " << r;
            if (!nw[r]) {
              EXPECT_TRUE(same(rg[static_cast<std::size_t>(r)], rw[static_cast<std::size_t>(r)]))
                  << "extreme of row " << r;
            }
          }
        }
      }
    }
  }
}

// The integer reductions against the scalar rules: sums wrapping modulo 2^64 (int64 values
// near the ends of the range overflow on purpose; int8 and uint8 sums far beyond their own
// range), extremes, a column's accumulators.
template <class T>
void check_integers(DType dtype) {
  std::mt19937_64 gen(5);
  for (std::int64_t n : kLengths) {
    std::vector<T> x(static_cast<std::size_t>(n));
    for (T& v : x) v = static_cast<T>(gen());
    if (n > 2) {
      x[0] = std::numeric_limits<T>::max();
      x[static_cast<std::size_t>(n) - 1] = std::numeric_limits<T>::min();
    }
    std::uint64_t want = 0;
    for (T v : x) want += static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
    std::int64_t got = 0;  // every integer dtype (int8 and uint8: the widening sums)
    if (!taken(vec::sum_int(dtype, x.data(), n, &got))) return;
    EXPECT_EQ(static_cast<std::uint64_t>(got), want) << dtype_name(dtype) << " n " << n;
    if (n == 0) continue;
    for (const vec::Extreme which : {vec::Extreme::max, vec::Extreme::min}) {
      const bool min = which == vec::Extreme::min;
      const T want_extreme =
          min ? *std::min_element(x.begin(), x.end()) : *std::max_element(x.begin(), x.end());
      std::int64_t e = 0;
      EXPECT_TRUE(vec::extreme_int(which, dtype, x.data(), n, &e));
      EXPECT_EQ(e, static_cast<std::int64_t>(want_extreme)) << dtype_name(dtype) << " n " << n;
    }
    if constexpr (sizeof(T) >= 4) {
      std::vector<std::int64_t> acc(x.size(), std::numeric_limits<std::int64_t>::max());
      EXPECT_TRUE(vec::accumulate_int(dtype, x.data(), acc.data(), n));
      for (std::size_t j = 0; j < x.size(); ++j)
        EXPECT_EQ(static_cast<std::uint64_t>(acc[j]),
                  static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) +
                      static_cast<std::uint64_t>(static_cast<std::int64_t>(x[j])))
            << dtype_name(dtype) << " n " << n << " j " << j;
    }
  }
}

TEST(VectorKernels, IntegerSumsWrapAndExtremesMatchTheScalarRules) {
  check_integers<std::int8_t>(DType::int8);
  check_integers<std::uint8_t>(DType::uint8);
  check_integers<std::int32_t>(DType::int32);
  check_integers<std::int64_t>(DType::int64);
  const std::vector<std::uint8_t> flags(16, 1);  // bool: the scalar loops
  std::int64_t got = -1, e = 0;
  EXPECT_FALSE(vec::sum_int(DType::bool_, flags.data(), 16, &got));
  EXPECT_FALSE(vec::extreme_int(vec::Extreme::max, DType::bool_, flags.data(), 16, &e));
  EXPECT_FALSE(vec::sum_int(DType::float32, flags.data(), 1, &got));
}

// extreme_into against the NaN-propagating rule it stands in for: equal wherever the row
// has no NaN (signed zeros and ties included), and a NaN or an infinity reported.
template <class T>
void check_extreme_into(DType dtype, vec::Extreme which) {
  const bool min = which == vec::Extreme::min;
  for (std::int64_t n : kLengths) {
    std::vector<T> row = inputs<T>(n, 11), best = inputs<T>(n, 12);
    std::reverse(best.begin(), best.end());  // specials against specials: zeros meet zeros
    for (T& x : row)
      if (std::isnan(x)) x = T(-0.0);  // NaN only in best: it must stay
    bool any_inf = false;
    for (T x : row) any_inf = any_inf || std::isinf(x);
    std::vector<T> want(best);
    for (std::size_t j = 0; j < want.size(); ++j) {
      const T x = row[j], b = want[j];
      want[j] = (x != x || (min ? x < b : x > b)) ? x : b;
    }
    bool maybe_nan = false;
    if (!vec::extreme_into(which, dtype, row.data(), best.data(), n, &maybe_nan)) {
      EXPECT_FALSE(std::string(vec::target_name()).starts_with("AVX")) << vec::target_name();
      return;
    }
    EXPECT_TRUE(!maybe_nan || any_inf) << n;  // no NaN: flagged at most for an infinity
    for (std::size_t j = 0; j < want.size(); ++j)
      EXPECT_TRUE(close(best[j], want[j], false))
          << dtype_name(dtype) << " n " << n << " j " << j << ": " << best[j] << " vs " << want[j];
    if (n == 0) continue;
    for (std::int64_t at : {std::int64_t{0}, n / 2, n - 1}) {  // a NaN in the row, anywhere
      std::vector<T> finite(static_cast<std::size_t>(n), T(1)), b(finite);
      finite[static_cast<std::size_t>(at)] = std::numeric_limits<T>::quiet_NaN();
      maybe_nan = false;
      EXPECT_TRUE(vec::extreme_into(which, dtype, finite.data(), b.data(), n, &maybe_nan));
      EXPECT_TRUE(maybe_nan) << n << " " << at;
    }
  }
}

// A rows x cols transpose() (or transpose_streaming()) from a source with row stride ss
// into a destination with row stride ds, both starting on a 64-byte boundary, against an
// element-by-element transpose; the destination's padding stays untouched.
template <class T>
void check_transpose_case(bool streaming, std::int64_t rows, std::int64_t cols, std::int64_t ss,
                          std::int64_t ds) {
  constexpr std::size_t kSlack = 64 / sizeof(T);  // room to align the start
  std::vector<T> src_storage(static_cast<std::size_t>(cols * ss) + kSlack),
      dst_storage(static_cast<std::size_t>(rows * ds) + kSlack);
  auto aligned = [](std::vector<T>& v) {
    void* p = v.data();
    std::size_t space = v.size() * sizeof(T);
    return static_cast<T*>(std::align(64, sizeof(T), p, space));
  };
  T* src = aligned(src_storage);
  T* dst = aligned(dst_storage);
  for (std::int64_t k = 0; k < cols * ss; ++k) src[k] = static_cast<T>(k * 2654435761u);
  for (std::int64_t k = 0; k < rows * ds; ++k) dst[k] = static_cast<T>(k * 40503u + 1);
  const bool ran = streaming ? vec::transpose_streaming(sizeof(T), src, ss, dst, ds, rows, cols)
                             : vec::transpose(sizeof(T), src, ss, dst, ds, rows, cols);
  if (!ran) {
    const std::string target = vec::target_name();  // 4 and 8 bytes need AVX2
    EXPECT_TRUE(!vector_target() || (sizeof(T) != 2 && target == "SSE4")) << target;
    return;
  }
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < ds; ++j) {
      const T want = j < cols ? src[j * ss + i] : static_cast<T>((i * ds + j) * 40503u + 1);
      ASSERT_EQ(dst[i * ds + j], want) << sizeof(T) << " bytes, " << rows << " x " << cols
                                       << ", dst stride " << ds << ", at " << i << "," << j;
    }
}

// Every element size the kernels take, strides wider than the block and edges of every
// width. The streaming kernel also gets whole bands and tiles (streaming_band() columns,
// 32 rows) with remainders after them, and destination strides that keep its rows aligned to
// the vector width (non-temporal stores: a multiple of 64 bytes) or not (ordinary stores
// from its buffer).
template <class T>
void check_transpose(bool streaming) {
  const std::int64_t band = vec::streaming_band(sizeof(T));
  std::vector<std::int64_t> all_rows{1, 7, 8, 9, 16, 23, 64}, all_cols{1, 5, 8, 15, 17, 64};
  if (streaming) {
    all_rows.insert(all_rows.end(), {32, 95, 96, 131});
    all_cols.insert(all_cols.end(), {band - 1, band, band + 3, 2 * band, 3 * band - 8});
  }
  const std::int64_t line = 64 / static_cast<std::int64_t>(sizeof(T));
  for (std::int64_t rows : all_rows)
    for (std::int64_t cols : all_cols) {
      check_transpose_case<T>(streaming, rows, cols, rows + 3, cols + 5);
      if (streaming)  // rows 64-byte aligned
        check_transpose_case<T>(streaming, rows, cols, rows + 3, (cols + line) / line * line);
    }
}

TEST(VectorKernels, TransposeMovesEveryElementOnce) {
  for (bool streaming : {false, true}) {
    SCOPED_TRACE(streaming ? "transpose_streaming" : "transpose");
    check_transpose<std::uint16_t>(streaming);
    check_transpose<std::uint32_t>(streaming);
    check_transpose<std::uint64_t>(streaming);
  }
  EXPECT_FALSE(vec::transpose(1, nullptr, 1, nullptr, 1, 0, 0));
  EXPECT_FALSE(vec::transpose_streaming(1, nullptr, 1, nullptr, 1, 0, 0));
  EXPECT_EQ(vec::streaming_band(2), 128);
  EXPECT_EQ(vec::streaming_band(4), 128);
  EXPECT_EQ(vec::streaming_band(8), 64);
  EXPECT_EQ(vec::streaming_band(1), 0);
}

TEST(VectorKernels, ExtremeIntoMatchesTheNaNRuleAndFlagsNaNs) {
  for (const vec::Extreme which : {vec::Extreme::max, vec::Extreme::min}) {
    check_extreme_into<float>(DType::float32, which);
    check_extreme_into<double>(DType::float64, which);
  }
  bool maybe_nan = false;
  EXPECT_FALSE(vec::extreme_into(vec::Extreme::max, DType::int32, nullptr, nullptr, 0, &maybe_nan));
}

// The row kernels give each row what the one-row kernel gives it, bit for bit: rows of
// several lengths (a vector's lanes, one more, one less, ResNet's 49), 7 rows a row_stride
// apart with a gap between them that must not be read into the results, one row with a NaN.
TEST(VectorKernels, RowKernelsMatchTheOneRowKernelsRowByRow) {
  for (std::int64_t n : {1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 49, 64, 65, 200}) {
    const std::int64_t rows = 7, stride = n + 3;
    std::vector<double> d(static_cast<std::size_t>(rows * stride));
    for (std::size_t i = 0; i < d.size(); ++i)
      d[i] =
          std::sin(0.7 * static_cast<double>(i)) * std::ldexp(1.0, static_cast<int>(i % 40) - 20);
    for (std::int64_t r = 0; r < rows; ++r)  // the gaps: larger than any row's elements
      for (std::int64_t j = n; j < stride; ++j) d[static_cast<std::size_t>(r * stride + j)] = 1e300;
    d[static_cast<std::size_t>(3 * stride + n / 2)] = std::numeric_limits<double>::quiet_NaN();
    const std::vector<float> f(d.begin(), d.end());
    std::vector<double> sums(rows), best(rows);
    bool nan[rows];
    if (!taken(vec::sum_rows(DType::float32, f.data(), rows, n, stride, sums.data()))) return;
    for (std::int64_t r = 0; r < rows; ++r) {
      double want = 0;
      ASSERT_TRUE(vec::sum(DType::float32, f.data() + r * stride, n, &want));
      if (r == 3) {
        EXPECT_TRUE(std::isnan(sums[3])) << n;
      } else {
        EXPECT_EQ(sums[static_cast<std::size_t>(r)], want) << n << " row " << r;
      }
    }
    ASSERT_TRUE(vec::sum_rows(DType::float64, d.data(), rows, n, stride, sums.data()));
    for (std::int64_t r = 0; r < rows; ++r) {
      double want = 0;
      ASSERT_TRUE(vec::sum(DType::float64, d.data() + r * stride, n, &want));
      if (r != 3) {
        EXPECT_EQ(sums[static_cast<std::size_t>(r)], want) << n << " row " << r;
      }
    }
    for (const auto which : {vec::Extreme::min, vec::Extreme::max}) {
      ASSERT_TRUE(
          vec::extreme_rows(which, DType::float32, f.data(), rows, n, stride, best.data(), nan));
      for (std::int64_t r = 0; r < rows; ++r) {
        double want = 0;
        bool want_nan = false;
        ASSERT_TRUE(
            vec::extreme(which, DType::float32, f.data() + r * stride, n, &want, &want_nan));
        EXPECT_EQ(nan[r], want_nan) << n << " row " << r;
        EXPECT_EQ(nan[r], r == 3) << n << " row " << r;
        if (want_nan) continue;
        EXPECT_EQ(best[static_cast<std::size_t>(r)], want) << n << " row " << r;
        // The extremum is one of the row's own elements, not from the gap.
        const auto* row = f.data() + r * stride;
        EXPECT_NE(std::find(row, row + n, static_cast<float>(best[static_cast<std::size_t>(r)])),
                  row + n)
            << n << " row " << r;
      }
    }
  }
  // float16 and bfloat16 rows, shorter and longer than the blocks of 2048 they are widened
  // in, each row as vec::sum gives it (a 16-bit convolution's bias gradient: rows of 100).
  for (std::int64_t n : {1, 33, 100, 2048, 2100}) {
    const std::int64_t rows = 5, stride = n + 5;
    std::vector<BFloat16> bf(static_cast<std::size_t>(rows * stride));
    std::vector<Half> hf(bf.size());
    for (std::size_t i = 0; i < bf.size(); ++i) {
      const float v = static_cast<float>(std::sin(0.3 * static_cast<double>(i)) * 8);
      bf[i] = BFloat16(v);
      hf[i] = Half(v);
    }
    std::vector<double> sums(rows);
    ASSERT_TRUE(vec::sum_rows(DType::bfloat16, bf.data(), rows, n, stride, sums.data()));
    for (std::int64_t r = 0; r < rows; ++r) {
      double want = 0;
      ASSERT_TRUE(vec::sum(DType::bfloat16, bf.data() + r * stride, n, &want));
      EXPECT_EQ(sums[static_cast<std::size_t>(r)], want) << n << " row " << r;
    }
    if (!vec::sum_rows(DType::float16, hf.data(), rows, n, stride, sums.data())) continue;
    for (std::int64_t r = 0; r < rows; ++r) {  // with F16C
      double want = 0;
      ASSERT_TRUE(vec::sum(DType::float16, hf.data() + r * stride, n, &want));
      EXPECT_EQ(sums[static_cast<std::size_t>(r)], want) << n << " row " << r;
    }
  }
  double r = 0;
  bool nan = false;
  EXPECT_FALSE(vec::sum_rows(DType::int32, nullptr, 0, 1, 1, &r));
  EXPECT_FALSE(vec::extreme_rows(vec::Extreme::max, DType::int32, nullptr, 0, 1, 1, &r, &nan));
}

TEST(VectorKernels, ExtremesSeeEveryElementAndAnyNaN) {
  for (std::int64_t n : kLengths) {
    if (n == 0) continue;
    for (std::int64_t at = 0; at < n; at += std::max<std::int64_t>(1, n / 7)) {
      std::vector<double> d(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) d[static_cast<std::size_t>(i)] = std::sin(double(i));
      d[static_cast<std::size_t>(at)] = 5;  // the maximum, at every position in turn
      const std::vector<float> f(d.begin(), d.end());
      double r = 0;
      bool nan = true;
      if (!taken(vec::extreme(vec::Extreme::max, DType::float64, d.data(), n, &r, &nan))) return;
      EXPECT_EQ(r, 5.0) << n << " " << at;
      EXPECT_FALSE(nan);
      if (!taken(vec::extreme(vec::Extreme::max, DType::float32, f.data(), n, &r, &nan))) return;
      EXPECT_EQ(r, 5.0) << n << " " << at;
      // float16 and bfloat16 are widened in blocks of 2048: the maximum in any block.
      const std::vector<BFloat16> bf(f.begin(), f.end());
      EXPECT_TRUE(vec::extreme(vec::Extreme::max, DType::bfloat16, bf.data(), n, &r, &nan));
      EXPECT_EQ(r, 5.0) << n << " " << at;
      EXPECT_FALSE(nan);
      std::vector<Half> hf(f.begin(), f.end());
      if (vec::extreme(vec::Extreme::max, DType::float16, hf.data(), n, &r,
                       &nan)) {  // where F16C is
        EXPECT_EQ(r, 5.0) << n << " " << at;
        EXPECT_FALSE(nan);
        hf[static_cast<std::size_t>((at + n / 3) % n)] = Half(std::nanf(""));
        EXPECT_TRUE(vec::extreme(vec::Extreme::min, DType::float16, hf.data(), n, &r, &nan));
        EXPECT_TRUE(nan) << n << " " << at;
      }
      d[static_cast<std::size_t>(at)] = -5;  // now the minimum
      if (!taken(vec::extreme(vec::Extreme::min, DType::float64, d.data(), n, &r, &nan))) return;
      EXPECT_EQ(r, -5.0) << n << " " << at;
      d[static_cast<std::size_t>(at)] = std::nan("");
      if (!taken(vec::extreme(vec::Extreme::min, DType::float64, d.data(), n, &r, &nan))) return;
      EXPECT_TRUE(nan) << n << " " << at;
      // Infinities of both signs and sums that overflow, without a NaN: the kernel's fast
      // NaN test (x * 0 folded into a sum) fires on them; the rescan must find no NaN.
      std::vector<float> g(f.size(), 1.0f);
      g[static_cast<std::size_t>(at)] = std::numeric_limits<float>::infinity();
      g[static_cast<std::size_t>((at + 1) % n)] = -std::numeric_limits<float>::infinity();
      for (float& x : g)
        if (x == 1.0f) x = std::numeric_limits<float>::max();
      if (!taken(vec::extreme(vec::Extreme::max, DType::float32, g.data(), n, &r, &nan))) return;
      EXPECT_FALSE(nan) << n << " " << at;
      EXPECT_EQ(r, n > 1 ? std::numeric_limits<double>::infinity()
                         : -std::numeric_limits<double>::infinity())
          << n << " " << at;
      g[static_cast<std::size_t>((at + n / 2) % n)] = std::nanf("");
      if (!taken(vec::extreme(vec::Extreme::max, DType::float32, g.data(), n, &r, &nan))) return;
      EXPECT_TRUE(nan) << n << " " << at;
    }
  }
  // Past the blocks of 2048 that float16 and bfloat16 are widened in: the extreme and a NaN
  // in later blocks count.
  for (std::int64_t at : {0, 2047, 2048, 4095, 4500}) {
    std::vector<BFloat16> bf(4501);
    for (std::size_t i = 0; i < bf.size(); ++i) bf[i] = BFloat16(std::sin(float(i)));
    bf[static_cast<std::size_t>(at)] = BFloat16(-7.0f);
    double r = 0;
    bool nan = true;
    EXPECT_TRUE(vec::extreme(vec::Extreme::min, DType::bfloat16, bf.data(), 4501, &r, &nan));
    EXPECT_EQ(r, -7.0) << at;
    EXPECT_FALSE(nan);
    bf[static_cast<std::size_t>((at + 2500) % 4501)] = BFloat16(std::nanf(""));
    EXPECT_TRUE(vec::extreme(vec::Extreme::min, DType::bfloat16, bf.data(), 4501, &r, &nan));
    EXPECT_TRUE(nan) << at;
  }
  double r = 0;
  bool nan = false;
  EXPECT_FALSE(vec::extreme(vec::Extreme::min, DType::int64, nullptr, 1, &r, &nan));
}

// The vector generator draws the SDK's stream (rng::uniform_at, rng::normal_at): uniform
// values bit for bit, normal ones within a few ulps of libm's log and cos (float32: the same
// value, or its neighbour where the float64 result lies at a rounding boundary), at lengths
// around the vector widths, from element indices and offsets where the counter's high word
// changes and where offset + i wraps around 2^64, under seeds with both key words set.
TEST(VectorKernels, RandomIsTheSdkStream) {
  const std::uint64_t seeds[] = {0, 0x123456789ULL, 0xFEDCBA9876543210ULL};
  const std::uint64_t offsets[] = {0, 1000003, 0xFFFFFFFFULL - 5, ~std::uint64_t{0} - 20};
  for (std::uint64_t seed : seeds)
    for (std::uint64_t offset : offsets)
      for (std::int64_t n : {1, 7, 8, 9, 16, 17, 64, 1000}) {
        const std::uint64_t first = n == 1000 ? 0x7FFFFFFFULL : 3;
        std::vector<float> f(static_cast<std::size_t>(n));
        std::vector<double> d(f.size());
        if (!taken(vec::random(RandomDistribution::uniform, DType::float32, f.data(), n, seed,
                               offset, first)))
          return;
        ASSERT_TRUE(vec::random(RandomDistribution::uniform, DType::float64, d.data(), n, seed,
                                offset, first));
        for (std::int64_t j = 0; j < n; ++j) {
          const std::uint64_t i = first + static_cast<std::uint64_t>(j);
          const auto k = static_cast<std::size_t>(j);
          ASSERT_EQ(f[k], rng::uniform_at<float>(seed, offset, i)) << n << " " << j;
          ASSERT_EQ(d[k], rng::uniform_at<double>(seed, offset, i)) << n << " " << j;
        }
        if (!vec::random(RandomDistribution::normal, DType::float32, f.data(), n, seed, offset,
                         first))
          continue;  // no vector log and cos on this target: the scalar loop's
        ASSERT_TRUE(vec::random(RandomDistribution::normal, DType::float64, d.data(), n, seed,
                                offset, first));
        for (std::int64_t j = 0; j < n; ++j) {
          const double want = rng::normal_at(seed, offset, first + static_cast<std::uint64_t>(j));
          const auto k = static_cast<std::size_t>(j);
          ASSERT_NEAR(d[k], want, 1e-14 * (1 + std::abs(want))) << n << " " << j;
          const auto wf = static_cast<float>(want);
          ASSERT_TRUE(f[k] == wf || f[k] == std::nextafter(wf, f[k])) << f[k] << " vs " << wf;
        }
      }
  float x = 0;
  EXPECT_FALSE(vec::random(RandomDistribution::uniform, DType::float16, &x, 1, 0, 0, 0));
}

// An element's value depends on its counter alone: one call of 1000 values equals, bit for
// bit, the same elements drawn in pieces of 1, 3, 5, ... (each piece's partial vectors cut
// from whole ones), as Backend::random's splitting rule and the thread split need.
TEST(VectorKernels, RandomValuesDoNotDependOnWhereACallStarts) {
  const std::int64_t n = 1000;
  const std::uint64_t seed = 42, offset = 1000;
  for (const auto dist : {RandomDistribution::uniform, RandomDistribution::normal}) {
    std::vector<double> whole(static_cast<std::size_t>(n)), pieces(whole.size());
    std::vector<float> wf(whole.size()), pf(whole.size());
    const bool vector = vec::random(dist, DType::float64, whole.data(), n, seed, offset, 0);
    if (dist == RandomDistribution::uniform && !taken(vector)) return;
    if (!vector) continue;  // normals without vector log and cos: the scalar loop's
    ASSERT_TRUE(vec::random(dist, DType::float32, wf.data(), n, seed, offset, 0));
    std::int64_t at = 0;
    for (std::int64_t len = 1; at < n; len += 2) {
      const std::int64_t m = std::min(len, n - at);
      const auto k = static_cast<std::uint64_t>(at);
      const auto i = static_cast<std::size_t>(at);
      ASSERT_TRUE(vec::random(dist, DType::float64, pieces.data() + i, m, seed, offset, k));
      ASSERT_TRUE(vec::random(dist, DType::float32, pf.data() + i, m, seed, offset, k));
      at += m;
    }
    EXPECT_EQ(pieces, whole);
    EXPECT_EQ(pf, wf);
  }
}

}  // namespace
}  // namespace hetero::cpu
