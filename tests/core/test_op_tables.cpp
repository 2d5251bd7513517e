// SPDX-License-Identifier: Apache-2.0
// The op tables (Note [Op tables], <hetero/sdk/op_table.hpp>) seen from the core: every
// unary row has a public function whose values and gradient are right, sin and cos (the
// rows of interface minor 1) match std::sin / std::cos, a partial backend runs what it
// supports and raises NotImplementedError for the rest, and a plugin built for the previous
// interface minor loads and runs the ops of its minor.
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <hetero/autograd.hpp>
#include <hetero/hetero.hpp>
#include <hetero/sdk/capabilities.hpp>
#include <hetero/sdk/elementwise_ops.hpp>
#include <hetero/sdk/op_codes.hpp>

namespace hetero {
namespace {

// Every unary row with its public function (a row without a declared hetero::<name> does
// not compile here).
const std::vector<std::pair<UnaryOp, std::function<Tensor(const Tensor&)>>>& unary_functions() {
  static const std::vector<std::pair<UnaryOp, std::function<Tensor(const Tensor&)>>> f{
#define HETERO_TEST_ROW(name, ...) {UnaryOp::name, [](const Tensor& t) { return hetero::name(t); }},
      HETERO_FORALL_UNARY_OPS(HETERO_TEST_ROW)
#undef HETERO_TEST_ROW
  };
  return f;
}

// Every binary row with its public function.
const std::vector<std::pair<BinaryOp, std::function<Tensor(const Tensor&, const Tensor&)>>>&
binary_functions() {
  static const std::vector<std::pair<BinaryOp, std::function<Tensor(const Tensor&, const Tensor&)>>>
      f{
#define HETERO_TEST_ROW(name, ...) \
  {BinaryOp::name, [](const Tensor& a, const Tensor& b) { return hetero::name(a, b); }},
          HETERO_FORALL_BINARY_OPS(HETERO_TEST_ROW)
#undef HETERO_TEST_ROW
      };
  return f;
}

TEST(OpTables, NamesCountsAndMinorsComeFromTheRows) {
  EXPECT_EQ(op_name(UnaryOp::sin), "sin");
  EXPECT_EQ(op_name(BinaryOp::maximum), "maximum");
  EXPECT_EQ(op_name(ReductionOp::argmax), "argmax");
  EXPECT_EQ(op_name(OpRef(OpFamily::unary, 200)), "unknown op");
  EXPECT_EQ(op_since(UnaryOp::tanh), 0);
  EXPECT_EQ(op_since(UnaryOp::sin), 1);
  EXPECT_EQ(op_since(UnaryOp::rsqrt), 5);
  // The families' attributes come from HETERO_FORALL_OP_FAMILIES.
  EXPECT_EQ(kOpFamilyCount, static_cast<int>(kLastOpFamily) + 1);
  EXPECT_EQ(op_name(OpRef(OpFamily::scatter_add)), "scatter_add");
  EXPECT_EQ(op_name(OpRef(OpFamily::random, 1)), "randn");
  EXPECT_EQ(op_since(OpRef(OpFamily::conv2d, 2)), 8);
  EXPECT_EQ(op_since(OpRef(OpFamily::gather)), 6);
  // The forward with its bias joined the family at minor 15: a plugin of minor 8-14 has three.
  EXPECT_EQ(op_since(Conv2dOp::forward_bias), 15);
  EXPECT_EQ(op_name(Conv2dOp::forward_bias), "conv2d_bias");
  EXPECT_EQ(op_count(OpFamily::conv2d), 4);
  EXPECT_EQ(op_count(OpFamily::gemm), 1);
  EXPECT_EQ(op_dtypes(OpRef(OpFamily::gather)), DTypeClass::every);
  EXPECT_TRUE(is_optional(OpFamily::softmax));
  EXPECT_TRUE(is_optional(OpFamily::conv2d));
  EXPECT_TRUE(is_optional(OpFamily::batch_norm));
  EXPECT_EQ(op_since(BatchNormOp::backward), 13);
  EXPECT_EQ(op_count(OpFamily::batch_norm), 2);
  EXPECT_EQ(op_name(BatchNormOp::backward), "batch_norm_backward");
  EXPECT_FALSE(table_defines(BatchNormOp::forward_training, DType::float32));
  EXPECT_TRUE(is_optional(OpFamily::pool2d));
  EXPECT_EQ(op_since(Pool2dOp::max_backward), 13);
  EXPECT_EQ(op_name(Pool2dOp::max_forward), "max_pool2d");
  // Average pooling joined the family at minor 14: a plugin of minor 13 has two codes.
  EXPECT_EQ(op_since(Pool2dOp::avg_forward), 14);
  EXPECT_EQ(op_since(Pool2dOp::avg_backward), 14);
  EXPECT_EQ(op_count(OpFamily::pool2d), 4);
  EXPECT_EQ(op_name(Pool2dOp::avg_backward), "avg_pool2d_backward");
  EXPECT_FALSE(table_defines(Pool2dOp::avg_forward, DType::float32));
  // 3-d convolution: an optional family of minor 16, three codes, no table defines it.
  EXPECT_TRUE(is_optional(OpFamily::conv3d));
  EXPECT_EQ(op_since(Conv3dOp::backward_weight), 16);
  EXPECT_EQ(op_count(OpFamily::conv3d), 3);
  EXPECT_EQ(op_name(Conv3dOp::backward_input), "conv3d_backward_input");
  EXPECT_FALSE(table_defines(Conv3dOp::forward, DType::float32));
  EXPECT_FALSE(is_optional(OpFamily::ternary));
  EXPECT_FALSE(table_defines(OpRef(OpFamily::conv2d), DType::float32));
  EXPECT_TRUE(table_defines(OpRef(OpFamily::gather), DType::bool_));
  EXPECT_TRUE(table_defines(UnaryOp::abs, DType::int32));
  EXPECT_FALSE(table_defines(UnaryOp::exp, DType::int32));
  EXPECT_FALSE(table_defines(BinaryOp::add, DType::bool_));
  EXPECT_FALSE(table_defines(RandomDistribution::uniform, DType::float16));
  EXPECT_EQ(static_cast<int>(unary_functions().size()), kUnaryOpCount);
}

// The codes of released rows never move (a plugin built earlier sends and expects them): a
// row inserted before them, or a group listed out of order, fails here. New rows are
// appended to the newest group; add them to this list when their minor is released.
TEST(OpTables, ReleasedOpCodesNeverMove) {
  const std::vector<std::pair<OpFamily, std::vector<std::string_view>>> released{
      {OpFamily::unary, {"neg",        "exp",   "log",  "sqrt",  "abs",   "relu",  "sigmoid",
                         "tanh",       "sin",   "cos",  "log1p", "expm1", "rsqrt", "erf",
                         "reciprocal", "floor", "ceil", "round", "trunc", "sign"}},
      {OpFamily::binary,
       {"add", "sub", "mul", "div", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge", "pow",
        "atan2", "fmod", "remainder"}},
      {OpFamily::reduce, {"sum", "mean", "max", "min", "norm", "argmax"}},
      {OpFamily::ternary, {"where"}}};
  for (const auto& [family, names] : released)
    for (std::size_t code = 0; code < names.size(); ++code)
      EXPECT_EQ(op_name(OpRef(family, static_cast<std::uint8_t>(code))), names[code])
          << "family " << static_cast<int>(family) << " code " << code;
}

// A binary row's result dtype follows its dtypes column, never its name: `floating` rows
// (div) compute integer and bool operands in float32 (as torch.div / torch.atan2), comparison
// rows return bool, arithmetic rows keep the promoted integer type.
TEST(OpTables, BinaryPromotionFollowsTheDTypesColumn) {
  EXPECT_EQ(op_dtypes(BinaryOp::div), DTypeClass::floating);
  EXPECT_FALSE(table_defines(BinaryOp::div, DType::int32));
  EXPECT_FALSE(supports_binary<std::int64_t>(BinaryOp::div));
  EXPECT_TRUE(supports_binary<std::int64_t>(BinaryOp::mul));
  EXPECT_EQ(static_cast<int>(binary_functions().size()), kBinaryOpCount);
  const Tensor a = tensor({7, -7, 9}), b = tensor({2, 2, 3});
  const Tensor a8 = a.to(DType::uint8).abs(), h = b.to(DType::float16);
  for (const auto& [op, f] : binary_functions()) {
    SCOPED_TRACE(std::string(op_name(op)));
    const DTypeClass c = op_dtypes(op);
    const DType want = is_comparison(op)           ? DType::bool_
                       : c == DTypeClass::floating ? DType::float32
                                                   : DType::int64;
    EXPECT_EQ(f(a, b).dtype(), want);
    EXPECT_EQ(f(a.to(DType::int8), b.to(DType::int8)).dtype(),
              want == DType::int64 ? DType::int8 : want);
    // A floating operand decides: uint8 with float16 is float16 for every non-comparison.
    EXPECT_EQ(f(a8, h).dtype(), is_comparison(op) ? DType::bool_ : DType::float16);
    if (c == DTypeClass::floating) {  // the values are the float32 ones, not truncated
      EXPECT_EQ(f(a, b).to_vector<float>(),
                f(a.to(DType::float32), b.to(DType::float32)).to_vector<float>());
    }
  }
  EXPECT_EQ(div(tensor({7, -7}), tensor({2, 2})).to_vector<float>(),
            (std::vector<float>{3.5F, -3.5F}));
}

// Within one ulp of the C library's result (the cpu kernels use SLEEF's 1.0-ulp functions,
// Note [Vector kernels]).
template <class T>
bool within_one_ulp(T got, T want) {
  return got == want || std::nextafter(want, got) == got;
}

TEST(OpTables, SinAndCosMatchTheCLibrary) {
  std::vector<double> x;
  for (int i = -40; i <= 40; ++i) x.push_back(i * 0.173);
  const Tensor t64 = from_vector(x, {static_cast<std::int64_t>(x.size())});
  const auto s = sin(t64).to_vector<double>(), c = cos(t64).to_vector<double>();
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_PRED2(within_one_ulp<double>, s[i], std::sin(x[i]));
    EXPECT_PRED2(within_one_ulp<double>, c[i], std::cos(x[i]));
  }
  const auto s32 = sin(t64.to(DType::float32)).to_vector<float>();
  for (std::size_t i = 0; i < x.size(); ++i)
    EXPECT_PRED2(within_one_ulp<float>, s32[i], std::sin(static_cast<float>(x[i])));
  // Integer input computes in float32, as torch.sin.
  EXPECT_EQ(sin(tensor({0, 1})).dtype(), DType::float32);
  EXPECT_EQ(cos(ones({2}, DType::float16)).dtype(), DType::float16);
  EXPECT_TRUE(std::isnan(sin(full({}, INFINITY)).item<float>()));
}

// d/dx of every unary row against central differences in float64, at points away from
// the kinks of abs and relu.
TEST(OpTables, EveryUnaryGradientMatchesFiniteDifferences) {
  const std::vector<double> points{0.3, 0.7, 1.1, 1.9, -0.4, -1.3};
  for (const auto& [op, f] : unary_functions()) {
    SCOPED_TRACE(std::string(op_name(op)));
    std::vector<double> xs;
    for (double p : points)
      if (!(op == UnaryOp::log || op == UnaryOp::sqrt || op == UnaryOp::rsqrt) ||
          p > 0)  // log1p's domain, x > -1, holds every point but -1.3
        if (!(op == UnaryOp::log1p && p < -1)) xs.push_back(p);
    const auto n = static_cast<std::int64_t>(xs.size());
    Tensor x = from_vector(xs, {n}).requires_grad_();
    sum(f(x)).backward();
    const auto grad = x.grad().to_vector<double>();
    for (std::int64_t i = 0; i < n; ++i) {
      const double h = 1e-6;
      const auto at = [&](double v) { return f(full({}, v, DType::float64)).item<double>(); };
      const double expected = (at(xs[i] + h) - at(xs[i] - h)) / (2 * h);
      EXPECT_NEAR(grad[i], expected, 1e-6 * (1 + std::abs(expected))) << "x = " << xs[i];
    }
  }
}

// d/da and d/db of every binary row with a gradient against central differences in float64,
// at positive points without ties (pow's base is positive; maximum/minimum are smooth there).
TEST(OpTables, EveryBinaryGradientMatchesFiniteDifferences) {
  const std::vector<double> as{0.3, 0.7, 1.1, 1.9}, bs{0.6, 1.3, 0.45, 1.7};
  for (const auto& [op, f] : binary_functions()) {
    if (is_comparison(op)) continue;
    SCOPED_TRACE(std::string(op_name(op)));
    Tensor a = from_vector(as, {4}).requires_grad_(), b = from_vector(bs, {4}).requires_grad_();
    sum(f(a, b)).backward();
    const auto ga = a.grad().to_vector<double>(), gb = b.grad().to_vector<double>();
    for (std::size_t i = 0; i < as.size(); ++i) {
      const double h = 1e-6;
      const auto at = [&](double x, double y) {
        return f(full({}, x, DType::float64), full({}, y, DType::float64)).item<double>();
      };
      const double da = (at(as[i] + h, bs[i]) - at(as[i] - h, bs[i])) / (2 * h);
      const double db = (at(as[i], bs[i] + h) - at(as[i], bs[i] - h)) / (2 * h);
      EXPECT_NEAR(ga[i], da, 1e-6 * (1 + std::abs(da))) << "a = " << as[i] << ", b = " << bs[i];
      EXPECT_NEAR(gb[i], db, 1e-6 * (1 + std::abs(db))) << "a = " << as[i] << ", b = " << bs[i];
    }
  }
}

// The rows of minor 11 against values torch 1.13 gives (python3-torch): round's ties go to
// even, sign of NaN is 0, the rounding rows keep integer dtypes, erf and atan2 of integers
// are float32.
TEST(OpTables, RoundingSignErfAndAtan2AsTorch) {
  const Tensor x = tensor({NAN, -0.0, 0.0, 2.5, -2.5, 0.5, 1.5, INFINITY, -1.7});
  const auto r = round(x).to_vector<float>();
  const std::vector<float> want_round{0, -0.0F, 0, 2, -2, 0, 2, INFINITY, -2};
  EXPECT_TRUE(std::isnan(r[0]));
  for (std::size_t i = 1; i < r.size(); ++i) EXPECT_EQ(r[i], want_round[i]) << i;
  EXPECT_TRUE(std::signbit(r[1]));  // -0 stays -0
  EXPECT_EQ(sign(x).to_vector<float>(), (std::vector<float>{0, 0, 0, 1, -1, 1, 1, 1, -1}));
  EXPECT_EQ(floor(x).to_vector<float>()[8], -2.0F);
  EXPECT_EQ(ceil(x).to_vector<float>()[8], -1.0F);
  EXPECT_EQ(trunc(x).to_vector<float>()[8], -1.0F);
  const Tensor i = tensor({-3, 0, 5});
  for (const Tensor& t : {floor(i), ceil(i), round(i), trunc(i)}) {
    EXPECT_EQ(t.dtype(), DType::int64);
    EXPECT_EQ(t.to_vector<std::int64_t>(), (std::vector<std::int64_t>{-3, 0, 5}));
  }
  EXPECT_EQ(sign(i).to_vector<std::int64_t>(), (std::vector<std::int64_t>{-1, 0, 1}));
  EXPECT_EQ(sign(tensor({0, 7}).to(DType::uint8)).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(erf(i).dtype(), DType::float32);
  EXPECT_NEAR(erf(tensor({1.0})).item<double>(), 0.8427007929497149, 1e-6);
  EXPECT_EQ(reciprocal(i).to_vector<float>(), (std::vector<float>{-1.0F / 3, INFINITY, 0.2F}));
  const Tensor ang = atan2(tensor({1, -1}), tensor({0, 0}));
  EXPECT_EQ(ang.dtype(), DType::float32);
  EXPECT_NEAR(ang.to_vector<float>()[0], 1.5707963F, 1e-6);
  EXPECT_NEAR(ang.to_vector<float>()[1], -1.5707963F, 1e-6);
  // sign of bool raises as the other `numeric` rows (docs/semantics.md row 34).
  EXPECT_THROW(sign(tensor({1, 0}).to(DType::bool_)), DTypeError);
}

// The rows of minor 12 against torch 1.13's values (python3-torch): fmod takes the
// dividend's sign, remainder the divisor's; integers stay integers, MIN % -1 is 0, an integer
// divisor of 0 raises (torch's "ZeroDivisionError") and a floating one gives NaN; the
// gradients are g and -g * trunc(a / b) / -g * (a // b).
TEST(OpTables, FmodAndRemainderAsTorch) {
  const Tensor a = tensor({-7, 7, -7, 7}), b = tensor({2, 2, -2, -2});
  EXPECT_EQ(fmod(a, b).dtype(), DType::int64);
  EXPECT_EQ(fmod(a, b).to_vector<std::int64_t>(), (std::vector<std::int64_t>{-1, 1, -1, 1}));
  EXPECT_EQ(remainder(a, b).to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 1, -1, -1}));
  EXPECT_EQ(fmod(tensor({-128}).to(DType::int8), tensor({-1}).to(DType::int8)).item<std::int64_t>(),
            0);
  EXPECT_EQ(remainder(tensor({5}), 2.5).dtype(), DType::float32);
  EXPECT_EQ(fmod(tensor({5}), 2.0).item<std::int64_t>(), 1);
  EXPECT_THROW(fmod(tensor({5, 3}), tensor({1, 0})), ValueError);
  EXPECT_THROW(remainder(tensor({5}), tensor({0})), ValueError);
  // A 0 divisor that divides nothing (an empty result) raises nothing, as torch; a shape
  // mismatch is a ShapeError before it.
  const Tensor none = zeros({0}, TensorOptions().dtype(DType::int32));
  EXPECT_EQ(fmod(none, tensor({0}).to(DType::bool_)).numel(), 0);
  EXPECT_EQ(remainder(none, tensor({0})).numel(), 0);
  EXPECT_THROW(fmod(tensor({1, 2}), tensor({0, 0, 0})), ShapeError);
  // The divisor in the computation dtype: a 0-d int32 INT_MIN beside uint8 wraps to 0 (torch
  // raises), and 256 likewise.
  const Tensor u8 = tensor({7, 9}).to(DType::uint8);
  EXPECT_THROW(fmod(u8, full({}, -2147483648.0, TensorOptions().dtype(DType::int32))), ValueError);
  EXPECT_THROW(remainder(u8, full({}, 256.0, TensorOptions().dtype(DType::int32))), ValueError);
  EXPECT_TRUE(std::isnan(remainder(tensor({5}), 0.0).item<double>()));  // a floating 0: NaN
  EXPECT_THROW(fmod(tensor({1}).to(DType::bool_), tensor({1}).to(DType::bool_)), DTypeError);
  const Tensor x = tensor({-3.5, 3.5, -0.0, 5.0, INFINITY, 1.0, -1e-40});
  const Tensor y = tensor({2.0, -2.0, 3.0, 0.0, 2.0, INFINITY, 1e10});
  const auto f = fmod(x, y).to_vector<float>(), r = remainder(x, y).to_vector<float>();
  const std::vector<float> want_f{-1.5F, 1.5F, -0.0F, NAN, NAN, 1.0F, -1e-40F},
      want_r{0.5F, -0.5F, -0.0F, NAN, NAN, 1.0F, 1e10F};
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (std::isnan(want_f[i])) {
      EXPECT_TRUE(std::isnan(f[i]) && std::isnan(r[i])) << i;
      continue;
    }
    EXPECT_EQ(f[i], want_f[i]) << i;
    EXPECT_EQ(r[i], want_r[i]) << i;
  }
  EXPECT_TRUE(std::signbit(f[2]) && std::signbit(r[2]));
  Tensor p = tensor({-3.5, 7.25}).requires_grad_(), q = tensor({2.0, -2.0}).requires_grad_();
  remainder(p, q).sum().backward();
  EXPECT_EQ(p.grad().to_vector<float>(), (std::vector<float>{1, 1}));
  EXPECT_EQ(q.grad().to_vector<float>(), (std::vector<float>{2, 4}));
  p.mutable_grad() = Tensor();
  q.mutable_grad() = Tensor();
  fmod(p, q).sum().backward();
  EXPECT_EQ(q.grad().to_vector<float>(), (std::vector<float>{1, 3}));
}

