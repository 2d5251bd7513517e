// SPDX-License-Identifier: Apache-2.0
// <hetero/manipulation.hpp>, linspace/eye and bmm/baddbmm beyond what the differential
// test's `shape` cases compare with torch (values, dtypes, errors, gradients): the factories'
// values against torch 1.13's (printed by python3-torch, below), views that alias, the
// ranks and sizes the compositions must not limit, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <tuple>
#include <vector>

#include <hetero/hetero.hpp>

using namespace hetero;

namespace {

std::vector<double> f64(const Tensor& t) { return t.to(DType::float64).to_vector<double>(); }

}  // namespace

TEST(Manipulation, LinspaceIsTorchsFormula) {
  // torch.linspace(-3.5, 7.25, 9) and (1, -1, 4), float32 and float64 (torch 1.13).
  EXPECT_EQ(f64(linspace(-3.5, 7.25, 9)),
            (std::vector<double>{-3.5, -2.15625, -0.8125, 0.53125, 1.875, 3.21875, 4.5625, 5.90625,
                                 7.25}));
  EXPECT_EQ(f64(linspace(1, -1, 4)),
            (std::vector<double>{1.0, 0.3333333134651184, -0.3333333134651184, -1.0}));
  EXPECT_EQ(f64(linspace(1, -1, 4, TensorOptions().dtype(DType::float64))),
            (std::vector<double>{1.0, 0.33333333333333337, -0.33333333333333337, -1.0}));
  EXPECT_EQ(f64(linspace(-1.1, 1.1, 7)),
            (std::vector<double>{-1.100000023841858, -0.7333333492279053, -0.36666667461395264, 0.0,
                                 0.36666667461395264, 0.7333333492279053, 1.100000023841858}));
  EXPECT_EQ(linspace(-3, 7, 6, TensorOptions().dtype(DType::int64)).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{-3, -1, 1, 3, 5, 7}));
  EXPECT_EQ(linspace(0, 10, 4, TensorOptions().dtype(DType::int32)).to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{0, 3, 6, 10}));
  EXPECT_EQ(f64(linspace(0, 10, 1)), std::vector<double>{0.0});
  EXPECT_EQ(linspace(0, 1, 0).numel(), 0);
  EXPECT_EQ(linspace(0, 1, 5).dtype(), DType::float32);
  EXPECT_THROW(linspace(0, 1, -1), ValueError);
  EXPECT_THROW(linspace(0, 1, 3, TensorOptions().dtype(DType::bool_)), DTypeError);
  // More elements than one host chunk: ends exact, monotone.
  const auto big = f64(linspace(0, 1, 70000, TensorOptions().dtype(DType::float64)));
  EXPECT_EQ(big.front(), 0.0);
  EXPECT_EQ(big.back(), 1.0);
  for (std::size_t i = 1; i < big.size(); ++i) ASSERT_LT(big[i - 1], big[i]) << i;
}

// linspace converts its bounds to the dtype first, checked as torch does (torch 1.13 raises
// "value cannot be converted to type ... without overflow" for each case below but -5 into
// uint8, which it wraps to 251: docs/semantics.md row 16, hetero's one rule for a negative
// value written into an unsigned dtype, refuses it as full() does). hetero
// gave 0 150 44 for (0, 300, 3, uint8), wrapped int32s past 2^31, and converted 1e300 to
// int64 with undefined behaviour.
TEST(Manipulation, LinspaceRefusesBoundsItsDtypeCannotHold) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<std::tuple<double, double, DType>> refused{
      {0, 300, DType::uint8},          {-0.5, 2, DType::uint8},    {-5, 5, DType::uint8},
      {200, 0, DType::int8},           {-0.5, 127.9, DType::int8}, {0, 3e9, DType::int32},
      {0, 1e19, DType::int64},         {0, 1e300, DType::int64},   {0, inf, DType::int64},
      {std::nan(""), 1, DType::int32}, {0, 1e300, DType::float32}, {0, 1e5, DType::float16}};
  for (const auto& [start, end, dtype] : refused)
    EXPECT_THROW(linspace(start, end, 3, TensorOptions().dtype(dtype)), DTypeError)
        << start << " " << end << " " << dtype_name(dtype);
  // What torch takes: truncated integer bounds in range, and inf into a floating dtype.
  EXPECT_EQ(linspace(-1.5, 2.7, 3, TensorOptions().dtype(DType::int32)).to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{-1, 0, 2}));
  EXPECT_EQ(linspace(0, 255, 3, TensorOptions().dtype(DType::uint8))
                .to(DType::int64)
                .to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{0, 127, 255}));
  EXPECT_TRUE(std::isnan(linspace(0, inf, 3).to_vector<float>()[1]));
}

