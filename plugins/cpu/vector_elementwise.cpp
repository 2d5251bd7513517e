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

// The op's vector rule on vectors of d (float or double lanes: the scalar rules of
// op_table.hpp, in the same arithmetic), handed to apply(f), which maps f over the operands;
// false, with apply not called, where there is none.
template <class D, class Apply>
bool unary_rule(UnaryOp op, D d, Apply&& apply) {
  using T = hn::TFromD<D>;
  using V = hn::Vec<D>;
  switch (op) {
    case UnaryOp::neg:
      apply([](V v) { return hn::Neg(v); });
      return true;
    case UnaryOp::abs:
      apply([](V v) { return hn::Abs(v); });
      return true;
    case UnaryOp::sqrt:
      apply([](V v) { return hn::Sqrt(v); });
      return true;
    case UnaryOp::relu:  // as the rule: x < 0 is false for NaN and -0, which pass through
      apply([d](V v) { return hn::IfThenZeroElse(v < hn::Zero(d), v); });
      return true;
#if HETERO_TARGET_INTERFACE_MINOR >= 5
    case UnaryOp::rsqrt:  // 1 / sqrt(x), both correctly rounded: the scalar rule bit for bit
      apply([d](V v) { return hn::Set(d, T(1)) / hn::Sqrt(v); });
      return true;
#endif
#if HETERO_TARGET_INTERFACE_MINOR >= 11
    // Exact, as the scalar rules: 1 / x correctly rounded; floor, ceil, trunc and round (ties
    // to even, as rint in the default rounding mode) keep NaN and infinities, and the input's
    // sign (CopySign: Highway's SSSE3 emulation rounds through integers and loses -0, as in
    // ceil(-0.5) = -0).
    case UnaryOp::reciprocal:
      apply([d](V v) { return hn::Set(d, T(1)) / v; });
      return true;
    case UnaryOp::floor:
      apply([](V v) { return hn::CopySign(hn::Floor(v), v); });
      return true;
    case UnaryOp::ceil:
      apply([](V v) { return hn::CopySign(hn::Ceil(v), v); });
      return true;
    case UnaryOp::round:
      apply([](V v) { return hn::CopySign(hn::Round(v), v); });
      return true;
    case UnaryOp::trunc:
      apply([](V v) { return hn::CopySign(hn::Trunc(v), v); });
      return true;
    case UnaryOp::sign:  // 1, -1, or 0 for 0 and NaN (both comparisons false)
      apply([d](V v) {
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
      apply([](V v) { return Sleef_exp(v); });
      return true;
    case UnaryOp::log:
      apply([](V v) { return Sleef_log(v); });
      return true;
    case UnaryOp::tanh:
      apply([](V v) { return Sleef_tanh(v); });
      return true;
    case UnaryOp::sigmoid: {  // 1 / (1 + exp(-x))
      apply([d](V v) {
        const V one = hn::Set(d, T(1));
        return one / (one + Sleef_exp(hn::Neg(v)));
      });
      return true;
    }
#if HETERO_TARGET_INTERFACE_MINOR >= 1
    case UnaryOp::sin:
      apply([](V v) { return Sleef_sin(v); });
      return true;
    case UnaryOp::cos:
      apply([](V v) { return Sleef_cos(v); });
      return true;
#endif
#if HETERO_TARGET_INTERFACE_MINOR >= 5
    case UnaryOp::log1p:  // SLEEF's log1p overflows to inf above half the largest value;
      // there log1p(x) = log(x) to the last bit (x > 2^60: 1/x is below half an ulp of log x)
      apply([d](V v) {
        return hn::IfThenElse(v > hn::Set(d, T(1152921504606846976.0)), Sleef_log(v),
                              Sleef_log1p(v));
      });
      return true;
    case UnaryOp::expm1:
      apply([](V v) { return Sleef_expm1(v); });
      return true;
#endif
#if HETERO_TARGET_INTERFACE_MINOR >= 11
    case UnaryOp::erf:
      apply([](V v) { return Sleef_erf(v); });
      return true;
#endif
    default:
      return false;
  }
}

// The binary op's vector rule, as unary_rule.
template <class D, class Apply>
bool binary_rule(BinaryOp op, D d, Apply&& apply) {
  using T = hn::TFromD<D>;
  using V = hn::Vec<D>;
  switch (op) {
    case BinaryOp::add:
      apply([](V x, V y) { return x + y; });
      return true;
    case BinaryOp::sub:
      apply([](V x, V y) { return x - y; });
      return true;
    case BinaryOp::mul:
      apply([](V x, V y) { return x * y; });
      return true;
    case BinaryOp::div:
      apply([](V x, V y) { return x / y; });
      return true;
    case BinaryOp::maximum:  // (x != x || x > y) ? x : y: a NaN on either side wins
      apply([](V x, V y) { return hn::IfThenElse(hn::Or(hn::IsNaN(x), x > y), x, y); });
      return true;
    case BinaryOp::minimum:
      apply([](V x, V y) { return hn::IfThenElse(hn::Or(hn::IsNaN(x), x < y), x, y); });
      return true;
    // Comparisons: 1 or 0 in T (IEEE: every comparison with NaN is false but !=).
    case BinaryOp::eq:
      apply([d](V x, V y) { return hn::IfThenElseZero(x == y, hn::Set(d, T(1))); });
      return true;
    case BinaryOp::ne:
      apply([d](V x, V y) { return hn::IfThenZeroElse(x == y, hn::Set(d, T(1))); });
      return true;
    case BinaryOp::lt:
      apply([d](V x, V y) { return hn::IfThenElseZero(x < y, hn::Set(d, T(1))); });
      return true;
    case BinaryOp::le:
      apply([d](V x, V y) { return hn::IfThenElseZero(x <= y, hn::Set(d, T(1))); });
      return true;
    case BinaryOp::gt:
      apply([d](V x, V y) { return hn::IfThenElseZero(x > y, hn::Set(d, T(1))); });
      return true;
    case BinaryOp::ge:
      apply([d](V x, V y) { return hn::IfThenElseZero(x >= y, hn::Set(d, T(1))); });
      return true;
    default:         // pow, atan2, fmod, remainder: the scalar rules (C pow, atan2, fmod), which
      return false;  // SLEEF's would not match bit for bit
  }
}

bool UnaryImpl(UnaryOp op, DType dtype, const void* in, void* out, std::int64_t n) {
  const auto dense = [&](auto d) {
    using T = hn::TFromD<decltype(d)>;
    return unary_rule(
        op, d, [&](auto f) { map1(d, static_cast<const T*>(in), static_cast<T*>(out), n, f); });
  };
  // 16-bit input: the float32 rule, each result rounded once (Note [16-bit in registers]).
  const auto widened = [&](auto storage) {
    const hn::ScalableTag<float> df;
    return unary_rule(op, df, [&](auto f) {
      map1_16<decltype(storage)::value>(df, static_cast<const std::uint16_t*>(in),
                                        static_cast<std::uint16_t*>(out), n, f);
    });
  };
  if (dtype == DType::float32) return dense(hn::ScalableTag<float>());
  if (dtype == DType::float64) return dense(hn::ScalableTag<double>());
  return visit_16bit(dtype, widened);
}

bool BinaryImpl(BinaryOp op, DType dtype, const void* a, int sa, const void* b, int sb, void* out,
                std::int64_t n) {
  const auto dense = [&](auto d) {
    using T = hn::TFromD<decltype(d)>;
    return binary_rule(op, d, [&](auto f) {
      map2(d, static_cast<const T*>(a), sa, static_cast<const T*>(b), sb, static_cast<T*>(out), n,
           f);
    });
  };
  const auto widened = [&](auto storage) {
    const hn::ScalableTag<float> df;
    return binary_rule(op, df, [&](auto f) {
      map2_16<decltype(storage)::value>(df, static_cast<const std::uint16_t*>(a), sa,
                                        static_cast<const std::uint16_t*>(b), sb,
                                        static_cast<std::uint16_t*>(out), n, f);
    });
  };
  if (dtype == DType::float32) return dense(hn::ScalableTag<float>());
  if (dtype == DType::float64) return dense(hn::ScalableTag<double>());
  return visit_16bit(dtype, widened);
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
