// SPDX-License-Identifier: Apache-2.0
// The ops of interface minor 4 (issue #27): comparisons, pow and where (op-table rows, on
// every backend), and what the core composes from them (logical ops, NaN tests, clamp,
// masked_fill, isclose / allclose / equal, all / any, cat and stack). Values, dtypes and
// errors as torch 1.13 gives them (each expectation below was read from torch); gradients
// against torch's formulas. The differential test (tests/torch_diff) covers random cases.
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include <hetero/autograd.hpp>
#include <hetero/hetero.hpp>

namespace hetero {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

std::vector<bool> bools(const Tensor& t) {
  EXPECT_EQ(t.dtype(), DType::bool_);
  return t.to_vector<bool>();
}

TEST(CompareOps, ComparisonsGiveBoolAndTreatNaNAsUnequal) {
  const Tensor a = tensor({1.0, 2.0, kNaN, -0.0});
  const Tensor b = tensor({1.0, 3.0, kNaN, 0.0});
  EXPECT_EQ(bools(eq(a, b)), (std::vector<bool>{true, false, false, true}));
  EXPECT_EQ(bools(ne(a, b)), (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ(bools(a < b), (std::vector<bool>{false, true, false, false}));
  EXPECT_EQ(bools(a <= b), (std::vector<bool>{true, true, false, true}));
  EXPECT_EQ(bools(a > b), (std::vector<bool>{false, false, false, false}));
  EXPECT_EQ(bools(a >= b), (std::vector<bool>{true, false, false, true}));
  // Broadcasting and promotion: int32 against a floating scalar compares in float32.
  const Tensor i = tensor({1, 2}).to(DType::int32);
  EXPECT_EQ(bools(i < 2.5), (std::vector<bool>{true, true}));
  EXPECT_EQ(bools(i == 2), (std::vector<bool>{false, true}));
  EXPECT_EQ(bools(2 < i), (std::vector<bool>{false, false}));
  // An integral scalar wraps into the tensor's dtype (as torch: uint8 < 300 is < 44).
  const Tensor u = tensor({46, 2}).to(DType::uint8);
  EXPECT_EQ(bools(u < 300), (std::vector<bool>{false, true}));
  EXPECT_EQ(bools(u == 302), (std::vector<bool>{true, false}));
  // Bool operands and a [2, 1] x [3] broadcast.
  const Tensor m = tensor({1, 0}).to(DType::bool_);
  EXPECT_EQ(bools(m < tensor({1.5, 0.0})), (std::vector<bool>{true, false}));
  const Tensor col = tensor({1, 2}).view({2, 1}), row = tensor({0, 1, 2});
  const Tensor c = ge(col, row);
  EXPECT_EQ(c.shape(), (Shape{2, 3}));
  EXPECT_EQ(bools(c), (std::vector<bool>{true, true, false, true, true, true}));
  // 16-bit floats, and no gradient for a bool result.
  const Tensor h = tensor({1.0, 2.0}).to(DType::float16).requires_grad_();
  const Tensor r = h > 1.5;
  EXPECT_FALSE(r.requires_grad());
  EXPECT_EQ(bools(r), (std::vector<bool>{false, true}));
}

TEST(CompareOps, PowFollowsTorchForEveryDtype) {
  // Integers: squaring with wrap-around; negative exponents as 1 / x^|y| truncated.
  const Tensor a = tensor({2, 3, -2, 1, -1, -1}).to(DType::int32);
  const Tensor b = tensor({3, -1, 0, -5, -3, -4}).to(DType::int32);
  EXPECT_EQ(pow(a, b).to_vector<std::int32_t>(), (std::vector<std::int32_t>{8, 0, 1, 1, -1, 1}));
  EXPECT_EQ(pow(tensor({-2}).to(DType::int32), tensor({31}).to(DType::int32)).item<std::int32_t>(),
            std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(pow(tensor({3}).to(DType::uint8), tensor({5}).to(DType::uint8)).item<std::uint8_t>(),
            243 % 256);
  EXPECT_EQ(pow(tensor({2}).to(DType::int8), tensor({7}).to(DType::int8)).item<std::int8_t>(),
            -128);
  // Floating: C pow.
  const Tensor f = pow(tensor({0.0, 0.0, -1.0, 2.0}), tensor({0.0, -1.0, 0.5, 2.0}));
  const auto v = f.to_vector<double>();
  EXPECT_EQ(v[0], 1.0);
  EXPECT_EQ(v[1], kInf);
  EXPECT_TRUE(std::isnan(v[2]));
  EXPECT_EQ(v[3], 4.0);
  // Scalar forms and dtypes (torch: int ** int stays int, int ** 0.5 is float32, 2 ** int).
  EXPECT_EQ(pow(tensor({2, 3}).to(DType::int32), 2).dtype(), DType::int32);
  EXPECT_EQ(pow(tensor({2, 3}), 0.5).dtype(), DType::float32);
  EXPECT_EQ(pow(2, tensor({1, 2}).to(DType::int32)).to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{2, 4}));
  EXPECT_EQ(pow(2.5, tensor({1, 2})).dtype(), DType::float32);
  EXPECT_EQ(pow(tensor({1, 0}).to(DType::bool_), 2).dtype(), DType::int64);
  // Errors as torch's.
  EXPECT_THROW((void)pow(tensor({2}), -1), DTypeError);
  EXPECT_THROW((void)pow(tensor({2}).to(DType::int8), 300), ValueError);
  const Tensor t = tensor({1, 0}).to(DType::bool_);
  EXPECT_THROW((void)pow(t, t), DTypeError);
  // A floating exponent beyond a 16-bit tensor's largest value raises, inf passes, as
  // torch.pow(Tensor, Scalar) (torch_diff seed 777, case 3852); float32 and a scalar base
  // do not check (torch: pow(bf16 -3, -1.3e308) raises, pow(1e39, bf16 -3) is 0).
  const Tensor bf = tensor({-3.0}).to(DType::bfloat16), hf = tensor({-3.0}).to(DType::float16);
  EXPECT_THROW((void)pow(bf, -1.3482698511467367e308), DTypeError);
  EXPECT_THROW((void)pow(bf, 3.5e38), DTypeError);
  EXPECT_THROW((void)pow(hf, 70000.0), DTypeError);
  EXPECT_EQ(pow(bf, 70000.0).to_vector<double>(), (std::vector<double>{kInf}));
  EXPECT_EQ(pow(hf, kInf).to_vector<double>(), (std::vector<double>{kInf}));
  EXPECT_EQ(pow(tensor({-3.0}), 1e39).to_vector<double>(), (std::vector<double>{kInf}));
  EXPECT_EQ(pow(1e39, bf).to_vector<double>(), (std::vector<double>{0.0}));
  // A floating tensor's scalar exponent keeps double precision (torch's pow(Tensor, Scalar)):
  // 9.2e18 ** -0.438... in float32 is the double result rounded once.
  const double e = -0.43843634481444194;
  const float big = 9.223372e18f;
  EXPECT_EQ(pow(tensor({big}), e).item<float>(), static_cast<float>(std::pow(double{big}, e)));
}

TEST(CompareOps, PowGradientsAreTorchs) {
  const Tensor x = tensor({0.0, 2.0, 1.5}).to(DType::float64).requires_grad_();
  const Tensor y = tensor({0.0, 3.0, -0.5}).to(DType::float64).requires_grad_();
  pow(x, y).sum().backward();
  const auto gx = x.grad().to_vector<double>(), gy = y.grad().to_vector<double>();
  // torch: x.grad [0, 12, -0.5 * 1.5^-1.5], y.grad [0, 8 log 2, 1.5^-0.5 log 1.5]
  EXPECT_EQ(gx[0], 0.0);
  EXPECT_DOUBLE_EQ(gx[1], 12.0);
  EXPECT_DOUBLE_EQ(gx[2], -0.5 * std::pow(1.5, -1.5));
  EXPECT_EQ(gy[0], 0.0);
  EXPECT_DOUBLE_EQ(gy[1], 8.0 * std::log(2.0));
  EXPECT_DOUBLE_EQ(gy[2], std::pow(1.5, -0.5) * std::log(1.5));
}

// torch's pow(x, 0.5) is sqrt(x): -inf gives NaN (C's pow gives inf) and the gradient at -0
// is -inf (hetero gave inf), in every floating dtype. Found by a sweep of special values.
TEST(CompareOps, PowOfOneHalfIsSqrtAsTorch) {
  for (const DType d : {DType::float32, DType::float64, DType::bfloat16}) {
    SCOPED_TRACE(dtype_name(d));
    const Tensor x = tensor({-kInf, -0.0, 4.0, kInf}).to(d).requires_grad_();
    const Tensor y = pow(x, 0.5);
    const auto v = y.to(DType::float64).to_vector<double>();
    EXPECT_TRUE(std::isnan(v[0]));
    EXPECT_EQ(v[1], 0.0);
    EXPECT_TRUE(std::signbit(v[1]));
    EXPECT_EQ(v[2], 2.0);
    EXPECT_EQ(v[3], kInf);
    y.sum().backward();
    const auto g = x.grad().to(DType::float64).to_vector<double>();
    EXPECT_EQ(g[1], -kInf);
    EXPECT_EQ(g[2], 0.25);
  }
}

TEST(CompareOps, WhereSelectsBroadcastsPromotesAndRoutesGradients) {
  const Tensor c = tensor({1, 0, 1}).to(DType::bool_);
  const Tensor x = tensor({1.0, kNaN, 3.0}).to(DType::float64).requires_grad_();
  const Tensor y = tensor({kInf}).to(DType::float64).requires_grad_();  // broadcast
  const Tensor r = where(c, x, y);
  const auto v = r.to_vector<double>();
  EXPECT_EQ(v[0], 1.0);
  EXPECT_EQ(v[1], kInf);  // selected, never multiplied: the NaN beside it stays out
  EXPECT_EQ(v[2], 3.0);
  r.sum().backward();
  EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{1, 0, 1}));
  EXPECT_EQ(y.grad().to_vector<double>(), (std::vector<double>{1}));
  // Promotion as torch: int64 with 2.5 is float32; float16 with a 0-d float64 stays float16;
  // bool operands stay bool.
  EXPECT_EQ(where(c, tensor({1, 2, 3}), 2.5).dtype(), DType::float32);
  EXPECT_EQ(
      where(c, tensor({1.0, 2.0, 3.0}).to(DType::float16), full({}, 2.0, DType::float64)).dtype(),
      DType::float16);
  EXPECT_EQ(bools(where(c, c, logical_not(c))), (std::vector<bool>{true, true, true}));
  EXPECT_EQ(where(c, 7.0, tensor({1, 2, 3}).to(DType::int8)).to_vector<float>(),
            (std::vector<float>{7, 2, 7}));
  // The condition must be bool; shapes must broadcast.
  EXPECT_THROW((void)where(tensor({1, 0, 1}), x, y), DTypeError);
  EXPECT_THROW((void)where(tensor({1, 0, 1}).to(DType::uint8), x, y),
               DTypeError);  // semantics row 28
  EXPECT_THROW((void)where(c, tensor({1.0, 2.0}), y), ShapeError);
}

TEST(CompareOps, LogicalOpsAndNaNTests) {
  const Tensor a = tensor({1.0, 0.0, kNaN}), b = tensor({2, 2, 0});
  EXPECT_EQ(bools(logical_and(a, b)), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(bools(logical_or(a, b)), (std::vector<bool>{true, true, true}));
  EXPECT_EQ(bools(logical_xor(a, b)), (std::vector<bool>{false, true, true}));
  EXPECT_EQ(bools(logical_not(a)), (std::vector<bool>{false, true, false}));  // NaN is true
  const Tensor f = tensor({kInf, kNaN, 1.0, -kInf});
  EXPECT_EQ(bools(isnan(f)), (std::vector<bool>{false, true, false, false}));
  EXPECT_EQ(bools(isinf(f)), (std::vector<bool>{true, false, false, true}));
  EXPECT_EQ(bools(isfinite(f)), (std::vector<bool>{false, false, true, false}));
  EXPECT_EQ(bools(isinf(tensor({1, 2}))), (std::vector<bool>{false, false}));
  EXPECT_EQ(bools(isfinite(tensor({1, 2}))), (std::vector<bool>{true, true}));
  EXPECT_TRUE(all(tensor({1, 2})).item<bool>());
  EXPECT_FALSE(all(tensor({1, 0})).item<bool>());
  EXPECT_TRUE(any(tensor({0.0, kNaN})).item<bool>());
  EXPECT_TRUE(all(zeros({0})).item<bool>());
  EXPECT_FALSE(any(zeros({0})).item<bool>());
  EXPECT_EQ(all(tensor({1, 2}).to(DType::uint8)).dtype(), DType::uint8);  // as torch
}

TEST(CompareOps, MaskedFillFollowsTorch) {
  const Tensor x = tensor({1, 2, 3});
  const Tensor m = tensor({1, 0, 1}).to(DType::bool_);
  EXPECT_EQ(masked_fill(x, m, 2.7).to_vector<std::int64_t>(), (std::vector<std::int64_t>{2, 2, 2}));
  EXPECT_EQ(masked_fill(x, m, 2.7).dtype(), DType::int64);
  EXPECT_THROW((void)masked_fill(x.to(DType::uint8), m, 300), DTypeError);  // overflow
  EXPECT_THROW((void)masked_fill(x, tensor({1, 0, 1}), 0.0), DTypeError);   // mask not bool
  EXPECT_THROW((void)masked_fill(x, tensor({1, 0}).to(DType::bool_), 0.0), ShapeError);
  // The mask and the tensor broadcast together (torch's out-of-place masked_fill).
  const Tensor r =
      masked_fill(full({1, 1}, 1.0), tensor({1, 0}).to(DType::bool_).view({2, 1}), 5.0);
  EXPECT_EQ(r.shape(), (Shape{2, 1}));
  EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{5, 1}));
  // The gradient passes where the mask is false.
  const Tensor w = tensor({1.0, 2.0, 3.0}).to(DType::float64).requires_grad_();
  masked_fill(w, m, 0.0).sum().backward();
  EXPECT_EQ(w.grad().to_vector<double>(), (std::vector<double>{0, 1, 0}));
}

