// SPDX-License-Identifier: Apache-2.0
// add_out / sub_out / mul_out / div_out (ops_out.hpp) against torch 1.13's out= rules: the
// values are those of the ops without out (themselves checked against torch elsewhere), the
// errors those torch raises (its messages are quoted beside each case).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <hetero/hetero.hpp>

#include "same_tensor.hpp"

using namespace hetero;
using hetero::test::expect_same;

TEST(OpsOut, ValuesAreTheOpsOwnAndLandInOutsElements) {
  manual_seed(3);
  for (DType t : {DType::float32, DType::float64, DType::bfloat16, DType::float16}) {
    const Tensor a = randn({5, 7}).to(t), b = randn({7}).to(t);
    Tensor buffer = zeros({40}, TensorOptions().dtype(t));
    Tensor out = buffer.narrow(0, 3, 35).view({5, 7});  // a slice of a buffer the caller owns
    EXPECT_TRUE(&mul_out(out, a, b) == &out);
    expect_same(out, a * b);
    add_out(out, a, b);
    expect_same(out, a + b);
    sub_out(out, a, b);
    expect_same(out, a - b);
    div_out(out, a, b);
    expect_same(out, a / b);
    mul_out(out, a, 1.0 / 3);  // the reducer's form: each gradient times 1 / world
    expect_same(out, a * (1.0 / 3));
    // Only the slice was written, in place: the buffer's elements outside it are still 0.
    const auto all = buffer.to(DType::float64).to_vector<double>();
    EXPECT_EQ(all[0] + all[1] + all[2] + all[38] + all[39], 0.0) << t;
    EXPECT_TRUE(equal(buffer.narrow(0, 3, 35).view({5, 7}), a * (1.0 / 3))) << t;
  }
}

TEST(OpsOut, IntegerOperandsAndOtherOutDTypesConvertAsTorch) {
  // torch.mul(torch.ones(3, dtype=torch.long), 2.5, out=torch.empty(3)) == [2.5, 2.5, 2.5]
  Tensor out = empty({3});
  mul_out(out, ones({3}, TensorOptions().dtype(DType::int64)), 2.5);
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{2.5f, 2.5f, 2.5f}));
  // float32 * float64 computes in float64, then converts into a float32 out.
  const Tensor a = tensor({1.0f, 2.0f, 3.0f});
  const Tensor b = from_vector(std::vector<double>{0.1, 0.2, 0.3});
  mul_out(out, a, b);
  expect_same(out, (a * b).to(DType::float32));
  // int64 + int64 into float32: integers can be cast to floating.
  const Tensor i = from_vector(std::vector<std::int64_t>{1, 2, 3});
  add_out(out, i, i);
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{2, 4, 6}));
  // Integer division is true division, into a float64 out.
  Tensor d = empty({3}, TensorOptions().dtype(DType::float64));
  div_out(d, i, from_vector(std::vector<std::int64_t>{2, 2, 2}));
  EXPECT_EQ(d.to_vector<double>(), (std::vector<double>{0.5, 1.0, 1.5}));
  // "result type Float can't be cast to the desired output type Long" / "... Bool"
  Tensor l = empty({3}, TensorOptions().dtype(DType::int64));
  EXPECT_THROW(mul_out(l, a, 2.0), DTypeError);
  Tensor flags = empty({3}, TensorOptions().dtype(DType::bool_));
  EXPECT_THROW(mul_out(flags, a, 3.0), DTypeError);
  EXPECT_THROW(div_out(l, i, i), DTypeError);  // true division gives float32
  // Bool operands keep their rules: + is logical or, - raises.
  const Tensor t = from_vector(std::vector<std::uint8_t>{1, 0, 1}).to(DType::bool_);
  add_out(flags, t, t);
  EXPECT_EQ(flags.to_vector<bool>(), (std::vector<bool>{true, false, true}));
  EXPECT_THROW(sub_out(flags, t, t), DTypeError);
}

