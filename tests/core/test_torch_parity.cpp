// SPDX-License-Identifier: Apache-2.0
// Issue #24's divergences from PyTorch 1.13, one test each: each failed before its fix.
// The expected values are torch's (tools/torch_oracle.py recomputes the general cases; these
// are the named reproducers). Deliberate differences are in docs/semantics.md.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include <hetero/hetero.hpp>

using namespace hetero;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
Tensor bools() { return tensor({1, 0, 1}).to(DType::bool_); }
// The elements as int64 (bool: 0 or 1).
std::vector<std::int64_t> values(const Tensor& t) {
  return t.to(DType::int64).to_vector<std::int64_t>();
}
using V = std::vector<std::int64_t>;
}  // namespace

TEST(TorchParity, NarrowOfAZeroDimTensorRaises) {
  EXPECT_THROW(full({}, 1.0).narrow(-1, 1, 0), IndexError);
  EXPECT_THROW(full({}, 1.0).narrow(0, 0, 1), IndexError);
}

TEST(TorchParity, ReluKeepsNaN) {
  const auto v = relu(tensor({kNaN, -1.0, 2.0})).to_vector<float>();
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], 0.0f);
  EXPECT_EQ(v[2], 2.0f);
}

// torch.relu is clamp_min(x, 0), which keeps x unless x < 0: relu(-0.0) is -0.0 (and
// 1 / relu(x) is -inf there), relu(-1.0) is +0.0. Found by the differential test (seed
// 1130002 case 11833: the gradient of x1 / relu(ceil(x0)) at x0 = -0.14, inf against -inf).
// Dense runs long enough for the vector kernels, a strided view, and every floating dtype.
TEST(TorchParity, ReluKeepsTheSignOfZeroAsTorch) {
  std::vector<double> x;
  for (int i = 0; i < 67; ++i)
    x.push_back(i % 4 == 0 ? -0.0 : i % 4 == 1 ? 0.0 : i % 4 == 2 ? -1.5 : 2.0);
  x.push_back(kNaN);
  const auto n = static_cast<std::int64_t>(x.size());
  for (DType t : {DType::float32, DType::float64, DType::float16, DType::bfloat16}) {
    const Tensor dense = from_vector(x, {n}).to(t);
    const Tensor strided = from_vector(x, {n / 2, 2}).to(t).t()[0];  // elements 0, 2, 4, ...
    for (const Tensor& in : {dense, strided}) {
      const auto got = relu(in).to(DType::float64).to_vector<double>();
      const auto want = in.to(DType::float64).to_vector<double>();
      ASSERT_EQ(got.size(), want.size());
      for (std::size_t i = 0; i < got.size(); ++i) {
        const double w = want[i] < 0 ? 0.0 : want[i];
        if (std::isnan(w)) {
          EXPECT_TRUE(std::isnan(got[i])) << dtype_name(t) << " element " << i;
          continue;
        }
        EXPECT_EQ(got[i], w) << dtype_name(t) << " element " << i;
        EXPECT_EQ(std::signbit(got[i]), std::signbit(w))
            << dtype_name(t) << " element " << i << " of " << want[i];
      }
    }
  }
}

// torch.clamp with number bounds keeps an element equal to a bound (std::max(x, min) and its
// vector kernel's max(min, x)): clamp(-0.0, min=0) is -0.0 and clamp(0.0, max=-0.0) is 0.0.
// With tensor bounds hetero gives the bound, as maximum (docs/semantics.md row 46).
TEST(TorchParity, ClampWithNumberBoundsKeepsAnElementEqualToTheBound) {
  for (DType t : {DType::float32, DType::float64, DType::float16, DType::bfloat16})
    for (std::int64_t n : {3, 67}) {
      const Tensor neg = full({n}, -0.0).to(t), pos = full({n}, 0.0).to(t);
      const auto sign = [](const Tensor& r) {
        const auto v = r.to(DType::float64).to_vector<double>();
        bool all_negative = true, all_positive = true;
        for (double x : v) (std::signbit(x) ? all_positive : all_negative) = false;
        return all_negative ? -1 : all_positive ? 1 : 0;
      };
      EXPECT_EQ(sign(clamp(neg, Number(0.0), std::nullopt)), -1) << dtype_name(t) << " n " << n;
      EXPECT_EQ(sign(clamp(pos, Number(-0.0), std::nullopt)), 1) << dtype_name(t) << " n " << n;
      EXPECT_EQ(sign(clamp(neg, std::nullopt, Number(0.0))), -1) << dtype_name(t) << " n " << n;
      EXPECT_EQ(sign(clamp(pos, std::nullopt, Number(-0.0))), 1) << dtype_name(t) << " n " << n;
      EXPECT_EQ(sign(clamp(neg, Number(0.0), Number(0.0))), -1) << dtype_name(t) << " n " << n;
      EXPECT_EQ(sign(clamp(neg, std::optional<Tensor>(pos), std::nullopt)), 1) << dtype_name(t);
    }
  EXPECT_TRUE(std::isnan(clamp(tensor({kNaN}), Number(0.0), Number(1.0)).item<double>()));
  EXPECT_TRUE(std::isnan(clamp(tensor({0.5}), Number(kNaN), Number(1.0)).item<double>()));
}