// remainder's gradient to the divisor is -g * (a // b) with torch's floor division
// (c10::div_floor_floating), not floor(a / b): 1 / 0.1 rounds up to 10, but 1 // 0.1 is 9,
// and inf // 0.5 is NaN. Values from torch 1.13 (remainder(a, b).sum().backward(), b.grad).
TEST(OpTables, RemainderGradientUsesTorchsFloorDivision) {
  const double inf = std::numeric_limits<double>::infinity();
  Tensor a = from_vector(std::vector<double>{1.0, inf, -1.0, 0.3, 5.0, 0.0, -0.5, 7.0, 1.0, 1e300})
                 .requires_grad_();
  Tensor b = from_vector(std::vector<double>{0.1, 0.5, 0.1, -0.1, inf, 2.0, 2.0, 0.0, -inf, 1e-10})
                 .requires_grad_();
  remainder(a, b).sum().backward();
  const std::vector<double> got = b.grad().to_vector<double>(),
                            want{-9.0, NAN, 10.0, 3.0, -0.0, -0.0, 1.0, -inf, 1.0, -inf};
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << i << ": " << got[i];
      continue;
    }
    EXPECT_EQ(got[i], want[i]) << i;
    EXPECT_EQ(std::signbit(got[i]), std::signbit(want[i])) << i;
  }
  Tensor a32 = tensor({1.0, -1.0}).requires_grad_(), b32 = tensor({0.1, 0.1}).requires_grad_();
  remainder(a32, b32).sum().backward();
  EXPECT_EQ(b32.grad().to_vector<float>(), (std::vector<float>{-9, 10}));
}