// linspace is torch's scalar formula (start + step * i in the first half, end - step *
// (steps - 1 - i) in the second) in every dtype, with 16-bit results computed in float32 and
// rounded once (docs/semantics.md row 49). torch 1.13 computes float16 in float16 (the step
// and the index rounded: 0.66699 below; past 65504 steps the step is 0) and its int64 vector path
// adds the step to a truncated base (-33 -32 -32 -32 where every value is -33).
TEST(Manipulation, LinspaceIsItsScalarFormulaInEveryDtype) {
  const auto at = [](const Tensor& t, std::int64_t i) {
    return t.narrow(0, i, 1).to(DType::float64).to_vector<double>()[0];
  };
  const Tensor h = linspace(0, 1, 7, TensorOptions().dtype(DType::float16));
  EXPECT_EQ(at(h, 4), 0.66650390625);  // 2/3 rounded once to float16
  const Tensor b = linspace(0, 1, 7, TensorOptions().dtype(DType::bfloat16));
  EXPECT_EQ(at(b, 4), 0.66796875);  // 2/3 to bfloat16
  const Tensor long16 = linspace(-1, 1, 100001, TensorOptions().dtype(DType::float16));
  EXPECT_EQ(at(long16, 0), -1.0);
  EXPECT_EQ(at(long16, 50000), 0.0);
  EXPECT_EQ(at(long16, 75000), 0.5);
  EXPECT_EQ(at(long16, 100000), 1.0);
  const Tensor i64 = linspace(-100, 100, 131073, TensorOptions().dtype(DType::int64));
  const std::vector<std::int64_t> v = i64.to_vector<std::int64_t>();
  for (std::int64_t i :
       {std::int64_t{43680}, std::int64_t{43681}, std::int64_t{43683}, std::int64_t{100000}})
    EXPECT_EQ(v[static_cast<std::size_t>(i)],
              static_cast<std::int64_t>(i < 65536 ? -100 + 200.0 / 131072 * static_cast<double>(i)
                                                  : 100 - 200.0 / 131072 *
                                                              static_cast<double>(131072 - i)))
        << i;
  EXPECT_EQ(v.front(), -100);
  EXPECT_EQ(v.back(), 100);
}