TEST(CompareOps, ClampFollowsTorch) {
  const Tensor x = tensor({1.0, kNaN, 5.0, 3.0});
  const auto v = clamp(x, 2.0, 4.0).to_vector<double>();
  EXPECT_EQ(v[0], 2.0);
  EXPECT_TRUE(std::isnan(v[1]));
  EXPECT_EQ(v[2], 4.0);
  EXPECT_EQ(clamp(tensor({1, 5, 9}), 2, 4).dtype(), DType::int64);
  EXPECT_EQ(clamp(tensor({1, 5, 9}), 2, 4).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{2, 4, 4}));
  EXPECT_EQ(clamp(tensor({1, 5, 9}), 2.5, std::nullopt).dtype(), DType::float32);
  EXPECT_EQ(clamp(tensor({1.0, 5.0}), 4.0, 2.0).to_vector<double>(), (std::vector<double>{2, 2}));
  EXPECT_THROW((void)clamp(x, std::optional<Number>(), std::optional<Number>()), ValueError);
  // Gradient: 1 where min <= x <= max (bounds included), to tensor bounds where x is outside.
  const Tensor g = tensor({1.0, 2.0, 3.0, 4.0, 5.0}).to(DType::float64).requires_grad_();
  const Tensor lo = full({1}, 2.0, DType::float64).requires_grad_();
  clamp(g, std::optional<Tensor>(lo), std::optional<Tensor>(full({}, 4.0, DType::float64)))
      .sum()
      .backward();
  EXPECT_EQ(g.grad().to_vector<double>(), (std::vector<double>{0, 1, 1, 1, 0}));
  EXPECT_EQ(lo.grad().to_vector<double>(), (std::vector<double>{1}));
}

