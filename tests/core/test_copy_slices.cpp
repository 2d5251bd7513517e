// SPDX-License-Identifier: Apache-2.0
// copy_ into views with autograd (Note [View bases]): the base's history is rebased on a
// CopySlices node, the views' on AsStridedBackward, as torch's. Every expected value is
// torch 1.13's for the same program (python3-torch).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <hetero/hetero.hpp>

using namespace hetero;

namespace {
Tensor leaf(const std::vector<float>& v, const Shape& shape) {
  return from_vector(v, shape).requires_grad_();
}
Tensor leaf(const std::vector<float>& v) { return leaf(v, {static_cast<std::int64_t>(v.size())}); }
std::vector<float> values(const Tensor& t) { return t.to_vector<float>(); }
}  // namespace

TEST(CopySlices, ACopyIntoAViewRebasesItsBasesHistory) {
  Tensor x = leaf({1, 2, 3, 4}), z = leaf({5, 6});
  Tensor y = x * 2.0;
  y.narrow(0, 1, 2).copy_(z);
  EXPECT_EQ(y.grad_fn_name(), "CopySlices");
  EXPECT_EQ(values(y), (std::vector<float>{2, 5, 6, 8}));
  (y * y).sum().backward();
  // Before: NotImplementedError (and before that, x got 2y everywhere and z nothing).
  EXPECT_EQ(values(x.grad()), (std::vector<float>{8, 0, 0, 32}));
  EXPECT_EQ(values(z.grad()), (std::vector<float>{10, 12}));
}

TEST(CopySlices, ViewsMadeBeforeTheCopyFollowTheirBase) {
  Tensor x = leaf({1, 2, 3, 4}), z = leaf({5, 6});
  Tensor y = x * 2.0;
  const Tensor a = y.narrow(0, 0, 2), b = y.narrow(0, 2, 2);
  Tensor(b).copy_(z * 3.0);
  EXPECT_EQ(a.grad_fn_name(), "AsStridedBackward");
  EXPECT_EQ(b.grad_fn_name(), "AsStridedBackward");
  ((a * a).sum() + (b * b).sum()).backward();
  EXPECT_EQ(values(x.grad()), (std::vector<float>{8, 16, 0, 0}));
  EXPECT_EQ(values(z.grad()), (std::vector<float>{90, 108}));
}

TEST(CopySlices, AnExpandedViewOfTheBaseAddsItsOverlappingGradients) {
  Tensor x = leaf({1, 2, 3, 4}), z = leaf({9});
  Tensor y = x * 2.0;
  const Tensor e = y.expand({3, 4});
  y.narrow(0, 0, 1).copy_(z);
  EXPECT_EQ(e.grad_fn_name(), "AsStridedBackward");
  (e * arange(12).to(DType::float32).reshape({3, 4})).sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<float>{0, 30, 36, 42}));
  EXPECT_EQ(values(z.grad()), (std::vector<float>{12}));
}

TEST(CopySlices, ATransposedViewOfAViewAndASecondCopy) {
  Tensor x = leaf({1, 2, 3, 4, 5, 6}, {2, 3}), z = leaf({7, 8});
  Tensor y = x * 1.0;
  y.t()[1].copy_(z);
  EXPECT_EQ(values(y), (std::vector<float>{1, 7, 3, 4, 8, 6}));
  (y * arange(6).to(DType::float32).reshape({2, 3})).sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<float>{0, 0, 2, 3, 0, 5}));
  EXPECT_EQ(values(z.grad()), (std::vector<float>{1, 4}));

  Tensor p = leaf({1, 2, 3, 4}, {2, 2}), u = leaf({5}), w = leaf({7});
  Tensor q = p * 3.0;
  const Tensor row = q[1];
  row.narrow(0, 0, 1).copy_(u);
  q[0].narrow(0, 1, 1).copy_(w);
  EXPECT_EQ(row.grad_fn_name(), "AsStridedBackward");
  (q * from_vector<float>({1, 2, 3, 4}, {2, 2})).sum().backward();
  EXPECT_EQ(values(p.grad()), (std::vector<float>{3, 0, 0, 12}));
  EXPECT_EQ(values(u.grad()), (std::vector<float>{3}));
  EXPECT_EQ(values(w.grad()), (std::vector<float>{2}));
}

TEST(CopySlices, ABaseWithoutHistoryTakesOneAndItsOtherViewsRequireGrad) {
  Tensor b = zeros({4}), z = leaf({5, 6});
  const Tensor a = b.narrow(0, 0, 2), c = b.narrow(0, 2, 2);
  Tensor(c).copy_(z);
  EXPECT_TRUE(b.requires_grad());
  EXPECT_EQ(b.grad_fn_name(), "CopySlices");
  EXPECT_TRUE(a.requires_grad());
  EXPECT_EQ(a.grad_fn_name(), "AsStridedBackward");
  (b * b).sum().backward();
  EXPECT_EQ(values(z.grad()), (std::vector<float>{10, 12}));

  // A float64 base from a float32 source: the gradient returns in float32.
  Tensor d = zeros({4}, TensorOptions().dtype(DType::float64));
  Tensor s = leaf({5, 6});
  d.narrow(0, 1, 2).copy_(s);
  (d * d).sum().backward();
  EXPECT_EQ(s.grad().dtype(), DType::float32);
  EXPECT_EQ(values(s.grad()), (std::vector<float>{10, 12}));

  // A source without grad into a view of a base with history: CopySlices all the same.
  Tensor x = leaf({1, 2, 3, 4});
  Tensor y = x * 2.0;
  y.narrow(0, 0, 2).copy_(from_vector<std::int64_t>({7, 8}, {2}));
  EXPECT_EQ(y.grad_fn_name(), "CopySlices");
  y.sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<float>{0, 0, 2, 2}));
}