TEST(Manipulation, EyeAsTorch) {
  EXPECT_EQ(f64(eye(2, 3)), (std::vector<double>{1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(eye(3).shape(), (Shape{3, 3}));
  EXPECT_EQ(eye(3, TensorOptions().dtype(DType::bool_)).dtype(), DType::bool_);
  EXPECT_EQ(eye(0).numel(), 0);
  EXPECT_THROW(eye(-1), ValueError);
  EXPECT_THROW(eye(2, -3), ValueError);
}

TEST(Manipulation, SplitChunkUnbindGiveViews) {
  Tensor x = arange(12, TensorOptions().dtype(DType::float32)).reshape({3, 4});
  std::vector<Tensor> pieces = split(x, 3, 1);
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(pieces[1].shape(), (Shape{3, 1}));
  pieces[1].copy_(full({3, 1}, -1.0));  // a view: x sees it
  EXPECT_EQ(f64(x.narrow(1, 3, 1)), (std::vector<double>{-1, -1, -1}));
  EXPECT_EQ(chunk(x, 5, 0).size(), 3u);              // ceil(3 / 5) = 1 row each
  EXPECT_EQ(chunk(zeros({0, 2}), 3, 0).size(), 3u);  // an empty dimension: 3 empty pieces
  // More chunks than rows, up to the largest count: one row each (ceil(size / chunks) overflowed).
  EXPECT_EQ(chunk(x, std::numeric_limits<std::int64_t>::max(), 0).size(), 3u);
  EXPECT_EQ(unbind(x, -1).size(), 4u);
  EXPECT_EQ(unbind(x, 0)[2].shape(), (Shape{4}));
  EXPECT_THROW(split(x, std::vector<std::int64_t>{1, 1}, 0), ValueError);  // sums to 2, not 3
  EXPECT_THROW(split(x, 0, 0), ValueError);
  EXPECT_THROW(chunk(x, 0), ValueError);
  EXPECT_THROW(unbind(full({}, 1.0)), ShapeError);
  EXPECT_THROW(split(x, 1, 2), IndexError);
}

TEST(Manipulation, RepeatFlipTriangles) {
  const Tensor x = tensor({1.0, 2.0});
  EXPECT_EQ(f64(repeat(x, {2, 2})), (std::vector<double>{1, 2, 1, 2, 1, 2, 1, 2}));
  // As many dimensions as tensors have (8): the composition adds none beyond the result's.
  EXPECT_EQ(repeat(x, {1, 1, 1, 1, 1, 1, 2, 3}).shape(), (Shape{1, 1, 1, 1, 1, 1, 2, 6}));
  Tensor same = repeat(x, {1});
  same.copy_(zeros({2}));  // a copy, never a view
  EXPECT_EQ(f64(x), (std::vector<double>{1, 2}));
  EXPECT_THROW(repeat(zeros({2, 2}), {2}), ShapeError);
  EXPECT_THROW(repeat(x, {-1}), ValueError);
  EXPECT_EQ(f64(flip(tensor({{1.0, 2.0}, {3.0, 4.0}}), {0, 1})), (std::vector<double>{4, 3, 2, 1}));
  EXPECT_THROW(flip(x, {0, -1}), ValueError);
  // A causal mask, as attention builds it.
  const Tensor mask = tril(ones({3, 3}, TensorOptions().dtype(DType::bool_)));
  EXPECT_EQ(mask.dtype(), DType::bool_);
  EXPECT_EQ(f64(mask), (std::vector<double>{1, 0, 0, 1, 1, 0, 1, 1, 1}));
  EXPECT_EQ(f64(triu(ones({2, 3}), 1)), (std::vector<double>{0, 1, 1, 0, 0, 1}));
  EXPECT_THROW(tril(x), ShapeError);
}

TEST(Manipulation, CumsumOneHotBmm) {
  EXPECT_EQ(cumsum(tensor({1, 2, 3}), 0).dtype(), DType::int64);
  EXPECT_EQ(f64(cumsum(tensor({{1.0, 2.0}, {3.0, 4.0}}), 1)), (std::vector<double>{1, 3, 3, 7}));
  // float32 accumulated in float64 and rounded once, as torch's cpu kernel: 2^24 + 1 + 1.
  EXPECT_EQ(f64(cumsum(tensor({16777216.0f, 1.0f, 1.0f}), 0)).back(), 16777218.0);
  EXPECT_EQ(one_hot(tensor({std::int64_t{0}, std::int64_t{2}}), 4).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{1, 0, 0, 0, 0, 0, 1, 0}));
  EXPECT_EQ(one_hot(tensor({std::int64_t{1}, std::int64_t{2}})).shape(), (Shape{2, 3}));
  EXPECT_THROW(one_hot(tensor({std::int64_t{-1}})), ValueError);
  EXPECT_THROW(one_hot(tensor({std::int64_t{3}}), 3), ValueError);
  EXPECT_THROW(one_hot(tensor({1.0})), DTypeError);
  EXPECT_THROW(one_hot(zeros({0}, TensorOptions().dtype(DType::int64))), ValueError);
  const Tensor a = ones({2, 3, 4}), b = ones({2, 4, 5});
  EXPECT_EQ(bmm(a, b).shape(), (Shape{2, 3, 5}));
  EXPECT_THROW(bmm(a, ones({3, 4, 5})), ShapeError);
  EXPECT_THROW(bmm(ones({3, 4}), b), ShapeError);
  const Tensor nan_input = full({3, 5}, NAN);
  EXPECT_EQ(f64(baddbmm(nan_input, a, b, 0.0, 0.5)).front(), 2.0);  // beta 0 ignores NaN
  EXPECT_THROW(baddbmm(ones({2, 2, 3, 5}), a, b), ShapeError);
}

// cumsum of a 0-d input with a dtype: torch converts the one value as a scalar, with its
// overflow check, where a 1-d input's values become inf (differential test seeds 1130472
// case 8895 and 1130502 case 7183: hetero returned inf for the 0-d case).
TEST(Manipulation, CumsumOfA0dInputChecksThatItsValueFitsTheDtype) {
  const TensorOptions f64_opts = TensorOptions().dtype(DType::float64);
  const Tensor big = full({}, 1.35e308, f64_opts);
  EXPECT_THROW(cumsum(big, 0, DType::float32), DTypeError);
  EXPECT_THROW(cumsum(big, -1, DType::bfloat16), DTypeError);
  EXPECT_THROW(cumsum(full({}, 70000.0), 0, DType::float16), DTypeError);
  EXPECT_THROW(cumsum(full({}, NAN, f64_opts), 0, DType::int32), DTypeError);
  EXPECT_THROW(cumsum(full({}, std::int64_t{70000}), 0, DType::int8), DTypeError);
  // What torch keeps: inf and NaN into a floating dtype, anything into bool, a 1-d input.
  EXPECT_TRUE(std::isinf(cumsum(full({}, INFINITY, f64_opts), 0, DType::float32).item<float>()));
  EXPECT_TRUE(std::isnan(cumsum(full({}, NAN, f64_opts), 0, DType::float32).item<float>()));
  EXPECT_EQ(cumsum(full({}, 2.5), 0, DType::bool_).item<bool>(), true);
  EXPECT_EQ(cumsum(full({}, 3.5, f64_opts), 0, DType::int32).item<std::int32_t>(), 3);
  EXPECT_TRUE(std::isinf(f64(cumsum(full({1}, 1.35e308, f64_opts), 0, DType::float32))[0]));
  EXPECT_EQ(cumsum(big, 0).item<double>(), 1.35e308);
}

// baddbmm is one GEMM, alpha * (batch1 @ batch2) + beta * input rounded once (BLAS's alpha
// and beta, as torch): composed of a product, a scaling and a sum, this float16 case gave inf
// at element 1 (2 * 47073.7 leaves float16's range; -49120 brings it back), differential
// test seed 1130018 case 19919. Expected: the float64 result rounded (torch 1.13 has no
// float16 baddbmm on the cpu). The result is in the batches' dtype (torch 1.13: a float64 or
// int64 input with float32 batches gives float32).
TEST(Manipulation, BaddbmmIsOneGemmRoundedOnceInTheBatchesDtype) {
  const Tensor input = tensor({{-0.990234375, -49120.0}, {-3.0, 1.0}}).to(DType::float16);
  const Tensor b1 =
      from_vector(std::vector<double>{-20.78125, 326.0, 0.79443359375, -23.640625, -0.7314453125,
                                      20.828125, -13.7109375, -115.4375},
                  {1, 2, 4})
          .to(DType::float16);
  const Tensor b2 =
      from_vector(std::vector<double>{5.0, -160.75, 0.0013713836669921875, 134.125, 1.7978515625,
                                      0.0265655517578125, 0.006061553955078125, -0.35205078125},
                  {1, 4, 2})
          .to(DType::float16);
  const Tensor r = baddbmm(input, b1, b2, 1.0, 2.0);
  EXPECT_EQ(r.dtype(), DType::float16);
  EXPECT_EQ(f64(r), (std::vector<double>{-205.375, 45024.0, -60.96875, 5904.0}));
  EXPECT_EQ(baddbmm(input.to(DType::float64), b1.to(DType::float32), b2.to(DType::float32)).dtype(),
            DType::float32);
  EXPECT_EQ(
      baddbmm(ones({3, 5}, TensorOptions().dtype(DType::int64)), ones({2, 3, 4}), ones({2, 4, 5}))
          .dtype(),
      DType::float32);
  // The input's gradient is beta * g summed back over the broadcast batch and rows.
  Tensor in = tensor({{1.0, 2.0}});
  in.requires_grad_(true);
  const Tensor y = baddbmm(in, ones({2, 3, 4}), ones({2, 4, 2}), 2.0, 0.5);
  EXPECT_EQ(f64(y), (std::vector<double>{4, 6, 4, 6, 4, 6, 4, 6, 4, 6, 4, 6}));
  y.sum().backward();
  EXPECT_EQ(f64(in.grad()), (std::vector<double>{12, 12}));
  // k = 0: no products, beta * input remains (0 where beta is 0, the input's NaN ignored).
  EXPECT_EQ(f64(baddbmm(tensor({{1.0, 2.0}}), ones({2, 3, 0}), ones({2, 0, 2}), 2.0, 3.0)),
            (std::vector<double>{2, 4, 2, 4, 2, 4, 2, 4, 2, 4, 2, 4}));
  EXPECT_EQ(f64(baddbmm(full({1, 1}, NAN), ones({2, 3, 0}), ones({2, 0, 2}), 0.0, 3.0)),
            std::vector<double>(12, 0.0));
}

TEST(Manipulation, MultinomialDrawsTheDistribution) {
  Generator g(11);
  const Tensor probs = tensor({0.1, 0.2, 0.7, 0.0});
  const auto draws = multinomial(probs, 20000, true, &g).to_vector<std::int64_t>();
  std::vector<double> freq(4, 0);
  for (std::int64_t d : draws) freq[static_cast<std::size_t>(d)] += 1.0 / 20000;
  EXPECT_NEAR(freq[0], 0.1, 0.015);
  EXPECT_NEAR(freq[1], 0.2, 0.015);
  EXPECT_NEAR(freq[2], 0.7, 0.015);
  EXPECT_EQ(freq[3], 0.0);  // a zero weight is never drawn
  // Without replacement: distinct indices, the zero weight never among them.
  const Tensor rows = tensor({{1.0, 5.0, 0.0, 2.0}, {3.0, 0.0, 1.0, 1.0}});
  for (int trial = 0; trial < 20; ++trial) {
    const Tensor s = multinomial(rows, 3, false, &g);
    ASSERT_EQ(s.shape(), (Shape{2, 3}));
    const auto v = s.to_vector<std::int64_t>();
    EXPECT_EQ(std::set<std::int64_t>(v.begin(), v.begin() + 3), (std::set<std::int64_t>{0, 1, 3}));
    EXPECT_EQ(std::set<std::int64_t>(v.begin() + 3, v.end()), (std::set<std::int64_t>{0, 2, 3}));
  }
  EXPECT_THROW(multinomial(rows, 4), ValueError);  // three non-zero weights per row
  EXPECT_THROW(multinomial(tensor({-1.0, 2.0}), 1), ValueError);
  EXPECT_THROW(multinomial(tensor({0.0, 0.0}), 1, true), ValueError);
  EXPECT_THROW(multinomial(tensor({1, 2}), 1), DTypeError);
  EXPECT_THROW(multinomial(ones({2, 2, 2}), 1), ValueError);
  EXPECT_THROW(multinomial(tensor({1.0}), 0), ValueError);
}

TEST(Manipulation, EinsumAsTorch) {
  const Tensor a = tensor({{1.0, 2.0}, {3.0, 4.0}}), b = tensor({{5.0, 6.0}, {7.0, 8.0}});
  EXPECT_TRUE(equal(einsum("ij,jk->ik", {a, b}), matmul(a, b)));
  EXPECT_TRUE(equal(einsum("ij->ji", {a}), a.t().contiguous()));
  EXPECT_EQ(einsum("ij->", {a}).item<double>(), 10.0);
  EXPECT_EQ(einsum("i,i->", {tensor({1.0, 2.0}), tensor({3.0, 4.0})}).item<double>(), 11.0);
  EXPECT_TRUE(equal(einsum("ij,jk", {a, b}), matmul(a, b)));  // implicit output "ik"
  // Attention's contraction, against matmul with a transpose.
  const Tensor q = randn({2, 3, 4, 5}), k = randn({2, 3, 6, 5});
  EXPECT_TRUE(allclose(einsum("bhqd,bhkd->bhqk", {q, k}), matmul(q, k.transpose(-2, -1))));
  EXPECT_EQ(einsum("ij,jk->ik", {ones({1, 3}), ones({3, 2})}).shape(), (Shape{1, 2}));

  // What the subset refused until 2026-12-02, with torch 1.13's results: diagonals,
  // ellipses, more than two operands, integer operands.
  const auto values = [](const Tensor& t) {
    return t.to(DType::float64).reshape({-1}).to_vector<double>();
  };
  EXPECT_EQ(values(einsum("bii->bi", {arange(0.0, 18.0).reshape({2, 3, 3})})),
            (std::vector<double>{0, 4, 8, 9, 13, 17}));
  EXPECT_EQ(einsum("iii->", {arange(0.0, 27.0).reshape({3, 3, 3})}).item<float>(), 39.0f);
  EXPECT_EQ(values(einsum("iji->j", {arange(0.0, 12.0).reshape({2, 3, 2})})),
            (std::vector<double>{7, 11, 15}));
  Tensor square = arange(0.0, 9.0).reshape({3, 3}).requires_grad_();
  const Tensor trace = einsum("ii", {square});
  EXPECT_EQ(trace.item<float>(), 12.0f);
  trace.backward();
  EXPECT_TRUE(equal(square.grad(), eye(3)));
  const Tensor c = arange(0.0, 24.0).reshape({2, 3, 4});
  EXPECT_TRUE(equal(einsum("...ij", {c}), c));  // implicit: ellipsis first, then "ij"
  EXPECT_TRUE(equal(einsum("...ij->ij", {c}), c.sum(0)));
  EXPECT_TRUE(equal(einsum("...ij->...ji", {c}), c.transpose(1, 2).contiguous()));
  EXPECT_TRUE(equal(einsum("i...j,j->i...", {c, ones({4})}), c.sum(2)));
  EXPECT_EQ(einsum("ij->...", {a}).item<double>(), 10.0);  // an ellipsis of no dimensions
  const Tensor batched = einsum("...ij,...jk->...ik", {ones({5, 1, 2, 3}), ones({4, 3, 6})});
  EXPECT_EQ(batched.shape(), (Shape{5, 4, 2, 6}));
  EXPECT_EQ(batched.sum().item<float>(), 3.0f * 5 * 4 * 2 * 6);
  EXPECT_EQ(einsum("ij,jk,kl->il", {ones({2, 3}), ones({3, 4}), ones({4, 5})}).sum().item<float>(),
            120.0f);
  const Tensor v = arange(0.0, 3.0);
  EXPECT_EQ(einsum("i,i,i", {v, v, v}).item<float>(), 9.0f);
  const Tensor ints = einsum("ij,jk->ik", {ones({2, 3}, DType::int32), ones({3, 2}, DType::int32)});
  EXPECT_EQ(ints.dtype(), DType::int32);
  EXPECT_EQ(values(ints), (std::vector<double>{3, 3, 3, 3}));

  EXPECT_THROW(einsum("ij,jk->ik", {a}), ValueError);  // one operand for two subscripts
  EXPECT_THROW(einsum("ijk->k", {a}), ShapeError);     // rank 2, three subscripts
  EXPECT_THROW(einsum("ij,jk->ik", {a, ones({3, 2})}), ShapeError);
  EXPECT_THROW(einsum("ij->iz", {a}), ValueError);  // z is in no input
  EXPECT_THROW(einsum("ij->ii", {a}), ValueError);  // an output subscript twice
  EXPECT_THROW(einsum("..i", {ones({2})}), ValueError);
  EXPECT_THROW(einsum("i...j...", {ones({2, 3})}), ValueError);
  EXPECT_THROW(einsum("ij->j->i", {a}), ValueError);
  EXPECT_THROW(einsum("ii", {ones({2, 3})}), ShapeError);      // a diagonal of unequal sizes
  EXPECT_THROW(einsum("ij...k", {ones({2, 3})}), ShapeError);  // more letters than dimensions
  EXPECT_THROW(einsum("ij,jk", {a.to(DType::bool_), b.to(DType::bool_)}), DTypeError);
  EXPECT_THROW(einsum("ij,jk", {a.to(DType::int32), b.to(DType::int64)}), DTypeError);
  EXPECT_THROW(einsum("", {}), ValueError);
}