// Issue #44: a 0-d value tensor that does not fit the input's dtype raises, as the double
// form and torch do (it was wrapped or became inf).
TEST(CompareOps, MaskedFillChecksATensorValueAgainstTheDtype) {
  const Tensor m = tensor({1, 0}).to(DType::bool_);
  const Tensor i8 = tensor({1, 2}).to(DType::int8);
  EXPECT_THROW((void)masked_fill(i8, m, full({}, 300.0)), DTypeError);
  EXPECT_THROW((void)masked_fill(i8, m, full({}, -129.0, DType::int64)), DTypeError);
  EXPECT_EQ(masked_fill(i8, m, full({}, 2.7)).to_vector<std::int8_t>(),
            (std::vector<std::int8_t>{2, 2}));
  const Tensor h = tensor({1.0f, 2.0f}).to(DType::float16);
  EXPECT_THROW((void)masked_fill(h, m, full({}, 1e10)), DTypeError);
  EXPECT_EQ(masked_fill(h, m, full({}, kInf)).to_vector<float>()[0], kInf);
  EXPECT_TRUE(std::isnan(masked_fill(h, m, full({}, kNaN)).to_vector<float>()[0]));
}

// Issue #44 items 2-4 and its "accepted where torch raises" cases; every value read from
// torch 1.13.
TEST(CompareOps, ClampComparesInTheResultDtype) {
  const Tensor u = tensor({9}).to(DType::uint8);
  // float32 result: 9 is compared with -3 and 100.5 in float32 (was max(9, 253) = 253 in
  // uint8, then 100.5).
  const Tensor r = clamp(u, -3, 100.5);
  EXPECT_EQ(r.dtype(), DType::float32);
  EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{9}));
  EXPECT_EQ(clamp(u, 2.5, std::nullopt).to_vector<float>(), (std::vector<float>{9}));
  // An integer result: the bound wraps into uint8 as torch's does (-3 is 253).
  EXPECT_EQ(clamp(u, -3, std::nullopt).to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{253}));
  EXPECT_EQ(clamp(u, -3, 100).to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{100}));
  // Beyond torch's overflow rule: DTypeError (was wrapped: 300 -> 44).
  const Tensor i8 = tensor({5, -100}).to(DType::int8);
  EXPECT_THROW((void)clamp(i8, std::nullopt, 300), DTypeError);
  EXPECT_THROW((void)clamp(i8, 300, std::nullopt), DTypeError);
  EXPECT_THROW((void)clamp(i8, -300, std::nullopt), DTypeError);
  EXPECT_THROW((void)clamp(u, 300, std::nullopt), DTypeError);
  EXPECT_THROW((void)clamp(u, std::nullopt, -256), DTypeError);
  EXPECT_EQ(clamp(i8, std::nullopt, -300.0).to_vector<float>(), (std::vector<float>{-300, -300}));
  EXPECT_THROW((void)clamp(tensor({1.0}).to(DType::float16), 1e10, std::nullopt), DTypeError);
  EXPECT_EQ(clamp(tensor({1.0}).to(DType::float16), kInf, std::nullopt).to_vector<float>()[0],
            kInf);
  // bool with bool bounds: refused by torch too.
  const Tensor b = tensor({1, 0}).to(DType::bool_);
  EXPECT_THROW((void)clamp(b, std::optional<Tensor>(b), std::optional<Tensor>(b)), DTypeError);
  // Tensor bounds: int8 x with an int8 min and a float32 max computes in float32.
  const Tensor x8 = tensor({9}).to(DType::uint8);
  const Tensor r2 = clamp(x8, std::optional<Tensor>(full({1}, -3.0, DType::int8)),
                          std::optional<Tensor>(full({1}, 100.5, DType::float32)));
  EXPECT_EQ(r2.dtype(), DType::float32);
  EXPECT_EQ(r2.to_vector<float>(), (std::vector<float>{9}));
}