// libhetero-partial.so runs fill, cast and add only.
class PartialBackend : public testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(load_plugin(HETERO_TEST_PARTIAL_PLUGIN).loaded); }
  const Device d{"partial:0"};
};

TEST_F(PartialBackend, RunsTheChaptersSupportedParts) {
  const Tensor x = ones({2, 3}, d);  // a tensor created on the device
  const Tensor y = tensor({1.f, 2.f, 3.f}).to(d);
  EXPECT_EQ(x.device(), d);
  EXPECT_EQ((x + y).cpu().to_vector<float>(), (std::vector<float>{2, 3, 4, 2, 3, 4}));
  EXPECT_EQ((x + y).to(DType::float64).cpu().to_vector<double>()[2], 4.0);
  EXPECT_THROW(x + ones({2, 3}), DeviceMismatchError);  // the same-device rule
  const Tensor z = x.copy_to(d);
  EXPECT_FALSE(z.is_same(x));
  EXPECT_EQ(x.to(d).is_same(x), true);
}

TEST_F(PartialBackend, OtherOpsRaiseNotImplementedNamingOpDtypeAndDevice) {
  const Tensor x = ones({2, 2}, d);
  try {
    (void)exp(x);
    FAIL() << "exp ran on a backend that does not support it";
  } catch (const NotImplementedError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("exp: not implemented for 'float32' on partial:0"), std::string::npos)
        << what;
    EXPECT_NE(what.find("backend 'partial'"), std::string::npos) << what;
  }
  EXPECT_THROW((void)(x * x), NotImplementedError);
  EXPECT_THROW((void)matmul(x, x), NotImplementedError);
  EXPECT_THROW((void)x.sum(), NotImplementedError);
  EXPECT_THROW((void)rand({2}, d), NotImplementedError);
  EXPECT_EQ((x + x).cpu().to_vector<float>(), (std::vector<float>{2, 2, 2, 2}));  // still usable
}

