// SPDX-License-Identifier: Apache-2.0
// Unary and binary kernels against a double reference, every dtype they accept, with
// broadcast (0) strides. Tolerance: float32 2e-6 relative + 1e-6 absolute; float64 1e-13
// relative + 1e-13 absolute; float16 / bfloat16 (computed in float32, rounded once) one
// unit in the last place plus 1e-6 absolute; integers exact. The reference is an
// independent double computation (unary_ref / binary_ref: one case per row of the op
// tables, checked by OpTables.EveryOpHasAReference). The case list is the tables': every
// op and every dtype its row defines, less what Backend::supports declines (listed by the
// runner as unsupported).
#include <algorithm>
#include <cmath>
#include <optional>
#include <tuple>

#include <hetero/conformance/conformance.hpp>
#include <hetero/conformance/matchers.hpp>
#include <hetero/sdk/op_codes.hpp>

namespace hetero::conformance {
namespace {

double tol(DType t, double expected) {
  if (t == DType::float32) return 2e-6 * std::abs(expected) + 1e-6;
  if (t == DType::float64) return 1e-13 * std::abs(expected) + 1e-13;
  if (t == DType::float16 || t == DType::bfloat16) return epsilon(t) * std::abs(expected) + 1e-6;
  return 0;
}

// The reference of every row of HETERO_FORALL_UNARY_OPS, written independently of the
// tables' rules (std:: functions on doubles); an op without one here fails
// OpTables.EveryOpHasAReference, so a new row cannot go untested.
std::optional<double> unary_ref(UnaryOp op, double x) {
  switch (op) {
    case UnaryOp::neg:
      return -x;
    case UnaryOp::exp:
      return std::exp(x);
    case UnaryOp::log:
      return std::log(x);
    case UnaryOp::sqrt:
      return std::sqrt(x);
    case UnaryOp::abs:
      return std::abs(x);
    case UnaryOp::relu:
      return x < 0 ? 0.0 : x;  // NaN and -0.0 pass through
    case UnaryOp::sigmoid:
      return 1 / (1 + std::exp(-x));
    case UnaryOp::tanh:
      return std::tanh(x);
    case UnaryOp::sin:
      return std::sin(x);
    case UnaryOp::cos:
      return std::cos(x);
    case UnaryOp::log1p:
      return std::log1p(x);
    case UnaryOp::expm1:
      return std::expm1(x);
    case UnaryOp::rsqrt:
      return 1 / std::sqrt(x);
    case UnaryOp::erf:
      return std::erf(x);
    case UnaryOp::reciprocal:
      return 1 / x;
    case UnaryOp::floor:
      return std::floor(x);
    case UnaryOp::ceil:
      return std::ceil(x);
    case UnaryOp::round:
      return std::nearbyint(x);  // ties to even in the default rounding mode
    case UnaryOp::trunc:
      return std::trunc(x);
    case UnaryOp::sign:
      return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0;
    default:
      return std::nullopt;
  }
}

std::optional<double> binary_ref(BinaryOp op, double x, double y, bool integral) {
  switch (op) {
    case BinaryOp::add:
      return x + y;
    case BinaryOp::sub:
      return x - y;
    case BinaryOp::mul:
      return x * y;
    case BinaryOp::div:
      return x / y;  // a `floating` row: no integer rule (the core divides integers in float32)
    case BinaryOp::maximum:  // NaN propagates, the first one when both are NaN
      return std::isnan(x) ? x : std::isnan(y) ? y : std::max(x, y);
    case BinaryOp::minimum:
      return std::isnan(x) ? x : std::isnan(y) ? y : std::min(x, y);
    case BinaryOp::eq:  // comparisons: 1 or 0 in the operands' dtype
      return x == y ? 1 : 0;
    case BinaryOp::ne:
      return x != y ? 1 : 0;
    case BinaryOp::lt:
      return x < y ? 1 : 0;
    case BinaryOp::le:
      return x <= y ? 1 : 0;
    case BinaryOp::gt:
      return x > y ? 1 : 0;
    case BinaryOp::ge:
      return x >= y ? 1 : 0;
    case BinaryOp::pow:  // integers: 1 / x^|y| truncated for y < 0; the tests keep |x|^y < 2^53
      if (integral && y < 0) return x == 1 ? 1 : x == -1 ? (std::fmod(y, 2) != 0 ? -1 : 1) : 0;
      return std::pow(x, y);
    case BinaryOp::atan2:
      return std::atan2(x, y);
    case BinaryOp::fmod:  // integers by 0: the kernels' 0 (the core refuses them first)
      return integral && y == 0 ? 0 : std::fmod(x, y);
    case BinaryOp::remainder: {
      if (integral && y == 0) return 0;
      const double r = std::fmod(x, y);
      return r != 0 && (r < 0) != (y < 0) ? r + y : r;
    }
    default:
      return std::nullopt;
  }
}

std::optional<double> ternary_ref(TernaryOp op, double c, double x, double y) {
  switch (op) {
    case TernaryOp::where:
      return c != 0 ? x : y;
    default:
      return std::nullopt;
  }
}

// Every op of the tables, in row order.
template <class Op, int N>
std::vector<Op> every_op() {
  std::vector<Op> ops;
  for (int i = 0; i < N; ++i) ops.push_back(static_cast<Op>(i));
  return ops;
}

std::vector<double> run_download(DeviceArray& a) { return a.values(); }

}  // namespace

TEST(OpTables, EveryOpHasAReference) {
  for (UnaryOp op : every_op<UnaryOp, kUnaryOpCount>())
    EXPECT_TRUE(unary_ref(op, 0.5).has_value())
        << "unary op '" << op_name(op) << "' has no reference in test_elementwise.cpp";
  for (BinaryOp op : every_op<BinaryOp, kBinaryOpCount>())
    EXPECT_TRUE(binary_ref(op, 0.5, 0.25, false).has_value())
        << "binary op '" << op_name(op) << "' has no reference in test_elementwise.cpp";
  for (TernaryOp op : every_op<TernaryOp, kTernaryOpCount>())
    EXPECT_TRUE(ternary_ref(op, 1, 0.5, 0.25).has_value())
        << "ternary op '" << op_name(op) << "' has no reference in test_elementwise.cpp";
}

TEST_P(BackendTest, UnaryOpsMatchReference) {
  int cases = 0;
  for (DType t : all_dtypes()) {
    for (UnaryOp op : every_op<UnaryOp, kUnaryOpCount>()) {
      if (!table_defines(op, t) || !runs(op, t)) continue;
      ++cases;
      for (const auto& shape : test_shapes()) {
        std::int64_t n = 1;
        for (auto s : shape) n *= s;
        // The ops whose domain excludes negative numbers (NaN there on both sides would
        // prove nothing).
        const bool positive = op == UnaryOp::log || op == UnaryOp::sqrt || op == UnaryOp::log1p ||
                              op == UnaryOp::rsqrt;
        const auto x = sample_values(t, n, 5, positive);
        DeviceArray in(backend(), 0, t, n, 1), out(backend(), 0, t, n, 3);
        in.upload(pack(t, x).data());
        backend().unary(op, in.view(shape), out.view(shape), stream());
        const auto y = run_download(out);
        std::vector<double> expected(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) {
          double e = unary_ref(op, x[i]).value_or(NAN);
          if (!is_floating_point(t)) e = round_to(t, e);  // uint8 neg wraps
          expected[static_cast<std::size_t>(i)] = e;
        }
        ASSERT_THAT(y,
                    ElementsNear(expected, [t](double e) { return tol(t, e); }, shape, {{"x", x}}))
            << case_name(op_name(op), t, shape);
      }
    }
  }
  if (cases == 0) GTEST_SKIP() << "the backend runs no unary op";
}

TEST_P(BackendTest, BinaryOpsMatchReferenceWithBroadcasting) {
  int cases = 0;
  // out [r, c]; a full [r, c]; b a row [1, c] broadcast with stride 0 over rows.
  const std::vector<std::pair<std::int64_t, std::int64_t>> sizes{
      {1, 1}, {1, 13}, {13, 1}, {17, 31}, {3, 4099}};
  for (DType t : all_dtypes()) {
    for (BinaryOp op : every_op<BinaryOp, kBinaryOpCount>()) {
      if (!table_defines(op, t) || !runs(op, t)) continue;
      ++cases;
      for (auto [r, c] : sizes) {
        // pow: positive floating operands (no NaN from a negative base), small integer ones
        // (exact in the double reference) with negative exponents among them.
        const bool pow_op = op == BinaryOp::pow, floating = is_floating_point(t);
        auto a = sample_values(t, r * c, 7, pow_op && floating);
        auto b = sample_values(t, c, 8, op == BinaryOp::div || (pow_op && floating));
        if (pow_op && !floating)
          for (auto* v : {&a, &b})
            for (double& e : *v) e = std::fmod(e, 4);
        DeviceArray da(backend(), 0, t, r * c, 1), db(backend(), 0, t, c, 2),
            dout(backend(), 0, t, r * c, 0);
        da.upload(pack(t, a).data());
        db.upload(pack(t, b).data());
        backend().binary(op, da.view({r, c}), db.view({r, c}, {0, 1}), dout.view({r, c}), stream());
        const auto y = run_download(dout);
        std::vector<double> expected(static_cast<std::size_t>(r * c)), b_row(expected.size());
        for (std::int64_t i = 0; i < r; ++i)
          for (std::int64_t j = 0; j < c; ++j) {
            const double e =
                binary_ref(op, a[i * c + j], b[j], !is_floating_point(t)).value_or(NAN);
            expected[static_cast<std::size_t>(i * c + j)] = round_to(t, e);
            b_row[static_cast<std::size_t>(i * c + j)] = b[j];
          }
        ASSERT_THAT(y, ElementsNear(expected, [t](double e) { return tol(t, e); }, {r, c},
                                    {{"a", a}, {"b (broadcast over rows)", b_row}}))
            << case_name(op_name(op), t, {r, c});
        // And the other operand broadcast: a scalar (ndim 0 semantics via all-zero strides).
        if (r * c > 0) {
          backend().binary(op, db.view({r, c}, {0, 0}), da.view({r, c}), dout.view({r, c}),
                           stream());
          const auto z = run_download(dout);
          double e = binary_ref(op, b[0], a[0], !is_floating_point(t)).value_or(NAN);
          e = round_to(t, e);
          ASSERT_NEAR(z[0], e, tol(t, e))
              << case_name(op_name(op), t, {r, c}) << ", a scalar (all strides 0) " << op_name(op)
              << " b: element [0, 0], a = " << b[0] << ", b = " << a[0];
        }
      }
    }
  }
  if (cases == 0) GTEST_SKIP() << "the backend runs no binary op";
}

// out = a op b with out the very view a (Backend::binary allows it: an in-place update, as
// torch's add_): a strided [r, c] view (every other column of a wider buffer), b broadcast.
TEST_P(BackendTest, BinaryIntoItsFirstOperandInPlace) {
  int cases = 0;
  const std::int64_t r = 7, c = 301;
  for (DType t : floating_dtypes()) {
    if (!runs(BinaryOp::add, t)) continue;
    ++cases;
    const auto a = sample_values(t, r * 2 * c, 9);
    const auto b = sample_values(t, c, 10);
    DeviceArray da(backend(), 0, t, r * 2 * c, 1), db(backend(), 0, t, c, 0);
    da.upload(pack(t, a).data());
    db.upload(pack(t, b).data());
    for (const std::vector<std::int64_t>& strides :
         {std::vector<std::int64_t>{2 * c, 2}, std::vector<std::int64_t>{}}) {
      const StridedView v = da.view({r, c}, strides);
      backend().binary(BinaryOp::add, v, db.view({r, c}, {0, 1}), v, stream());
    }
    const auto y = run_download(da);
    for (std::int64_t i = 0; i < r * 2 * c; ++i) {
      // Elements of the strided view got b twice (once through each view), the others once
      // where the dense [r, c] view covers them.
      const std::int64_t row = i / (2 * c), col = i % (2 * c);
      double e = a[i];
      if (col % 2 == 0) e = round_to(t, e + b[col / 2]);
      if (i < r * c) e = round_to(t, e + b[i % c]);
      ASSERT_NEAR(y[i], e, tol(t, e) + 4 * epsilon(t) * std::abs(e))
          << case_name("add in place", t, {r, 2 * c}) << ": element [" << row << ", " << col
          << "], a = " << a[i];
    }
  }
  // A backend with no floating add skips; run() lists the pairs it lacks.
  if (cases == 0) GTEST_SKIP() << "the backend runs no floating add";
}

// out [r, c] = op(c, x, y): the condition a column [r, 1] broadcast over columns, x full,
// y a row [1, c] broadcast over rows; every dtype the row defines, bool included.
TEST_P(BackendTest, TernaryOpsMatchReferenceWithBroadcasting) {
  int cases = 0;
  const std::vector<std::pair<std::int64_t, std::int64_t>> sizes{
      {1, 1}, {1, 13}, {13, 1}, {17, 31}, {3, 4099}};
  for (DType t : all_dtypes()) {
    for (TernaryOp op : every_op<TernaryOp, kTernaryOpCount>()) {
      if (!table_defines(op, t) || !runs(op, t)) continue;
      ++cases;
      for (auto [r, c] : sizes) {
        const auto w = sample_values(DType::bool_, r, 9);
        const auto x = sample_values(t, r * c, 10);
        const auto y = sample_values(t, c, 11);
        DeviceArray dw(backend(), 0, t, r, 1), dx(backend(), 0, t, r * c, 2),
            dy(backend(), 0, t, c, 3), dout(backend(), 0, t, r * c, 0);
        dw.upload(pack(t, w).data());
        dx.upload(pack(t, x).data());
        dy.upload(pack(t, y).data());
        backend().ternary(op, dw.view({r, c}, {1, 0}), dx.view({r, c}), dy.view({r, c}, {0, 1}),
                          dout.view({r, c}), stream());
        const auto out = run_download(dout);
        for (std::int64_t i = 0; i < r; ++i)
          for (std::int64_t j = 0; j < c; ++j) {
            const double e = ternary_ref(op, w[i], x[i * c + j], y[j]).value_or(NAN);
            ASSERT_EQ(out[i * c + j], e)
                << case_name(op_name(op), t, {r, c}) << ": element [" << i << ", " << j
                << "], condition = " << w[i] << ", x = " << x[i * c + j] << ", y = " << y[j];
          }
      }
    }
  }
  // A backend without the ternary rows (an older minor, a partial backend) has its pairs
  // listed by run(); nothing to compare here.
  if (cases == 0) GTEST_SKIP() << "the backend runs no ternary op";
}

TEST_P(BackendTest, IntegerArithmeticWrapsWithoutTrapping) {
  if (!runs(BinaryOp::add, DType::int64) || !runs(BinaryOp::mul, DType::int64))
    GTEST_SKIP() << "the backend does not run int64 add and mul";
  // Signed overflow wraps modulo 2^64 (as torch's int64), never traps or saturates. (No
  // integer division: div is a `floating` row, computed in float32 by the core.)
  const std::vector<double> a{9.0e18, -9.0e18, 5};
  const std::vector<double> b{9.0e18, 9.0e18, 0};
  DeviceArray da(backend(), 0, DType::int64, 3), db(backend(), 0, DType::int64, 3),
      dsum(backend(), 0, DType::int64, 3), dprod(backend(), 0, DType::int64, 3);
  da.upload(pack(DType::int64, a).data());
  db.upload(pack(DType::int64, b).data());
  backend().binary(BinaryOp::add, da.view({3}), db.view({3}), dsum.view({3}), stream());
  backend().binary(BinaryOp::mul, da.view({3}), db.view({3}), dprod.view({3}), stream());
  std::vector<std::int64_t> sum(3), prod(3);
  dsum.download(sum.data());
  dprod.download(prod.data());
  EXPECT_EQ(sum, (std::vector<std::int64_t>{-446744073709551616LL, 0, 5}))
      << case_name("add", DType::int64, {3}) << ", a = {9e18, -9e18, 5}, b = {9e18, 9e18, 0}";
  EXPECT_EQ(prod, (std::vector<std::int64_t>{-4977229585478320128LL, 4977229585478320128LL, 0}))
      << case_name("mul", DType::int64, {3}) << ", a = {9e18, -9e18, 5}, b = {9e18, 9e18, 0}";
}

// The 8-bit integers wrap modulo 256 (as torch.uint8 / torch.int8): the cases where a
// kernel computing in int, or reading (uchar)-1 as -1, goes wrong.
TEST_P(BackendTest, EightBitArithmeticWraps) {
  struct Case {
    DType t;
    BinaryOp op;
    double a, b, expected;
  };
  const std::vector<Case> cases{{DType::uint8, BinaryOp::add, 200, 100, 44},
                                {DType::uint8, BinaryOp::sub, 3, 5, 254},
                                {DType::uint8, BinaryOp::mul, 16, 17, 16},
                                {DType::uint8, BinaryOp::maximum, 255, 1, 255},
                                {DType::int8, BinaryOp::add, 100, 100, -56},
                                {DType::int8, BinaryOp::sub, -128, 1, 127},
                                {DType::int8, BinaryOp::mul, 100, 3, 44},
                                {DType::int8, BinaryOp::minimum, -128, 127, -128}};
  for (const Case& c : cases) {
    if (!runs(c.op, c.t)) continue;  // listed by the runner as unsupported
    DeviceArray da(backend(), 0, c.t, 1), db(backend(), 0, c.t, 1), dc(backend(), 0, c.t, 1);
    da.upload(pack(c.t, {c.a}).data());
    db.upload(pack(c.t, {c.b}).data());
    backend().binary(c.op, da.view({1}), db.view({1}), dc.view({1}), stream());
    EXPECT_EQ(run_download(dc)[0], c.expected)
        << case_name(op_name(c.op), c.t, {1}) << ": a = " << c.a << ", b = " << c.b;
  }
  const std::vector<std::tuple<DType, UnaryOp, double, double>> unary_cases{
      {DType::uint8, UnaryOp::neg, 1, 255},    {DType::uint8, UnaryOp::abs, 200, 200},
      {DType::int8, UnaryOp::neg, -128, -128}, {DType::int8, UnaryOp::abs, -128, -128},
      {DType::uint8, UnaryOp::relu, 200, 200}, {DType::int8, UnaryOp::relu, -5, 0}};
  for (const auto& [t, op, x, expected] : unary_cases) {
    if (!runs(op, t)) continue;
    DeviceArray in(backend(), 0, t, 1), out(backend(), 0, t, 1);
    in.upload(pack(t, {x}).data());
    backend().unary(op, in.view({1}), out.view({1}), stream());
    EXPECT_EQ(run_download(out)[0], expected) << case_name(op_name(op), t, {1}) << ": x = " << x;
  }
}

}  // namespace hetero::conformance
