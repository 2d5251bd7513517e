// SPDX-License-Identifier: Apache-2.0
// reduce, gather, scatter, all_to_all(_single), send/recv and monitored_barrier, against
// references every rank computes for the whole group.
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <hetero/distributed.hpp>

#include "distributed_test_util.hpp"

using namespace hetero;
namespace dist = hetero::distributed;

namespace {

// Rank r's element i.
double value(int r, std::int64_t i) { return static_cast<double>(r * 100 + i % 7); }

Tensor rank_tensor(int r, std::int64_t n, DType t, const Device& d) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = value(r, i);
  return from_vector(v, {n}).to(t).to(d);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST(Rooted, ReduceIntoEveryRootLeavesTheOthersAlone) {
  const int me = dist::rank(), world = dist::world_size();
  for (const Device& d : test::collective_devices())
    for (DType t : {DType::float32, DType::int64, DType::float16})
      for (int dst = 0; dst < world; ++dst) {
        SCOPED_TRACE(testing::Message() << d << " " << dtype_name(t) << " dst " << dst);
        Tensor x = rank_tensor(me, 9, t, d);
        dist::reduce(x, dst, dist::ReduceOp::sum);
        const auto got = x.to_vector<double>();
        for (std::int64_t i = 0; i < 9; ++i) {
          double expected = value(me, i);
          if (me == dst) {
            expected = 0;
            for (int r = 0; r < world; ++r) expected += value(r, i);
          }
          EXPECT_EQ(got[static_cast<std::size_t>(i)], expected) << i;
        }
      }
  Tensor y = full({3}, static_cast<double>(me));
  dist::reduce(y, 0, dist::ReduceOp::max, dist::async_op).wait();
  if (me == 0) {
    EXPECT_EQ(y.to_vector<double>(), std::vector<double>(3, world - 1.0));
  }
  EXPECT_THROW(dist::reduce(y, world), dist::DistributedError);
  // A negative dst raises on every rank and leaves the tensor alone (issue #50 item 3: -1
  // was the internal all_reduce sentinel, so every rank's tensor got the sum).
  Tensor z = full({3}, static_cast<double>(me));
  EXPECT_THROW(dist::reduce(z, -1), dist::DistributedError);
  EXPECT_THROW(dist::reduce(z, -2, dist::ReduceOp::sum, dist::async_op), dist::DistributedError);
  EXPECT_EQ(z.to_vector<double>(), std::vector<double>(3, me));
  dist::all_reduce(z);  // the group is still usable, its call numbers aligned
  EXPECT_EQ(z.to_vector<double>(), std::vector<double>(3, world * (world - 1) / 2.0));
}

TEST(Rooted, GatherAndScatterThroughEveryRoot) {
  const int me = dist::rank(), world = dist::world_size();
  for (const Device& d : test::collective_devices())
    for (int root = 0; root < world; ++root) {
      SCOPED_TRACE(testing::Message() << d << " root " << root);
      std::vector<Tensor> outs;
      if (me == root)
        for (int r = 0; r < world; ++r) outs.push_back(empty({5}, TensorOptions(d)));
      dist::gather(rank_tensor(me, 5, DType::float32, d), outs, root);
      for (int r = 0; r < static_cast<int>(outs.size()); ++r)
        EXPECT_EQ(outs[static_cast<std::size_t>(r)].to_vector<double>(),
                  rank_tensor(r, 5, DType::float64, Device::cpu()).to_vector<double>());
      std::vector<Tensor> ins;
      if (me == root)
        for (int r = 0; r < world; ++r) ins.push_back(rank_tensor(r, 4, DType::int32, d));
      Tensor out = empty({4}, TensorOptions(d).dtype(DType::int32)).t();  // any layout
      dist::scatter(out, ins, root);
      EXPECT_EQ(out.to_vector<double>(),
                rank_tensor(me, 4, DType::float64, Device::cpu()).to_vector<double>());
    }
  // The list belongs to the root only; a wrong count is refused before communicating.
  std::vector<Tensor> wrong{empty({5})};
  if (world > 1) {
    EXPECT_THROW(dist::gather(full({5}, 1.0), wrong, me == 0 ? 1 : 0), ShapeError);
  }
  std::vector<Tensor> short_list;
  EXPECT_THROW(dist::gather(full({5}, 1.0), short_list, me), ShapeError);
  dist::barrier();
}

TEST(AllToAll, SingleAndListMatchTheTransposedBlocks) {
  const int me = dist::rank(), world = dist::world_size();
  for (const Device& d : test::collective_devices()) {
    SCOPED_TRACE(testing::Message() << d);
    // Rank me's block r holds 100 * me + 10 * r + k.
    std::vector<double> v;
    for (int r = 0; r < world; ++r)
      for (int k = 0; k < 6; ++k) v.push_back(100 * me + 10 * r + k);
    const Tensor input = from_vector(v, {world * 2, 3}).to(d);
    Tensor output = empty({world * 2, 3}, TensorOptions(d).dtype(DType::float64));
    dist::all_to_all_single(output, input);
    const auto got = output.to_vector<double>();
    for (int r = 0; r < world; ++r)
      for (int k = 0; k < 6; ++k)
        EXPECT_EQ(got[static_cast<std::size_t>(r * 6 + k)], 100 * r + 10 * me + k) << r << " " << k;
    std::vector<Tensor> ins, outs;
    for (int r = 0; r < world; ++r) {
      ins.push_back(full({2}, static_cast<double>(10 * me + r), d));
      outs.push_back(empty({2}, TensorOptions(d)));
    }
    dist::all_to_all(outs, ins, dist::async_op).wait();
    for (int r = 0; r < world; ++r)
      EXPECT_EQ(outs[static_cast<std::size_t>(r)].to_vector<double>(),
                std::vector<double>(2, 10 * r + me));
  }
  Tensor odd = empty({world * 2 + 1}), out = empty({world * 2 + 1});
  if (world > 1) {
    EXPECT_THROW(dist::all_to_all_single(out, odd), ShapeError);
  }
  dist::barrier();
}

// Uneven splits (torch's output_split_sizes / input_split_sizes): rank me sends me + r + 1
// rows of 2 columns to rank r, rows holding 100 * me + r; so rank r receives me + r + 1
// rows from each `me`.
TEST(AllToAll, UnevenSplitsAndSplitsThatDisagree) {
  const int me = dist::rank(), world = dist::world_size();
  for (const Device& d : test::collective_devices()) {
    SCOPED_TRACE(testing::Message() << d);
    std::vector<std::int64_t> in_splits, out_splits;
    std::vector<double> v;
    for (int r = 0; r < world; ++r) {
      in_splits.push_back(me + r + 1);
      out_splits.push_back(r + me + 1);
      for (int k = 0; k < 2 * (me + r + 1); ++k) v.push_back(100 * me + r);
    }
    std::int64_t in_rows = 0, out_rows = 0;
    for (int r = 0; r < world; ++r) in_rows += in_splits[static_cast<std::size_t>(r)];
    for (int r = 0; r < world; ++r) out_rows += out_splits[static_cast<std::size_t>(r)];
    const Tensor input = from_vector(v, {in_rows, 2}).to(d);
    Tensor output = empty({out_rows, 2}, TensorOptions(d).dtype(DType::float64));
    dist::all_to_all_single(output, input, out_splits, in_splits);
    std::vector<double> expected;
    for (int r = 0; r < world; ++r)
      for (int k = 0; k < 2 * (r + me + 1); ++k) expected.push_back(100 * r + me);
    EXPECT_EQ(output.to_vector<double>(), expected);
  }
  // Locally wrong splits: ShapeError before communicating.
  Tensor in = empty({3, 2}), out = empty({3, 2});
  std::vector<std::int64_t> bad(static_cast<std::size_t>(world), 0);
  bad[0] = 2;  // sums to 2, the tensor has 3 rows
  EXPECT_THROW(dist::all_to_all_single(out, in, bad, bad), ShapeError);
  if (world > 1) {
    // Rank 0 expects one row more from rank 1 than rank 1 sends: every rank throws, and
    // no output is written.
    std::vector<std::int64_t> splits(static_cast<std::size_t>(world), 1);
    std::vector<std::int64_t> expects = splits;
    if (me == 0) expects = {0, 2};
    if (me == 0) expects.resize(static_cast<std::size_t>(world), 1);
    Tensor send = full({world, 2}, 5.0);
    Tensor recv = full({world, 2}, -1.0);
    try {
      dist::all_to_all_single(recv, send, expects, splits);
      ADD_FAILURE() << "splits that disagree were exchanged";
    } catch (const dist::DistributedError& e) {
      if (me == 0) {
        EXPECT_TRUE(contains(e.what(), "rank 0 sends 1 rows")) << e.what();
      }
    }
    EXPECT_EQ(recv.to_vector<double>(), std::vector<double>(2 * world, -1.0));
  }
  dist::barrier();
}

// all_to_all's lists with a shape per tensor (torch.distributed.all_to_all): rank me sends
// rank r a [me + 1, r + 1] tensor holding 100 * me + 10 * r + k, so rank r receives
// [me + 1, r + 1] from each `me`; outputs of another shape with the same element count are
// filled in row-major order. A count that does not pair off fails on every rank, unwritten.
TEST(AllToAll, ListsOfDifferentShapes) {
  const int me = dist::rank(), world = dist::world_size();
  for (const Device& d : test::collective_devices()) {
    SCOPED_TRACE(testing::Message() << d);
    std::vector<Tensor> ins, outs;
    for (int r = 0; r < world; ++r) {
      std::vector<float> v;
      for (int k = 0; k < (me + 1) * (r + 1); ++k) v.push_back(100.f * me + 10.f * r + k);
      ins.push_back(from_vector(v, {me + 1, r + 1}).to(d));
      // From rank r: [r + 1, me + 1] sent; received as a flat vector for odd r.
      const Shape shape = r % 2 ? Shape{(r + 1) * (me + 1)} : Shape{r + 1, me + 1};
      outs.push_back(full(shape, -1.0f, d));
    }
    dist::all_to_all(outs, ins);
    for (int r = 0; r < world; ++r) {
      std::vector<float> expected;
      for (int k = 0; k < (r + 1) * (me + 1); ++k) expected.push_back(100.f * r + 10.f * me + k);
      EXPECT_EQ(outs[static_cast<std::size_t>(r)].to_vector<float>(), expected) << "from " << r;
    }
    std::vector<Tensor> again;
    for (const Tensor& t : outs) again.push_back(empty(t.shape(), TensorOptions(d)));
    dist::all_to_all(again, ins, dist::async_op).wait();
    for (int r = 0; r < world; ++r)
      EXPECT_EQ(again[static_cast<std::size_t>(r)].to_vector<float>(),
                outs[static_cast<std::size_t>(r)].to_vector<float>());
  }
  // Local refusals, before communicating: a list of the wrong length, dtypes that differ.
  std::vector<Tensor> short_list(static_cast<std::size_t>(world) + 1, full({1}, 1.0f));
  std::vector<Tensor> fine(static_cast<std::size_t>(world), full({1}, 1.0f));
  EXPECT_THROW(dist::all_to_all(fine, short_list), ShapeError);
  std::vector<Tensor> doubles(static_cast<std::size_t>(world),
                              full({1}, 1.0, TensorOptions().dtype(DType::float64)));
  EXPECT_THROW(dist::all_to_all(doubles, fine), DTypeError);
  if (world > 1) {
    // Rank 0 expects 3 elements from rank 1, which sends 2: every rank throws, nothing written.
    std::vector<Tensor> send(static_cast<std::size_t>(world), full({2}, 5.0f));
    std::vector<Tensor> recv;
    for (int r = 0; r < world; ++r) recv.push_back(full({me == 0 && r == 1 ? 3 : 2}, -1.0f));
    try {
      dist::all_to_all(recv, send);
      ADD_FAILURE() << "counts that do not pair off were exchanged";
    } catch (const dist::DistributedError& e) {
      if (me == 0) {
        EXPECT_TRUE(contains(e.what(), "rank 1 sends 2 elements, this rank's outputs[1] expects 3"))
            << e.what();
      }
    }
    for (const Tensor& t : recv)
      EXPECT_EQ(t.to_vector<float>(),
                std::vector<float>(static_cast<std::size_t>(t.numel()), -1.f));
  }
  dist::barrier();
}

TEST(PointToPoint, RingAnySourceAndMismatchedMessages) {
  const int me = dist::rank(), world = dist::world_size();
  if (world == 1) {  // no peer: only the refusals can be checked
    Tensor t = full({1}, 0.0);
    EXPECT_THROW(dist::send(t, 0, 0), dist::DistributedError);
    EXPECT_THROW(dist::recv(t, 1, 0), dist::DistributedError);
    return;
  }
  const int next = (me + 1) % world, prev = (me + world - 1) % world;
  for (const Device& d : test::collective_devices()) {
    SCOPED_TRACE(testing::Message() << d);
    Tensor mine = rank_tensor(me, 6, DType::float32, d), got = empty({2, 3}, TensorOptions(d));
    if (me % 2 == 0) {
      dist::send(mine, next, 3);
      EXPECT_EQ(dist::recv(got, prev, 3), prev);
    } else {
      EXPECT_EQ(dist::recv(got, prev, 3), prev);
      dist::send(mine, next, 3);
    }
    EXPECT_EQ(got.to_vector<double>(),
              rank_tensor(prev, 6, DType::float64, Device::cpu()).to_vector<double>());
  }
  // From any rank: rank 0 hears from every other.
  if (me == 0) {
    std::set<int> sources;
    for (int i = 1; i < world; ++i) {
      Tensor t = empty({1});
      const int from = dist::recv(t, dist::any_source, 9);
      EXPECT_EQ(t.item<double>(), from);
      sources.insert(from);
    }
    EXPECT_EQ(sources.size(), static_cast<std::size_t>(world - 1));
  } else {
    dist::send(full({1}, static_cast<double>(me)), 0, 9);
  }
  // A message that does not fit is consumed and refused, not truncated.
  if (me == 1) {
    dist::send(full({3}, 1.0, DType::float64), 0, 5);
    dist::send(full({4}, 2.0), 0, 5);
    dist::send(full({3}, 3.0), 0, 5);
  } else if (me == 0) {
    Tensor t = full({3}, -1.0);
    EXPECT_THROW(dist::recv(t, 1, 5), DTypeError);
    EXPECT_THROW(dist::recv(t, 1, 5), ShapeError);
    EXPECT_EQ(t.to_vector<float>(), std::vector<float>(3, -1.0f));
    dist::recv(t, 1, 5);
    EXPECT_EQ(t.to_vector<float>(), std::vector<float>(3, 3.0f));
  }
  Tensor t = full({1}, 0.0);
  EXPECT_THROW(dist::send(t, me, 0), dist::DistributedError);
  EXPECT_THROW(dist::send(t, world, 0), dist::DistributedError);
  EXPECT_THROW(dist::send(t, next, 20000), dist::DistributedError);
  dist::barrier();
}

// The late rank calls monitored_barrier only once rank 0 has given up on it (rank 0 tells
// it so by a message): no sleep races the ranks (issue #48). Rank 0 waits 5 s, ample for the
// other ranks, which left the barrier before with it.
TEST(MonitoredBarrier, NamesTheRankThatIsLate) {
  const int me = dist::rank(), world = dist::world_size();
  dist::monitored_barrier(10);  // everyone comes
  if (world == 1) return;
  const int late = world - 1;
  Tensor token = full({1}, 0.0);
  if (me == late) {
    dist::recv(token, 0, 7);  // rank 0 has given up on this rank
    try {
      dist::monitored_barrier(0.5);
      ADD_FAILURE() << "the late rank passed";
    } catch (const dist::DistributedError& e) {
      EXPECT_TRUE(contains(e.what(), "rank 0 did not answer")) << e.what();
    }
  } else {
    try {
      dist::monitored_barrier(5);
      ADD_FAILURE() << "monitored_barrier passed without rank " << late;
    } catch (const dist::DistributedError& e) {
      EXPECT_TRUE(contains(e.what(), "rank " + std::to_string(late) + " did not arrive"))
          << e.what();
    }
    if (me == 0) dist::send(token, late, 7);
  }
  dist::barrier();  // the group is still usable and in step
  dist::monitored_barrier(10);
}