TEST(CopySlices, RefusesWhatTorchRefusesBeforeWriting) {
  Tensor x = leaf({1, 2, 3, 4}), z = leaf({5, 6});
  EXPECT_THROW(x.narrow(0, 0, 2).copy_(z), Error);  // a view of a leaf that requires grad
  Tensor y = x * 2.0;
  Tensor made_without_grad;
  {
    NoGradGuard no_grad;
    made_without_grad = y.narrow(0, 0, 2);
  }
  EXPECT_THROW(made_without_grad.copy_(z), Error);
  EXPECT_EQ(values(x), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(values(y), (std::vector<float>{2, 4, 6, 8}));
  {
    NoGradGuard no_grad;  // both under NoGradGuard: a plain copy, as torch
    made_without_grad.copy_(z);
  }
  EXPECT_EQ(values(y), (std::vector<float>{5, 6, 6, 8}));

  // An expand()ed destination, with or without grad (torch: "more than one element of the
  // written-to tensor refers to a single memory location"). Before: the last value won.
  Tensor one = zeros({1});
  EXPECT_THROW(one.expand({3}).copy_(from_vector<float>({1, 2, 3}, {3})), ValueError);
  EXPECT_EQ(values(one), (std::vector<float>{0}));
  one.expand({1}).copy_(from_vector<float>({4}, {1}));  // one element: allowed, as torch
  EXPECT_EQ(values(one), (std::vector<float>{4}));
}

// An in-place op into a view of a leaf that requires grad is refused under the op's own name
// (it said "copy_:", the write it is recorded as), and writes nothing.
TEST(CopySlices, AnInPlaceOpIntoAViewOfALeafNamesItself) {
  const std::vector<std::pair<std::string, std::function<void(Tensor)>>> ops = {
      {"mul_", [](Tensor v) { v.mul_(2.0); }},
      {"add_", [](Tensor v) { v.add_(ones({2})); }},
      {"exp_", [](Tensor v) { v.exp_(); }},
      {"clamp_", [](Tensor v) { v.clamp_(0, 1); }},
      {"masked_fill_", [](Tensor v) { v.masked_fill_(ones({2}, DType::bool_), 1.0); }},
      {"fill_", [](Tensor v) { v.fill_(5.0); }},
      {"zero_", [](Tensor v) { v.zero_(); }},
      {"uniform_", [](Tensor v) { v.uniform_(); }},
      {"copy_", [](Tensor v) { v.copy_(zeros({2})); }}};
  for (const auto& [name, op] : ops) {
    Tensor x = leaf({1, 2, 3, 4});
    try {
      op(x.narrow(0, 1, 2));
      ADD_FAILURE() << name << " into a view of a leaf that requires grad was not refused";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind(name + ": a view of a leaf tensor", 0), 0) << e.what();
    }
    EXPECT_EQ(values(x), (std::vector<float>{1, 2, 3, 4})) << name;
  }
  Tensor x = leaf({1, 2});  // the leaf itself
  try {
    x.zero_();
    ADD_FAILURE() << "zero_ of a leaf that requires grad was not refused";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("zero_: ", 0), 0) << e.what();
  }
}

TEST(CopySlices, AWrittenTensorThatABackwardSavedIsRefusedThere) {
  Tensor x = leaf({1, 2, 3}), z = leaf({5});
  Tensor y = x.exp();  // saves its result
  y.narrow(0, 0, 1).copy_(z);
  EXPECT_THROW(y.sum().backward(), Error);  // torch: "modified by an inplace operation"

  // A detach()ed alias is a tensor of its own: CopyBackwards on it, as torch.
  Tensor v = leaf({2});
  Tensor w = x * 1.0;
  Tensor alias = w.detach();
  alias.copy_(v.expand({3}) * 1.0);
  EXPECT_EQ(alias.grad_fn_name(), "CopyBackwards");
  alias.sum().backward();
  EXPECT_EQ(values(v.grad()), (std::vector<float>{3}));
}