// Issue #44 item 4 (docs/semantics.md row 26): a NaN bound gives NaN, scalar or tensor (torch
// 1.13 ignores a lone NaN scalar bound, yet gives NaN for clamp(x, nan, 2.0) and for NaN
// tensor bounds).
TEST(CompareOps, ClampWithANanBoundIsNan) {
  const Tensor x = tensor({1.0, 2.0, 3.0});
  for (const Tensor& r :
       {clamp(x, std::nullopt, kNaN), clamp(x, kNaN, std::nullopt), clamp(x, kNaN, 2.0),
        clamp(x, std::nullopt, std::optional<Tensor>(full({}, kNaN)))})
    for (float v : r.to_vector<float>()) EXPECT_TRUE(std::isnan(v));
  // Beside a NaN bound the other is not checked against the dtype (torch fills NaN first):
  // float16 with min 1e10 and max NaN is NaN; min 1e10 alone still raises.
  const Tensor h = tensor({-15.1171875}).to(DType::float16);
  EXPECT_TRUE(std::isnan(clamp(h, 1e10, kNaN).item<double>()));
  EXPECT_EQ(clamp(h, 1e10, kNaN).dtype(), DType::float16);
  EXPECT_THROW(clamp(h, 1e10, std::nullopt), DTypeError);
}

