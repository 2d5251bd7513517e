// SPDX-License-Identifier: Apache-2.0
// hetero::merge_dims (SDK): fewer dimensions, the same elements in the same C order.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include <hetero/sdk/merge_dims.hpp>

using namespace hetero;

namespace {

StridedView view(std::vector<std::int64_t> shape, std::vector<std::int64_t> strides,
                 std::int64_t offset = 0) {
  StridedView v;
  v.offset = offset;
  v.ndim = static_cast<int>(shape.size());
  for (int d = 0; d < v.ndim; ++d) {
    v.shape[d] = shape[static_cast<std::size_t>(d)];
    v.strides[d] = strides[static_cast<std::size_t>(d)];
  }
  return v;
}

// Element offsets of `v` in C order.
std::vector<std::int64_t> offsets(const StridedView& v) {
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < v.numel(); ++i) {
    std::int64_t rest = i, off = v.offset;
    for (int d = v.ndim - 1; d >= 0; --d) {
      off += rest % v.shape[d] * v.strides[d];
      rest /= v.shape[d];
    }
    out.push_back(off);
  }
  return out;
}

}  // namespace

TEST(MergeDims, ContiguousViewsBecomeOneDimension) {
  StridedView a = view({2, 3, 4}, {12, 4, 1}, 5), b = view({2, 3, 4}, {12, 4, 1});
  merge_dims<2>({&a, &b});
  ASSERT_EQ(a.ndim, 1);
  EXPECT_EQ(a.shape[0], 24);
  EXPECT_EQ(a.strides[0], 1);
  EXPECT_EQ(a.offset, 5);
  EXPECT_EQ(b.ndim, 1);
}

TEST(MergeDims, MergedDimsMergesCopiesAndLeavesTheViews) {
  const StridedView a = view({2, 3}, {3, 1}), b = view({2, 3}, {0, 1});
  const std::array<const StridedView*, 2> views{&a, &b};
  const auto merged = merged_dims<2>(views);
  EXPECT_EQ(a.ndim, 2);
  EXPECT_EQ(b.ndim, 2);
  ASSERT_EQ(merged[0].ndim, 2);  // b's row is broadcast: the dims stay apart
  EXPECT_EQ(offsets(merged[0]), offsets(a));
  EXPECT_EQ(offsets(merged[1]), offsets(b));
  const StridedView c = view({4, 1, 5}, {5, 5, 1});
  const StridedView* one[1] = {&c};
  EXPECT_EQ(merged_dims<1>(one)[0].ndim, 1);
}

TEST(MergeDims, MergesOnlyWhereEveryViewAllows) {
  // out contiguous, in transposed in its last two dims: only dim 0 could merge, and it
  // cannot either (in's stride 12 != 1 * 4).
  StridedView out = view({2, 3, 4}, {12, 4, 1}), in = view({2, 3, 4}, {12, 1, 3});
  merge_dims<2>({&out, &in});
  EXPECT_EQ(out.ndim, 3);
  // A broadcast operand (stride 0) merges with the dims it is broadcast over.
  StridedView o = view({5, 6, 7}, {42, 7, 1}), row = view({5, 6, 7}, {0, 0, 1});
  merge_dims<2>({&o, &row});
  ASSERT_EQ(o.ndim, 2);
  EXPECT_EQ(o.shape[0], 30);
  EXPECT_EQ(o.shape[1], 7);
  EXPECT_EQ(row.strides[0], 0);
}

TEST(MergeDims, DropsSizeOneDimensionsAndScalarsHaveNone) {
  StridedView v = view({1, 5, 1, 2}, {99, 2, 77, 1});
  merge_dims<1>({&v});
  ASSERT_EQ(v.ndim, 1);
  EXPECT_EQ(v.shape[0], 10);
  StridedView s = view({1, 1}, {3, 3}, 8);
  merge_dims<1>({&s});
  EXPECT_EQ(s.ndim, 0);
  EXPECT_EQ(s.numel(), 1);
  EXPECT_EQ(offsets(s), std::vector<std::int64_t>{8});
  StridedView e = view({3, 0, 2}, {0, 2, 1});
  merge_dims<1>({&e});
  EXPECT_EQ(e.numel(), 0);
}

TEST(MergeDims, KeepsEveryViewsElementsInOrder) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 500; ++trial) {
    const int nd = 1 + static_cast<int>(rng() % 5);
    std::vector<std::int64_t> shape(static_cast<std::size_t>(nd));
    for (auto& s : shape) s = 1 + static_cast<std::int64_t>(rng() % 4);
    // Three operands: contiguous, a random permutation of contiguous strides, broadcast.
    std::vector<std::int64_t> dense(shape.size()), permuted(shape.size()), bcast(shape.size());
    std::int64_t stride = 1;
    for (int d = nd - 1; d >= 0; --d) {
      dense[static_cast<std::size_t>(d)] = stride;
      stride *= shape[static_cast<std::size_t>(d)];
    }
    permuted = dense;
    std::shuffle(permuted.begin(), permuted.end(), rng);
    for (std::size_t d = 0; d < bcast.size(); ++d) bcast[d] = rng() % 2 ? dense[d] : 0;
    StridedView a = view(shape, dense, 1), b = view(shape, permuted, 2), c = view(shape, bcast);
    const auto before = std::vector{offsets(a), offsets(b), offsets(c)};
    merge_dims<3>({&a, &b, &c});
    EXPECT_EQ((std::vector{offsets(a), offsets(b), offsets(c)}), before) << "trial " << trial;
    EXPECT_EQ(a.ndim, b.ndim);
    EXPECT_EQ(a.ndim, c.ndim);
  }
}
