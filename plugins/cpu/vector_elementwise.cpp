// SPDX-License-Identifier: Apache-2.0
// The element-wise vector kernels: vec::unary and vec::binary over the rows of the op
// tables (op_table.hpp), float32 and float64 natively, float16 and bfloat16 through float32.
// Highway compiles this file once per target (foreach_target.h includes it again for each,
// with HWY_NAMESPACE naming the target); the part under HWY_ONCE exports the per-target
// functions and dispatches to the best one for the running CPU (Note [Vector kernels]).
#include <algorithm>
#include <cstdint>

#include "vector_kernels.hpp"

// clang-format off: the order of these includes is Highway's protocol.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "vector_elementwise.cpp"
#include <hwy/foreach_target.h>
#include <hwy/highway.h>
// clang-format on

#include "vector_convert-inl.h"
#include "vector_map-inl.h"
#include "vector_sleef-inl.h"

HWY_BEFORE_NAMESPACE();
namespace hetero::cpu::vec {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

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
    case UnaryOp::log1p:  // SLEEF's log1p overflows to inf above half the largest value;
      // there log1p(x) = log(x) to the last bit (x > 2^60: 1/x is below half an ulp of log x)
      map1(d, in, out, n, [d](V v) {
        return hn::IfThenElse(v > hn::Set(d, T(1152921504606846976.0)), Sleef_log(v),
                              Sleef_log1p(v));
      });
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
    default:         // pow, atan2, fmod, remainder: the scalar rules (C pow, atan2, fmod), which
      return false;  // SLEEF's would not match bit for bit
  }
}

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

}  // namespace HWY_NAMESPACE
}  // namespace hetero::cpu::vec
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace hetero::cpu::vec {

HWY_EXPORT(UnaryImpl);
HWY_EXPORT(BinaryImpl);

bool unary(UnaryOp op, DType dtype, const void* in, void* out, std::int64_t n) {
  return HWY_DYNAMIC_DISPATCH(UnaryImpl)(op, dtype, in, out, n);
}
bool binary(BinaryOp op, DType dtype, const void* a, int a_step, const void* b, int b_step,
            void* out, std::int64_t n) {
  return HWY_DYNAMIC_DISPATCH(BinaryImpl)(op, dtype, a, a_step, b, b_step, out, n);
}

}  // namespace hetero::cpu::vec
#endif