// Issue #44 item 3: torch's clamp_backward_min_max, min > max and ties included. Values and
// gradients read from torch 1.13.
TEST(CompareOps, ClampGradientFollowsTorchWithTensorBounds) {
  auto leaf = [](std::initializer_list<double> v) {
    return tensor(v).to(DType::float64).requires_grad_();
  };
  {  // min > max (elements 0-2) and ties at both bounds (3-4)
    const Tensor x = leaf({0, 5, 10, 2, 3}), lo = leaf({4, 4, 4, 2, 3}), hi = leaf({3, 3, 3, 2, 3});
    const Tensor y = clamp(x, std::optional<Tensor>(lo), std::optional<Tensor>(hi));
    EXPECT_EQ(y.to_vector<double>(), (std::vector<double>{3, 3, 3, 2, 3}));
    y.sum().backward();
    EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{0, 0, 0, 1, 1}));
    EXPECT_EQ(lo.grad().to_vector<double>(), (std::vector<double>{0, 0, 0, 0, 0}));
    EXPECT_EQ(hi.grad().to_vector<double>(), (std::vector<double>{1, 1, 1, 0, 0}));
  }
  {  // below min < max, above max, NaN x and NaN bounds
    const Tensor x = leaf({0, 9, kNaN, 1, 2}), lo = leaf({1, 1, 1, kNaN, 1}),
                 hi = leaf({3, 3, 3, 3, kNaN});
    clamp(x, std::optional<Tensor>(lo), std::optional<Tensor>(hi)).sum().backward();
    EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{0, 0, 0, 0, 0}));
    EXPECT_EQ(lo.grad().to_vector<double>(), (std::vector<double>{1, 0, 0, 0, 0}));
    EXPECT_EQ(hi.grad().to_vector<double>(), (std::vector<double>{0, 1, 0, 0, 0}));
  }
  {  // scalar bounds: a tie at both gives g, min > max gives 0
    const Tensor x = leaf({1, 2, 3});
    clamp(x, 2.0, 2.0).sum().backward();
    EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{0, 1, 0}));
    const Tensor z = leaf({1, 2, 3});
    clamp(z, 3.0, 1.0).sum().backward();
    EXPECT_EQ(z.grad().to_vector<double>(), (std::vector<double>{0, 0, 0}));
  }
}