TEST(TorchParity, SoftmaxOfAnEmptyTensorIsEmpty) {
  for (std::int64_t dim : {0, 1}) {
    EXPECT_EQ(softmax(zeros({2, 0}), dim).shape(), (Shape{2, 0}));
    EXPECT_EQ(log_softmax(zeros({2, 0}), dim).shape(), (Shape{2, 0}));
  }
  EXPECT_THROW(softmax(zeros({2, 0}), 2), IndexError);
}

TEST(TorchParity, FloatingScalarMakesAnIntegerTensorFloat32) {
  const Tensor i = tensor({1, 2, 3});
  Tensor r = i + kInf;
  EXPECT_EQ(r.dtype(), DType::float32);
  EXPECT_EQ(r.to_vector<float>(), (std::vector<float>(3, INFINITY)));
  r = i * 1e20;
  EXPECT_EQ(r.dtype(), DType::float32);
  EXPECT_FLOAT_EQ(r.to_vector<float>()[2], 3e20f);
  r = tensor({1, 2, 3}, TensorOptions().dtype(DType::int32)) / 3e9;
  EXPECT_EQ(r.dtype(), DType::float32);
  EXPECT_FLOAT_EQ(r.to_vector<float>()[2], 1e-9f);
  // A floating scalar is floating even with an integral value, as in libtorch (x + 2.0).
  EXPECT_EQ((i + 2.0).dtype(), DType::float32);
  EXPECT_EQ((tensor({1.0}, TensorOptions().dtype(DType::float16)) * 1e300).dtype(), DType::float16);
}

TEST(TorchParity, IntegralScalarKeepsTheTensorDtypeAndWraps) {
  const Tensor i32 = tensor({1, 2, 3}, TensorOptions().dtype(DType::int32));
  EXPECT_EQ((i32 + 2).dtype(), DType::int32);
  EXPECT_EQ((i32 * 2).to_vector<std::int32_t>(), (std::vector<std::int32_t>{2, 4, 6}));
  // As torch: i32 + 2**31 wraps in int32.
  EXPECT_EQ((i32 + (std::int64_t{1} << 31)).to_vector<std::int32_t>()[0], -2147483647);
  EXPECT_EQ((bools() + 1).dtype(), DType::int64);
  EXPECT_EQ((bools() * 2).to_vector<std::int64_t>(), (std::vector<std::int64_t>{2, 0, 2}));
  EXPECT_EQ((i32 / 2).dtype(), DType::float32);
}

TEST(TorchParity, MaxAndMinOfBoolAreBool) {
  EXPECT_EQ(bools().max().dtype(), DType::bool_);
  EXPECT_EQ(values(bools().min()), (V{0}));
  EXPECT_EQ(bools().max(0).dtype(), DType::bool_);
  EXPECT_EQ(values(bools().max(0)), (V{1}));
  EXPECT_EQ(bools().sum().dtype(), DType::int64);
}