namespace {
// A random chain of view ops (narrow, select, transpose, permute, unsqueeze), replayable on
// another tensor of the same shape.
struct ViewChain {
  std::vector<std::function<Tensor(const Tensor&)>> steps;
  Tensor operator()(Tensor t) const {
    for (const auto& s : steps) t = s(t);
    return t;
  }
};

ViewChain random_chain(std::mt19937& rng, Shape shape) {
  ViewChain c;
  const auto pick = [&](std::int64_t n) {
    return std::uniform_int_distribution<std::int64_t>(0, n - 1)(rng);
  };
  for (int k = 0, n = static_cast<int>(pick(4)); k < n; ++k) {
    const auto dims = static_cast<std::int64_t>(shape.size());
    switch (pick(5)) {
      case 0: {  // narrow
        if (dims == 0) break;
        const std::int64_t d = pick(dims), size = shape[static_cast<std::size_t>(d)];
        const std::int64_t start = pick(size), length = 1 + pick(size - start);
        c.steps.emplace_back([=](const Tensor& t) { return t.narrow(d, start, length); });
        shape[static_cast<std::size_t>(d)] = length;
        break;
      }
      case 1: {  // select along dimension 0
        if (dims < 2) break;
        const std::int64_t i = pick(shape[0]);
        c.steps.emplace_back([=](const Tensor& t) { return t[i]; });
        shape.erase(shape.begin());
        break;
      }
      case 2: {  // transpose
        if (dims < 2) break;
        const std::int64_t a = pick(dims), b = pick(dims);
        c.steps.emplace_back([=](const Tensor& t) { return t.transpose(a, b); });
        std::swap(shape[static_cast<std::size_t>(a)], shape[static_cast<std::size_t>(b)]);
        break;
      }
      case 3: {  // permute
        std::vector<std::int64_t> order(shape.size());
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), rng);
        c.steps.emplace_back([=](const Tensor& t) { return t.permute(order); });
        Shape permuted;
        for (const auto d : order) permuted.push_back(shape[static_cast<std::size_t>(d)]);
        shape = permuted;
        break;
      }
      default: {  // unsqueeze
        if (dims >= 5) break;
        const std::int64_t d = pick(dims + 1);
        c.steps.emplace_back([=](const Tensor& t) { return t.unsqueeze(d); });
        shape.insert(shape.begin() + d, 1);
        break;
      }
    }
  }
  return c;
}
}  // namespace

// 300 random cases: y = x * 2, a sibling view s of y made first, a copy of z into another
// view v of y, loss = sum(y * w) + sum(s * ws). The expected gradients come from plain
// copies without autograd: the weight each element of y carries (w, plus ws placed through
// s's chain), then x's is twice that with v's elements zeroed and z's is v's chain of it.
TEST(CopySlices, RandomViewChainsMatchTheGradientsOfPlainCopies) {
  std::mt19937 rng(20261129);
  for (int c = 0; c < 300; ++c) {
    SCOPED_TRACE("case " + std::to_string(c));
    Shape shape;
    for (int d = 0, n = 1 + static_cast<int>(rng() % 4); d < n; ++d)
      shape.push_back(1 + static_cast<std::int64_t>(rng() % 5));
    const ViewChain into = random_chain(rng, shape), sibling = random_chain(rng, shape);
    Tensor x = randn(shape).requires_grad_();
    const Tensor w = randn(shape);
    Tensor y = x * 2.0;
    const Tensor s = sibling(y);
    const Tensor ws = randn(s.shape());
    Tensor z = randn(into(y).shape()).requires_grad_();
    into(y).copy_(z);
    ((y * w).sum() + (s * ws).sum()).backward();

    NoGradGuard no_grad;
    Tensor weight = w.clone();
    Tensor placed = zeros(shape);
    sibling(placed).copy_(ws);
    weight = weight + placed;
    const Tensor to_z = into(weight).clone();
    into(weight).copy_(zeros(to_z.shape()));
    const auto near = [](const Tensor& a, const Tensor& b) {
      return (a - b).abs().max().item<float>() <= 1e-5f;
    };
    ASSERT_TRUE(x.grad().defined());
    EXPECT_TRUE(near(x.grad(), weight * 2.0));
    EXPECT_TRUE(near(z.grad(), to_z));
  }
}

// Semantics row 53: torch refuses a copy into an output of split/chunk/unbind (a multi-output
// view); hetero's are single views, and the gradient is the one the same copy into a narrow()
// or operator[] view gives (torch 1.13's values for those).
TEST(CopySlices, TheOutputsOfSplitChunkAndUnbindAreViewsLikeAnyOther) {
  Tensor x = leaf({1, 2, 3, 4}), z = leaf({5, 6});
  Tensor y = x * 2.0;
  chunk(y, 2)[1].copy_(z);
  EXPECT_EQ(y.grad_fn_name(), "CopySlices");
  (y * y).sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<float>{8, 16, 0, 0}));
  EXPECT_EQ(values(z.grad()), (std::vector<float>{10, 12}));

  Tensor m = leaf({1, 2, 3, 4}, {2, 2}), w = leaf({7, 8});
  Tensor n = m * 1.0;
  unbind(n, 1)[0].copy_(w);  // column 0
  (n * from_vector<float>({1, 2, 3, 4}, {2, 2})).sum().backward();
  EXPECT_EQ(values(m.grad()), (std::vector<float>{0, 2, 0, 4}));
  EXPECT_EQ(values(w.grad()), (std::vector<float>{1, 3}));
}
