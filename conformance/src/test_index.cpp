// SPDX-License-Identifier: Apache-2.0
// gather, scatter_add, index_select and embedding (the backend's gather and scatter_add
// kernels, plugin interface 3.6) on the backend under test, against loops on the host: every
// dtype, along every dimension, over transposed (strided) inputs and an expanded index
// (stride 0), with repeated indices; gradients against counted sums; an index out of range
// is an IndexError that writes nothing. Values are small integers, so every sum is exact in
// every dtype and the comparison is exact.
#include <cstdint>
#include <string>
#include <vector>

#include <hetero/conformance/conformance.hpp>
#include <hetero/conformance/matchers.hpp>
#include <hetero/conformance/tensor_upload.hpp>
#include <hetero/hetero.hpp>

namespace hetero::conformance {
namespace {

using Vec = std::vector<double>;
using Index = std::vector<std::int64_t>;

// Small non-negative integers (0..3): exact in every dtype, sums of a few stay in int8's
// range; bool as 0/1.
Vec small_values(DType t, std::int64_t n, std::uint64_t seed) {
  Vec v(static_cast<std::size_t>(n));
  std::uint64_t s = seed * 2654435761u + 7;
  for (double& x : v) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    x = static_cast<double>((s >> 33) % (t == DType::bool_ ? 2 : 4));
  }
  return v;
}

Index indices(std::int64_t n, std::int64_t range, std::uint64_t seed) {
  Index v(static_cast<std::size_t>(n));
  std::uint64_t s = seed * 40503u + 11;
  for (auto& x : v) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    x = static_cast<std::int64_t>((s >> 33) % static_cast<std::uint64_t>(range));
  }
  return v;
}

Tensor upload_index(const Index& v, const Shape& s, const Device& d) {
  return from_vector(v, s, d);
}

// Row-major offset of position p in shape s.
std::int64_t offset_of(const Shape& s, const Index& p) {
  std::int64_t o = 0;
  for (std::size_t k = 0; k < s.size(); ++k) o = o * s[k] + p[k];
  return o;
}
// Position of row-major offset o in shape s.
Index position_of(const Shape& s, std::int64_t o) {
  Index p(s.size());
  for (std::size_t k = s.size(); k-- > 0;) {
    p[k] = o % s[k];
    o /= s[k];
  }
  return p;
}

void expect_equal(const Tensor& got, const Vec& want, const std::string& what) {
  ASSERT_TRUE(got.defined()) << what << ": undefined";
  const auto v = got.to_vector<double>();  // converted on the host: no float64 on the device
  EXPECT_THAT(v, ElementsEqual(want, got.shape())) << describe_result(what, got);
}

}  // namespace

TEST_P(BackendTest, GatherAndScatterAddMatchHostLoops) {
  const Device dev(GetParam());
  int ran = 0;
  const Shape shape{3, 4, 5};
  for (DType t : all_dtypes()) {
    if (!runs(OpFamily::gather, t) || !runs(OpFamily::scatter_add, t) || !runs(OpFamily::cast, t) ||
        !runs(ReductionOp::min, DType::int64) || !runs(ReductionOp::max, DType::int64))
      continue;
    ++ran;
    const Vec x = small_values(t, 60, 1);
    for (std::int64_t d = 0; d < 3; ++d) {
      const std::string along = " along dim " + std::to_string(d);
      // gather: index [2, 3, 6] (larger than input along d when d == 2, smaller elsewhere).
      Shape ishape{2, 3, 4};
      ishape[static_cast<std::size_t>(d)] = 6;
      std::int64_t n = 1;
      for (auto s : ishape) n *= s;
      const Index idx = indices(n, shape[static_cast<std::size_t>(d)], 10 + d);
      Vec want(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) {
        Index p = position_of(ishape, i);
        p[static_cast<std::size_t>(d)] = idx[static_cast<std::size_t>(i)];
        want[static_cast<std::size_t>(i)] = x[static_cast<std::size_t>(offset_of(shape, p))];
      }
      const Tensor input = upload(x, shape, t, dev);
      const Tensor index = upload_index(idx, ishape, dev);
      expect_equal(gather(input, d, index), want, "gather" + along);
      // The same input as a transposed view of a [5, 4, 3] tensor (strides 1, 3, 12).
      const Tensor strided = input.permute({2, 1, 0}).contiguous().permute({2, 1, 0});
      ASSERT_FALSE(strided.is_contiguous());
      expect_equal(gather(strided, d, index), want, "gather of a strided input" + along);

      // scatter_add of src [2, 3, 6] into a copy of input: each element in order along d.
      const Vec src = small_values(t, n, 20 + d);
      Vec sum = x;
      for (std::int64_t i = 0; i < n; ++i) {
        Index p = position_of(ishape, i);
        p[static_cast<std::size_t>(d)] = idx[static_cast<std::size_t>(i)];
        double& target = sum[static_cast<std::size_t>(offset_of(shape, p))];
        target = t == DType::bool_ ? (target != 0 || src[static_cast<std::size_t>(i)] != 0)
                                   : target + src[static_cast<std::size_t>(i)];
      }
      // scatter_add needs index.size(k) <= input.size(k) for k != d: [2, 3, 6] fits [3, 4, 5].
      const Tensor added = scatter_add(strided, d, index, upload(src, ishape, t, dev));
      expect_equal(added, sum, "scatter_add" + along);
      expect_equal(strided, x, "scatter_add's input (unchanged)" + along);
    }
  }
  if (ran == 0) GTEST_SKIP() << "backend '" << GetParam() << "' runs no gather or scatter_add";
}