TEST(TorchParity, BoolArithmeticIsLogicalAndStaysBool) {
  const Tensor a = bools();
  const Tensor b = tensor({1, 1, 0}).to(DType::bool_);
  for (const Tensor& r : {a + b, a * b, maximum(a, b), minimum(a, b)})
    EXPECT_EQ(r.dtype(), DType::bool_);
  EXPECT_EQ(values(a + b), (V{1, 1, 1}));
  EXPECT_EQ(values(a * b), (V{1, 0, 0}));
  EXPECT_EQ(values(maximum(a, b)), (V{1, 1, 1}));
  EXPECT_EQ(values(minimum(a, b)), (V{1, 0, 0}));
  EXPECT_EQ((a / b).dtype(), DType::float32);
}

TEST(TorchParity, ZeroDimOperandPromotesOnlyByCategory) {
  EXPECT_EQ((ones({3}, TensorOptions().dtype(DType::float16)) *
             full({}, 2.5, TensorOptions().dtype(DType::float64)))
                .dtype(),
            DType::float16);
  EXPECT_EQ((ones({2}, TensorOptions().dtype(DType::int32)) +
             full({}, 7, TensorOptions().dtype(DType::int64)))
                .dtype(),
            DType::int32);
  // A higher category takes part: int32 with a 0-d float64 is float64, bool with 0-d int64.
  EXPECT_EQ((ones({2}, TensorOptions().dtype(DType::int32)) +
             full({}, 2.5, TensorOptions().dtype(DType::float64)))
                .dtype(),
            DType::float64);
  EXPECT_EQ((bools() + full({}, 5, TensorOptions().dtype(DType::int64))).dtype(), DType::int64);
  // Two 0-d operands promote as usual.
  EXPECT_EQ((full({}, 1.0, TensorOptions().dtype(DType::float16)) +
             full({}, 1.0, TensorOptions().dtype(DType::float64)))
                .dtype(),
            DType::float64);
  // x16 - x32.mean() keeps float16.
  const Tensor x16 = ones({4}, TensorOptions().dtype(DType::float16));
  EXPECT_EQ((x16 - ones({4}).mean()).dtype(), DType::float16);
}

TEST(TorchParity, RandInHalfPrecisionIsBelowOne) {
  manual_seed(7);
  for (DType t : {DType::float16, DType::bfloat16}) {
    const double step = t == DType::float16 ? 1.0 / 2048 : 1.0 / 256;
    const auto v = rand({100000}, TensorOptions().dtype(t)).to(DType::float64).to_vector<double>();
    double lo = 1, hi = 0;
    for (double x : v) {
      ASSERT_LT(x, 1.0);
      ASSERT_GE(x, 0.0);
      ASSERT_EQ(std::floor(x / step) * step, x);  // a multiple of the type's 2^-digits
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    EXPECT_EQ(lo, 0.0);         // 100k draws reach both ends of the 2^11 / 2^8 grid
    EXPECT_EQ(hi, 1.0 - step);  // (the largest value below 1)
  }
}

TEST(TorchParity, ArangeWithAnIntegerDtypeTruncatesStartAndStep) {
  EXPECT_EQ(arange(-2.25, 7.5, 2, TensorOptions().dtype(DType::int64)).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{-2, 0, 2, 4, 6}));
  EXPECT_THROW(arange(0, 2, 0.5, TensorOptions().dtype(DType::int64)), ShapeError);
  EXPECT_THROW(arange(10, 0, 1), ShapeError);
  EXPECT_EQ(arange(0, 0, 1).numel(), 0);
  EXPECT_THROW(arange(0, 3, 1, TensorOptions().dtype(DType::bool_)), DTypeError);
  EXPECT_THROW(arange(0, kInf, 1), ShapeError);
}

TEST(TorchParity, FullConvertsAsTorch) {
  EXPECT_EQ(values(full({5}, 1e-8, TensorOptions().dtype(DType::bool_))), V(5, 1));
  EXPECT_EQ(values(full({2}, kNaN, TensorOptions().dtype(DType::bool_))), V(2, 1));
  EXPECT_THROW(full({2}, 1e10, TensorOptions().dtype(DType::int32)), DTypeError);
  EXPECT_THROW(full({2}, kNaN, TensorOptions().dtype(DType::int64)), DTypeError);
  EXPECT_THROW(full({2}, 1e6, TensorOptions().dtype(DType::float16)), DTypeError);
  EXPECT_THROW(full({2}, 3.4e38, TensorOptions().dtype(DType::bfloat16)), DTypeError);
  EXPECT_NO_THROW(full({2}, 3.3895313892515355e38, TensorOptions().dtype(DType::bfloat16)));
  EXPECT_EQ(full({2}, kInf, TensorOptions().dtype(DType::float16)).to_vector<float>()[0], INFINITY);
  EXPECT_EQ(full({2}, -2.7, TensorOptions().dtype(DType::int64)).to_vector<std::int64_t>()[0], -2);
}