TEST(CompareOps, IsCloseAllCloseAndEqual) {
  const Tensor a = tensor({1.0, kNaN, kInf, 1.0}).to(DType::float64);
  const Tensor b = tensor({1.0 + 1e-9, kNaN, kInf, 1.1}).to(DType::float64);
  EXPECT_EQ(bools(isclose(a, b)), (std::vector<bool>{true, false, true, false}));
  EXPECT_EQ(bools(isclose(a, b, 1e-5, 1e-8, true)), (std::vector<bool>{true, true, true, false}));
  EXPECT_EQ(bools(isclose(a, b, 0.2, 0.0)), (std::vector<bool>{true, false, true, true}));
  EXPECT_TRUE(allclose(tensor({1.0, 2.0}), tensor({1.0, 2.00001})));
  EXPECT_FALSE(allclose(a, b));
  EXPECT_EQ(bools(isclose(tensor({1, 2}), tensor({1, 3}))), (std::vector<bool>{true, false}));
  EXPECT_THROW((void)isclose(tensor({1, 2}), tensor({1.0, 2.0})), DTypeError);
  EXPECT_THROW((void)isclose(a, b, -1.0), ValueError);
  EXPECT_TRUE(equal(tensor({1, 2}), tensor({1.0, 2.0})));
  EXPECT_FALSE(equal(tensor({1, 2}), tensor({1, 2, 3})));
  EXPECT_FALSE(equal(tensor({kNaN}), tensor({kNaN})));
}