// Note [Optional capabilities]: one row per capability, in the order of the minors, none newer
// than the interface, and has_capability() answers from the row.
static_assert(capability_since(OptionalCapability::adopt) == 7);
static_assert(capability_since(OptionalCapability::record_timestamp) == 9);
static_assert(capability_since(OptionalCapability::reduces_into) == 10);
static_assert(capability_since(OptionalCapability::reduces_into) <= HETERO_INTERFACE_VERSION_MINOR);
static_assert(!has_capability(6, OptionalCapability::adopt) &&
              has_capability(7, OptionalCapability::adopt));
TEST(Capabilities, NamesAndMinorsComeFromOneTable) {
  int previous = 0;
#define HETERO_CHECK_ROW(name, since, what)                                 \
  EXPECT_EQ(capability_name(OptionalCapability::name), #name);              \
  EXPECT_GE(capability_since(OptionalCapability::name), previous) << #name; \
  previous = capability_since(OptionalCapability::name);
  HETERO_FORALL_OPTIONAL_CAPABILITIES(HETERO_CHECK_ROW)
#undef HETERO_CHECK_ROW
  EXPECT_LE(previous, HETERO_INTERFACE_VERSION_MINOR);
}

// libhetero-oldminor.so: the template backend built with HETERO_TARGET_INTERFACE_MINOR=0.
TEST(OldMinorPlugin, LoadsAndRunsTheOpsOfItsMinor) {
  const BackendStatus s = load_plugin(HETERO_TEST_OLDMINOR_PLUGIN);
  ASSERT_TRUE(s.loaded) << s.reason;
  EXPECT_EQ(s.interface_version, "3.0");
  EXPECT_EQ(s.interface_minor, 0);
  const Device d("oldminor:0");
  // No optional capability is in its vtable (Note [Optional capabilities]): from_blob on its
  // memory is refused by name, never called through a slot the plugin lacks.
  float host[2] = {1, 2};
  try {
    (void)from_blob(host, {2}, DType::float32, d);
    FAIL() << "adopt() was asked of a plugin whose interface predates it";
  } catch (const NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("predates Backend::adopt (3.7)"), std::string::npos)
        << e.what();
  }
  const Tensor x = full({3}, 0.5, d);
  EXPECT_FLOAT_EQ(exp(x).cpu().to_vector<float>()[0], std::exp(0.5f));
  EXPECT_FLOAT_EQ(x.sum().item<float>(), 1.5f);
  try {
    (void)sin(x);
    FAIL() << "sin ran on a plugin whose interface predates it";
  } catch (const NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("predates this op"), std::string::npos) << e.what();
  }
  // uint8 and int8 came with minor 2: the core never hands them to its kernels (which lack
  // their storage types), though bytes still copy.
  for (DType t : {DType::uint8, DType::int8}) {
    try {
      (void)zeros({2}, TensorOptions(d).dtype(t));
      FAIL() << dtype_name(t) << " reached a plugin whose interface predates it";
    } catch (const NotImplementedError& e) {
      EXPECT_NE(std::string(e.what()).find("predates this dtype"), std::string::npos) << e.what();
    }
    const Tensor bytes = from_vector(std::vector<std::uint8_t>{7, 200}).to(d);
    EXPECT_EQ(bytes.cpu().to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{7, 200}));
    EXPECT_THROW((void)(bytes + bytes), NotImplementedError);
  }
}

}  // namespace
}  // namespace hetero