TEST(TorchParity, BoolRefusesWhatTorchRefuses) {
  const Tensor b = bools();
  EXPECT_THROW(b - b, DTypeError);
  EXPECT_THROW(b - 1.0, DTypeError);
  EXPECT_THROW(-b, DTypeError);
  EXPECT_THROW(abs(b), DTypeError);
  EXPECT_THROW(relu(b), DTypeError);
  EXPECT_THROW(argmax(b), DTypeError);
  EXPECT_THROW(argmax(b, 0), DTypeError);
  EXPECT_EQ(exp(b).dtype(), DType::float32);  // floating rows compute bool in float32
}

TEST(TorchParity, SoftmaxRefusesIntegerInput) {
  EXPECT_THROW(softmax(tensor({1, 2}), 0), DTypeError);
  EXPECT_THROW(log_softmax(bools(), 0), DTypeError);
}

TEST(TorchParity, MatmulRefusesMixedDtypes) {
  EXPECT_THROW(matmul(ones({2, 2}), ones({2, 2}, TensorOptions().dtype(DType::float64))),
               DTypeError);
}

TEST(TorchParity, TransposeAndSqueezeCheckTheDimOfAZeroDimTensor) {
  EXPECT_THROW(full({}, 1.0).transpose(0, 5), IndexError);
  EXPECT_THROW(full({}, 1.0).squeeze(5), IndexError);
  EXPECT_EQ(full({}, 1.0).transpose(0, -1).dim(), 0);
  EXPECT_EQ(full({}, 1.0).squeeze(-1).dim(), 0);
}

TEST(TorchParity, NormGradientAtZeroIsZero) {
  Tensor x = zeros({3}).requires_grad_();
  norm(x).backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{0, 0, 0}));
}

TEST(TorchParity, CrossEntropyLossChecksTargets) {
  nn::CrossEntropyLoss loss;
  const Tensor logits = zeros({2, 3});
  EXPECT_THROW(loss(logits, tensor({0, 1}, TensorOptions().dtype(DType::int32))), DTypeError);
  try {
    loss(logits, tensor({0, 3}));
    FAIL() << "no IndexError";
  } catch (const IndexError& e) {
    EXPECT_NE(std::string(e.what()).find("target 3"), std::string::npos) << e.what();
  }
  EXPECT_THROW(loss(logits, tensor({-1, 0})), IndexError);
  EXPECT_NEAR(loss(logits, tensor({0, 2})).item<float>(), std::log(3.0f), 1e-6);
  // Unchecked: no wait, and a bad target gives NaN rather than being dropped.
  nn::CrossEntropyLoss unchecked(Tensor(), false);
  EXPECT_TRUE(std::isnan(unchecked(logits, tensor({0, 3})).item<float>()));
  EXPECT_NEAR(unchecked(logits, tensor({0, 2})).item<float>(), std::log(3.0f), 1e-6);
}

// docs/semantics.md row 1: out-of-range float -> integer saturates, NaN -> 0 (torch: UB).
TEST(TorchParity, SemanticsFloatToIntegerSaturates) {
  const auto v = from_vector(std::vector<double>{-3.7, 300.0, 1e20, -1e20, kNaN})
                     .to(DType::int32)
                     .to_vector<std::int32_t>();
  EXPECT_EQ(v, (std::vector<std::int32_t>{-3, 300, 2147483647, -2147483647 - 1, 0}));
}