TEST(CompareOps, CatAndStackFollowTorch) {
  const Tensor a = tensor({{1, 2}, {3, 4}}), b = tensor({{5.5, 6.5}});
  const Tensor c = cat({a, b});
  EXPECT_EQ(c.shape(), (Shape{3, 2}));
  EXPECT_EQ(c.dtype(), DType::float32);  // promoted over the inputs
  EXPECT_EQ(c.to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 5.5f, 6.5f}));
  EXPECT_EQ(cat({a, a.t()}, -1).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{1, 2, 1, 3, 3, 4, 2, 4}));
  EXPECT_EQ(cat({a, zeros({0})}).shape(), (Shape{2, 2}));  // a 1-D empty tensor is skipped
  EXPECT_THROW((void)cat({a, tensor({{1, 2, 3}})}), ShapeError);
  EXPECT_THROW((void)cat({}), ValueError);
  EXPECT_THROW((void)cat({full({}, 1.0)}), ShapeError);
  EXPECT_THROW((void)cat({a}, 2), IndexError);
  const Tensor s = stack({tensor({1.0, 2.0}), tensor({3.0, 4.0})}, 1);
  EXPECT_EQ(s.shape(), (Shape{2, 2}));
  EXPECT_EQ(s.to_vector<float>(), (std::vector<float>{1, 3, 2, 4}));
  EXPECT_THROW((void)stack({tensor({1.0}), tensor({1.0, 2.0})}), ShapeError);
  // Gradient: each input its slice.
  const Tensor x = tensor({1.0, 2.0}).to(DType::float64).requires_grad_();
  const Tensor y = tensor({3.0}).to(DType::float64).requires_grad_();
  (cat({x, y}) * tensor({1.0, 2.0, 3.0}).to(DType::float64)).sum().backward();
  EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{1, 2}));
  EXPECT_EQ(y.grad().to_vector<double>(), (std::vector<double>{3}));
}

TEST(CompareOps, OpsOfMinorFourArePredatedOnAnOlderPlugin) {
  const BackendStatus s = load_plugin(HETERO_TEST_OLDMINOR_PLUGIN);
  ASSERT_TRUE(s.loaded) << s.reason;
  const Tensor x = full({3}, 0.5, Device("oldminor:0"));
  for (auto f :
       {+[](const Tensor& t) { return eq(t, t); }, +[](const Tensor& t) { return pow(t, t); },
        +[](const Tensor& t) { return where(t > 0.0, t, t); }}) {
    try {
      (void)f(x);
      FAIL() << "an op of minor 4 ran on a plugin of minor 0";
    } catch (const NotImplementedError& e) {
      EXPECT_NE(std::string(e.what()).find("predates this op"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace hetero