TEST(OpsOut, OutMustHaveTheResultShapeUnlessItIsEmpty) {
  const Tensor a = ones({2, 1}), b = ones({3});
  Tensor out = empty({2, 3});
  mul_out(out, a, b);  // broadcasts as a * b
  EXPECT_EQ(out.to_vector<float>(), std::vector<float>(6, 1.0f));
  Tensor wrong = empty({4});
  EXPECT_THROW(mul_out(wrong, ones({3}), 2.0), ShapeError);
  EXPECT_THROW(mul_out(wrong, a, ones({4, 3})), ShapeError);  // a and b do not broadcast
  Tensor none = empty({0});  // torch resizes an out without elements
  mul_out(none, ones({3}), 2.0);
  EXPECT_EQ(none.shape(), (Shape{3}));
  EXPECT_EQ(none.to_vector<float>(), (std::vector<float>{2, 2, 2}));
  Tensor undefined;
  EXPECT_THROW(mul_out(undefined, ones({3}), 2.0), Error);
  EXPECT_THROW(mul_out(out, Tensor(), 2.0), Error);
  EXPECT_THROW(mul_out(out, a, Tensor()), Error);
}

TEST(OpsOut, NoAutogradThroughOutArguments) {
  // "mul(): functions with out=... arguments don't support automatic differentiation, but
  // one of the arguments requires grad."
  const Tensor w = ones({3}).requires_grad_();
  Tensor out = empty({3});
  EXPECT_THROW(mul_out(out, w, 2.0), Error);
  Tensor leaf = zeros({3}).requires_grad_();
  EXPECT_THROW(mul_out(leaf, ones({3}), 2.0), Error);
  {
    NoGradGuard no_grad;  // allowed, and nothing is recorded
    mul_out(out, w, 2.0);
    EXPECT_FALSE(out.requires_grad());
    mul_out(leaf, ones({3}), 2.0);
  }
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{2, 2, 2}));
  EXPECT_EQ(leaf.to_vector<float>(), (std::vector<float>{2, 2, 2}));
  // An out= write is an in-place write: a backward that saved the tensor refuses it.
  const Tensor x = ones({3}).requires_grad_();
  Tensor saved = full({3}, 3.0);
  const Tensor y = (x * saved).sum();
  {
    NoGradGuard no_grad;
    mul_out(saved, saved, 2.0);
  }
  EXPECT_THROW(y.backward(), Error);
}

TEST(OpsOut, OverlapFollowsTorch) {
  // out == input itself: allowed (torch.mul(y, 2.0, out=y)).
  Tensor y = arange(0, 3).to(DType::float32);
  mul_out(y, y, 2.0);
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{0, 2, 4}));
  // "some elements of the input tensor and the written-to tensor refer to a single memory
  // location"
  const Tensor x = arange(0, 6).to(DType::float32);
  Tensor tail = x.narrow(0, 2, 4);
  EXPECT_THROW(mul_out(tail, x.narrow(0, 0, 4), 2.0), ValueError);
  Tensor one_on = x.narrow(0, 1, 5);
  EXPECT_THROW(add_out(one_on, x.narrow(0, 1, 5), x.narrow(0, 0, 5)), ValueError);
  Tensor first = x.narrow(0, 0, 1);  // a broadcast input inside out's range
  Tensor head = x.narrow(0, 0, 3);
  EXPECT_THROW(add_out(head, first, ones({3})), ValueError);
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5}));  // nothing written
  // "more than one element of the written-to tensor refers to a single memory location"
  Tensor expanded = empty({1}).expand({3});
  EXPECT_THROW(mul_out(expanded, ones({3}), 2.0), ValueError);
  // Interleaved strided views of one storage: torch computes them; so does hetero (through
  // a temporary): torch.mul(x[::2], 2.0, out=x[1::2]) gives [0, 0, 2, 4, 4, 8].
  const Tensor z = arange(0, 6).to(DType::float32);
  const Tensor pairs = z.view({3, 2});
  Tensor odd = pairs.narrow(1, 1, 1);
  mul_out(odd, pairs.narrow(1, 0, 1), 2.0);
  EXPECT_EQ(z.to_vector<float>(), (std::vector<float>{0, 0, 2, 4, 4, 8}));
  // A transpose is dense: torch.add(m, m, out=m.t()) raises, as the partial overlap above.
  const Tensor m = arange(0, 4).to(DType::float32).view({2, 2});
  Tensor mt = m.t();
  EXPECT_THROW(add_out(mt, m, m), ValueError);
  EXPECT_EQ(m.to_vector<float>(), (std::vector<float>{0, 1, 2, 3}));
}