// docs/semantics.md row 32: a logical op tests each value itself, also a 0-d one outside the
// tensor operand's dtype (torch wraps INT64_MIN into int8's 0 first, and rounds 1e-40 to
// float16's 0).
TEST(TorchParity, SemanticsLogicalOpsTestTheValueItself) {
  const Tensor x = from_vector(std::vector<std::int64_t>{8, 0}).to(DType::int8);
  const Tensor big =
      full({}, std::numeric_limits<std::int64_t>::min(), TensorOptions().dtype(DType::int64));
  EXPECT_EQ(logical_xor(x, big).to_vector<bool>(), (std::vector<bool>{false, true}));
  EXPECT_EQ(logical_and(x, big).to_vector<bool>(), (std::vector<bool>{true, false}));
  // A floating one that underflows to 0 in the tensor's dtype (torch: 1e-40 in float16 is 0).
  const Tensor h = from_vector(std::vector<double>{75, 0}).to(DType::float16);
  const Tensor tiny = full({}, 1e-40, TensorOptions().dtype(DType::float64));
  EXPECT_EQ(logical_xor(h, tiny).to_vector<bool>(), (std::vector<bool>{false, true}));
  EXPECT_EQ(logical_and(h, tiny).to_vector<bool>(), (std::vector<bool>{true, false}));
}

// docs/semantics.md row 2: double -> float16 rounds once (torch rounds to float32 first:
// 1 + 2^-11 + 2^-40 becomes the tie 1 + 2^-11, then 1.0).
// docs/semantics.md row 27 (issue #44 item 9): products near 3e38 whose float32 partial
// sums may overflow: the float32 GEMM gives the exact sum rounded, or a non-finite value
// whose sign follows the order of accumulation, never a finite wrong value; float64 gives
// the exact sum (+2.7e38).
TEST(TorchParity, SemanticsGemmOverflowIsNonFiniteAndFloat64IsExact) {
  const std::vector<double> a{-3e38, -3e38, 3e38, 3e38, 3e38}, b{1, 1, 1, 1, 0.9};
  const double exact = matmul(from_vector(a, {1, 5}), from_vector(b, {5, 1})).item<double>();
  EXPECT_NEAR(exact, 2.7e38, 1e33);
  const Tensor a32 = from_vector(a, {1, 5}).to(DType::float32);
  const Tensor b32 = from_vector(b, {5, 1}).to(DType::float32);
  for (const Tensor& y : {matmul(a32, b32), matmul(a32.expand({4, 5}), b32.expand({5, 3}))})
    for (float got : y.to_vector<float>())
      EXPECT_TRUE(!std::isfinite(got) || std::abs(got - exact) <= 1e-6 * exact) << got;
}

TEST(TorchParity, SemanticsDoubleToHalfRoundsOnce) {
  const double x = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(
      from_vector(std::vector<double>{x}).to(DType::float16).to(DType::float64).item<double>(),
      1.0 + std::ldexp(1.0, -10));
}

// Issue #24: from_vector(std::vector<std::uint8_t>{1, 2, 250}) made [true, true, true]
// (silent data loss for image bytes). It makes a uint8 tensor now (test_uint8_int8.cpp);
// raw bytes claimed to be bools must be 0 or 1.
TEST(TorchParity, BoolBytesOtherThanZeroOrOneAreRefused) {
  const unsigned char bytes[] = {1, 2, 250};
  try {
    from_host(bytes, 3, DType::bool_, {3});
    FAIL() << "no DTypeError";
  } catch (const DTypeError& e) {
    EXPECT_NE(std::string(e.what()).find("byte 2 at index 1"), std::string::npos) << e.what();
  }
  EXPECT_EQ(values(from_vector(std::vector<bool>{false, true, true})), (V{0, 1, 1}));
  EXPECT_EQ(from_vector(std::vector<bool>{true}).dtype(), DType::bool_);
}