TEST_P(BackendTest, IndexSelectAndEmbeddingWithGradients) {
  const Device dev(GetParam());
  int ran = 0;
  for (DType t : {DType::float32, DType::float64}) {
    if (!runs(OpFamily::gather, t) || !runs(OpFamily::scatter_add, t) || !runs(OpFamily::fill, t) ||
        !runs(OpFamily::cast, t) || !runs(ReductionOp::min, DType::int64) ||
        !runs(ReductionOp::max, DType::int64) || !runs(BinaryOp::mul, t))
      continue;
    ++ran;
    // index_select along dim 1 of [3, 7] with repeats, int32 index; gradient counts.
    const Vec x = small_values(t, 21, 3);
    const Index pick{6, 0, 6, 2, 6};
    Tensor input = upload(x, {3, 7}, t, dev).requires_grad_();
    const Tensor y = index_select(input, 1, upload_index(pick, {5}, dev).to(DType::int32));
    Vec want, grad(21, 0);
    for (int r = 0; r < 3; ++r)
      for (auto c : pick) {
        want.push_back(x[static_cast<std::size_t>(r * 7 + c)]);
        grad[static_cast<std::size_t>(r * 7 + c)] += 2;  // the gradient below is 2 everywhere
      }
    expect_equal(y, want, "index_select");
    (y * 2.0).sum().backward();
    expect_equal(input.grad(), grad, "index_select's gradient");

    // embedding [4, 3] at indices [[3, 1], [1, 0], [3, 3]] with padding_idx 1.
    const Vec w = small_values(t, 12, 4);
    Tensor weight = upload(w, {4, 3}, t, dev).requires_grad_();
    const Index at{3, 1, 1, 0, 3, 3};
    const Tensor e = embedding(upload_index(at, {3, 2}, dev), weight, 1);
    ASSERT_EQ(e.shape(), (Shape{3, 2, 3}));
    Vec rows, wgrad(12, 0);
    for (auto i : at)
      for (int j = 0; j < 3; ++j) {
        rows.push_back(w[static_cast<std::size_t>(i * 3 + j)]);
        if (i != 1) wgrad[static_cast<std::size_t>(i * 3 + j)] += 1;
      }
    expect_equal(e, rows, "embedding");
    e.sum().backward();
    expect_equal(weight.grad(), wgrad, "embedding's gradient (padding row excluded)");
  }
  if (ran == 0) GTEST_SKIP() << "backend '" << GetParam() << "' runs no gather or scatter_add";
}

TEST_P(BackendTest, IndexOutOfRangeRaisesAndWritesNothing) {
  const Device dev(GetParam());
  if (!runs(OpFamily::gather, DType::float32) || !runs(OpFamily::scatter_add, DType::float32) ||
      !runs(ReductionOp::min, DType::int64) || !runs(ReductionOp::max, DType::int64)) {
    GTEST_SKIP() << "backend '" << GetParam() << "' runs no gather or scatter_add";
  }
  const Tensor x = upload({1, 2, 3, 4, 5, 6}, {2, 3}, DType::float32, dev);
  for (const Index& bad : {Index{0, 3}, Index{-1, 0}}) {
    const Tensor index = upload_index(bad, {1, 2}, dev);
    EXPECT_THROW(gather(x, 1, index), IndexError);
    EXPECT_THROW(scatter_add(x, 1, index, x), IndexError);
    EXPECT_THROW(index_select(x, 1, index.reshape({2})), IndexError);
  }
  EXPECT_THROW(embedding(upload_index({2}, {1}, dev), x), IndexError);
  // No elements along dim: every index is out of bounds (torch 1.13 writes out of bounds).
  const Tensor none = x.narrow(1, 0, 0);
  EXPECT_THROW(scatter_add(none, 1, upload_index({0, 0}, {2, 1}, dev), x), IndexError);
  EXPECT_THROW(gather(none, 1, upload_index({0, 0}, {2, 1}, dev)), IndexError);
  expect_equal(x, {1, 2, 3, 4, 5, 6}, "input after the errors");
  // Empty index: an empty result, no kernel.
  EXPECT_EQ(gather(x, 1, upload_index({}, {2, 0}, dev)).shape(), (Shape{2, 0}));
  EXPECT_EQ(index_select(x, 0, upload_index({}, {0}, dev)).shape(), (Shape{0, 3}));
}

}  // namespace hetero::conformance