// A float64 sum whose partial sums overflow where the exact sum does not is the exact sum
// rounded, and a mean the exact mean rounded (Note [Float64 sums past the largest value],
// plugins/cpu/kernels_reduce.cpp): mean of [.., -1.35e308, .., -1.35e308, .., 1.35e308, ..]
// was -inf, torch -9e306 (the differential test, seed 1130090 case 14867). The reference sums in
// long double (an exponent range that cannot overflow here). Whole tensors, rows, columns and a
// transposed view; a sum beyond float64's largest stays inf, and NaN and inf elements keep their
// rule.
TEST(TorchParity, Float64SumWhosePartialSumsOverflowIsTheExactSum) {
  constexpr double kHuge = 1.35e308;
  constexpr std::int64_t kLength = 64, kRows = 6;
  // Row r of the reduced values: small terms, with -huge at 0 and 4 and +huge at 8 (the same
  // lane of a 4-wide vector), shifted by r so each path's order meets them differently.
  const auto row = [](std::int64_t r) {
    std::vector<double> v;
    for (std::int64_t k = 0; k < kLength; ++k) v.push_back(0.37 * static_cast<double>(k) - 5.0);
    v[static_cast<std::size_t>(r)] = -kHuge;
    v[static_cast<std::size_t>(r + 4)] = -kHuge;
    v[static_cast<std::size_t>(r + 8)] = kHuge;
    return v;
  };
  std::vector<double> rows;  // [kRows, kLength]
  std::vector<double> want_sum;
  for (std::int64_t r = 0; r < kRows; ++r) {
    const auto v = row(r);
    rows.insert(rows.end(), v.begin(), v.end());
    long double exact = 0;
    for (const double x : v) exact += x;
    want_sum.push_back(static_cast<double>(exact));
  }
  const Tensor x = from_vector(rows, {kRows, kLength}).to(DType::float64);
  const Tensor columns = x.t().contiguous();  // [kLength, kRows]: sum(0) reduces columns
  const auto expect_sums = [&](const Tensor& got, double divisor, const char* what) {
    const auto g = got.to_vector<double>();
    ASSERT_EQ(g.size(), want_sum.size()) << what;
    for (std::size_t r = 0; r < g.size(); ++r) {
      const double w = want_sum[r] / divisor;
      EXPECT_NEAR(g[r], w, std::abs(w) * 1e-14) << what << " output " << r;
    }
  };
  expect_sums(x.sum(1), 1, "rows");
  expect_sums(x.mean(1), kLength, "mean of rows");
  expect_sums(columns.sum(0), 1, "columns");
  expect_sums(columns.mean(0), kLength, "mean of columns");
  expect_sums(columns.t().sum(1), 1, "transposed view");
  const Tensor one = x[2];
  const double whole = one.sum().item<double>();
  EXPECT_NEAR(whole, want_sum[2], std::abs(want_sum[2]) * 1e-14);
  EXPECT_NEAR(one.mean().item<double>(), want_sum[2] / kLength,
              std::abs(want_sum[2]) / kLength * 1e-14);

  // Exactly 0: eight +1e308 then eight -1e308 (torch's order gives inf here).
  std::vector<double> cancel(8, 1e308);
  cancel.insert(cancel.end(), 8, -1e308);
  EXPECT_EQ(from_vector(cancel, {16}).to(DType::float64).sum().item<double>(), 0.0);
  // A sum beyond the largest is inf, as torch's; a mean is finite where the exact mean is
  // (torch's is inf there, but its var is finite: var([1.35e308] * 2) is 0 only so, found by
  // the differential test, seed 1130093 case 9859).
  const Tensor beyond =
      from_vector(std::vector<double>{1.5e308, 1.5e308, 1.5e308}, {3}).to(DType::float64);
  EXPECT_EQ(beyond.sum().item<double>(), kInf);
  EXPECT_EQ(beyond.mean().item<double>(), 1.5e308);
  EXPECT_EQ(var(beyond, 0).item<double>(), 0.0);
  EXPECT_EQ(hetero::std(beyond.view({1, 3}), 1, 0).to_vector<double>(), std::vector<double>{0.0});
  // A NaN or an infinite element keeps its rule.
  const auto with = [](double special) {
    return from_vector(std::vector<double>{kHuge, kHuge, special, -kHuge}, {4}).to(DType::float64);
  };
  EXPECT_TRUE(std::isnan(with(kNaN).sum().item<double>()));
  EXPECT_EQ(with(kInf).sum().item<double>(), kInf);
  // Infinities of one sign beside partial sums that overflow the other way: that infinity
  // (NaN before, from -inf + inf; seed 1130114 case 2925, adaptive_avg_pool2d to 1 x 1).
  const Tensor against =
      from_vector(std::vector<double>{-kHuge, -kHuge, 1.0, kInf, kInf}, {5}).to(DType::float64);
  EXPECT_EQ(against.sum().item<double>(), kInf);
  EXPECT_EQ(against.mean().item<double>(), kInf);
  EXPECT_EQ((-against).sum().item<double>(), -kInf);
  EXPECT_EQ(adaptive_avg_pool2d(against.view({1, 1, 1, 5}), 1).item<double>(), kInf);
  // Both signs: NaN, as in any order.
  EXPECT_TRUE(std::isnan(from_vector(std::vector<double>{kInf, -kHuge, -kInf}, {3})
                             .to(DType::float64)
                             .sum()
                             .item<double>()));
}

// Semantics row 52: float32 sums accumulate in double, so a sum, mean, var or std whose
// float32 partial sums overflow where the exact result does not is the exact result (torch
// 1.13 sums in float32: inf for all four).
TEST(TorchParity, Float32SumWhosePartialSumsOverflowIsTheExactSum) {
  const Tensor x = from_vector<float>({3e38f, 3e38f, -3e38f}, {3});
  const Tensor y = from_vector<float>({3e38f, 3e38f}, {2});
  EXPECT_EQ(x.sum().item<float>(), 3e38f);
  EXPECT_EQ(y.mean().item<float>(), 3e38f);
  EXPECT_EQ(mean(y.view({1, 2}), 1).to_vector<float>(), (std::vector<float>{3e38f}));
  EXPECT_EQ(var(y).item<float>(), 0.0f);
  EXPECT_EQ(hetero::std(y.view({1, 2}), 1, 1, false).to_vector<float>(), (std::vector<float>{0}));
}

// var's gradient with an infinite element is torch's 2 / (N - c) g (x - mean(x)): +-inf at
// the finite elements, NaN at the infinite ones (the differential test, seed 1130350 case
// 4601: the corrected two-pass deviations were all NaN there). std's is NaN throughout.
TEST(TorchParity, VarGradientWithAnInfiniteElementIsTorchs) {
  const double inf = std::numeric_limits<double>::infinity();
  Tensor a = from_vector<double>({-inf, 0, -inf, -2}, {4}).requires_grad_();
  var(a).backward();
  auto g = a.grad().to_vector<double>();
  EXPECT_TRUE(std::isnan(g[0]) && std::isnan(g[2]));
  EXPECT_EQ(g[1], inf);
  EXPECT_EQ(g[3], inf);
  // torch: var([[1, inf], [2, 3]], 1) -> grad [[-inf, nan], [-1, 1]]
  Tensor b = from_vector<float>({1, INFINITY, 2, 3}, {2, 2}).requires_grad_();
  var(b, 1, 1, false).sum().backward();
  g = b.grad().to(DType::float64).to_vector<double>();
  EXPECT_EQ(g[0], -inf);
  EXPECT_TRUE(std::isnan(g[1]));
  EXPECT_EQ(g[2], -1.0);
  EXPECT_EQ(g[3], 1.0);
  a.mutable_grad() = Tensor();
  hetero::std(a, 0, 0, false).backward();
  for (const double v : a.grad().to_vector<double>()) EXPECT_TRUE(std::isnan(v));
}

// div's gradient to its divisor is torch's -g * ((a / b) / b) (derivatives.yaml,
// div_tensor_other_backward): for x / x the two gradients cancel to exactly 0, where
// -g * a / (b * b) left an ulp of 1 / x (the differential test, seed 1130122 case 17417:
// 6.1e-5 at x = -0.00282 under expm1(prod(x / x))), and b * b no longer underflows to 0
// (an infinite gradient for a = 1e-30, b = 1e-25 in float32; torch's is -1e20).
TEST(TorchParity, DivGradientToTheDivisorIsTorchsOrderOfOperations) {
  const std::vector<double> v{-0.00282085919752717, -2.0978856086730957, 3.3, 1e20, -7e-19};
  for (DType t : {DType::float32, DType::float64}) {
    const Tensor x = from_vector(v, {5}).to(t).requires_grad_(true);
    (x / x).sum().backward();
    for (const double g : x.grad().to(DType::float64).to_vector<double>())
      EXPECT_EQ(g, 0.0) << dtype_name(t);
  }
  const Tensor a = tensor({1e-30F}).requires_grad_(true), b = tensor({1e-25F}).requires_grad_(true);
  (a / b).sum().backward();
  const float want = -((1e-30F / 1e-25F) / 1e-25F);
  EXPECT_EQ(b.grad().item<float>(), want);
  EXPECT_TRUE(std::isfinite(b.grad().item<float>()));
}
