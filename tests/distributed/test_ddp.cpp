// SPDX-License-Identifier: Apache-2.0
// DistributedDataParallel (gradient reduction overlapped with backward, no_sync) and
// asynchronous collectives (Work).
#include <gtest/gtest.h>

#include <sched.h>

#include <string>
#include <vector>

#include <hetero/distributed.hpp>

#include "distributed_test_util.hpp"

using namespace hetero;
namespace dist = hetero::distributed;

namespace {

nn::Sequential make_net() {
  return nn::Sequential{nn::Linear(6, 8), nn::Tanh(), nn::Linear(8, 5), nn::ReLU(),
                        nn::Linear(5, 3)};
}

// Rank r's batch: its own values, so that gradients differ between ranks.
Tensor batch_of(int rank, int step, const Device& d) {
  manual_seed(1000 + static_cast<std::uint64_t>(rank) * 17 + static_cast<std::uint64_t>(step));
  return randn({4, 6}).to(d);
}

Tensor linear(const Tensor& x, const Tensor& w, const Tensor& b) { return x.matmul(w.t()) + b; }

void expect_same_gradients(const nn::Module& a, const nn::Module& b) {
  const auto pa = a.named_parameters(), pb = b.named_parameters();
  for (const auto& [name, t] : pa) {
    const Tensor ga = t.grad(), gb = pb.at(name).grad();
    ASSERT_EQ(ga.defined(), gb.defined()) << name;
    if (ga.defined()) {
      EXPECT_EQ(ga.to_vector<float>(), gb.to_vector<float>()) << name;
    }
  }
}

}  // namespace

// DDP's hooks reduce during backward (or, Overlap::never, in wait()) what
// all_reduce_gradients reduces after it: the same buckets (reverse order aside), the same
// sums, bit for bit, over several steps.
TEST(DistributedDataParallel, MatchesAllReduceGradientsBitForBit) {
  const int me = dist::rank();
  for (const Device& d : test::collective_devices())
    for (dist::Overlap overlap :
         {dist::Overlap::automatic, dist::Overlap::always, dist::Overlap::never})
      for (std::size_t bucket_bytes :
           {std::size_t{1}, std::size_t{96}, dist::default_bucket_bytes}) {
        SCOPED_TRACE(testing::Message() << d << " bucket " << bucket_bytes << " overlap "
                                        << static_cast<int>(overlap));
        manual_seed(3);
        nn::Sequential net = make_net(), reference = make_net();
        manual_seed(3);
        reference = make_net();
        net.to(d);
        reference.to(d);
        dist::DistributedDataParallel ddp(net, {.bucket_bytes = bucket_bytes, .overlap = overlap});
        if (overlap != dist::Overlap::automatic) {
          EXPECT_EQ(ddp.overlaps(), overlap == dist::Overlap::always);
        }
        EXPECT_EQ(ddp.bucket_count(), bucket_bytes == 1                            ? 6u
                                      : bucket_bytes == dist::default_bucket_bytes ? 1u
                                                                                   : 4u);
        for (int step = 0; step < 3; ++step) {
          for (const Tensor& p : net.parameters()) Tensor(p).mutable_grad() = Tensor();
          for (const Tensor& p : reference.parameters()) Tensor(p).mutable_grad() = Tensor();
          {
            const Tensor y = net(batch_of(me, step, d));
            (y * y).sum().backward();
          }
          ddp.wait();
          {
            const Tensor y = reference(batch_of(me, step, d));
            (y * y).sum().backward();
          }
          dist::all_reduce_gradients(reference, bucket_bytes);
          expect_same_gradients(net, reference);
        }
      }
}

// Overlap::automatic starts buckets during backward only where every process on this
// machine can have its cpu device's kernel threads and its communication thread on cores of
// their own (Note [When buckets start]); an accelerator's buckets always overlap. On CI's 2
// cores under mpirun -np 2 or 3 it does not overlap.
TEST(DistributedDataParallel, AutomaticOverlapNeedsACoreForTheCommunication) {
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  const int cores = CPU_COUNT(&set);
  for (const Device& d : test::collective_devices()) {
    SCOPED_TRACE(testing::Message() << d);
    nn::Sequential net = make_net();
    net.to(d);
    const dist::DistributedDataParallel ddp(net);
    const DeviceProperties p = device_info(d).properties;
    if (p.kind != DeviceKind::cpu) {
      EXPECT_TRUE(ddp.overlaps());
      continue;
    }
    const int threads = p.multiprocessor_count + 1;  // kernels, and the communication thread
    EXPECT_EQ(ddp.overlaps(), dist::local_world_size() * threads <= cores)
        << dist::local_world_size() << " processes of " << threads << " threads on " << cores
        << " cores";
    if (dist::local_world_size() >= cores) {
      EXPECT_FALSE(ddp.overlaps());
    }
  }
}

// Under no_sync() backward only accumulates; the first synchronised pass reduces the sum
// of all passes, as DDP.no_sync().
TEST(DistributedDataParallel, NoSyncAccumulatesThenReducesOnce) {
  const int me = dist::rank();
  for (dist::Overlap overlap : {dist::Overlap::always, dist::Overlap::never}) {
    SCOPED_TRACE(testing::Message() << "overlap " << static_cast<int>(overlap));
    manual_seed(5);
    nn::Sequential net = make_net();
    manual_seed(5);
    nn::Sequential reference = make_net();
    dist::DistributedDataParallel ddp(net, {.bucket_bytes = 128, .overlap = overlap});
    {
      auto guard = ddp.no_sync();
      net(batch_of(me, 0, Device::cpu())).sum().backward();
      ddp.wait();  // nothing inside no_sync
      net(batch_of(me, 1, Device::cpu())).sum().backward();
    }
    net(batch_of(me, 2, Device::cpu())).sum().backward();
    ddp.wait();
    for (int step = 0; step < 3; ++step)
      reference(batch_of(me, step, Device::cpu())).sum().backward();
    dist::all_reduce_gradients(reference, 128);
    expect_same_gradients(net, reference);
  }
}

// A parameter unused on rank 0 receives the mean with rank 0's zeros; one unused everywhere
// keeps no gradient; frozen parameters take no part.
TEST(DistributedDataParallel, UnusedAndFrozenParameters) {
  for (dist::Overlap overlap : {dist::Overlap::always, dist::Overlap::never}) {
    SCOPED_TRACE(testing::Message() << "overlap " << static_cast<int>(overlap));
    const int me = dist::rank(), world = dist::world_size();
    nn::Sequential holder{nn::Linear(3, 2), nn::Linear(3, 2), nn::Linear(3, 2)};  // "0" "1" "2"
    Tensor frozen = holder.named_parameters().at("2.bias");
    frozen.requires_grad_(false);
    dist::DistributedDataParallel ddp(holder, {.overlap = overlap});
    const Tensor x = full({1, 3}, static_cast<double>(me + 1));
    const auto params = holder.named_parameters();
    Tensor y = linear(x, params.at("0.weight"), params.at("0.bias")).sum();
    if (me != 0) y = y + linear(x, params.at("1.weight"), params.at("1.bias")).sum();
    y.backward();
    ddp.wait();
    // d/d bias of sum(linear) = 1 per output on the ranks that used it.
    EXPECT_EQ(params.at("0.bias").grad().to_vector<float>(), std::vector<float>(2, 1.0f));
    if (world > 1)
      EXPECT_EQ(params.at("1.bias").grad().to_vector<float>(),
                std::vector<float>(2, static_cast<float>(world - 1) / static_cast<float>(world)));
    else
      EXPECT_FALSE(params.at("1.bias").grad().defined());
    EXPECT_FALSE(params.at("2.weight").grad().defined());
    EXPECT_FALSE(frozen.grad().defined());
  }
}

TEST(DistributedDataParallel, TwoBackwardsWithoutWaitRaise) {
  for (dist::Overlap overlap : {dist::Overlap::always, dist::Overlap::never}) {
    SCOPED_TRACE(testing::Message() << "overlap " << static_cast<int>(overlap));
    nn::Sequential net = make_net();
    dist::DistributedDataParallel ddp(net, {.bucket_bytes = 1, .overlap = overlap});
    net(batch_of(0, 0, Device::cpu())).sum().backward();
    if (dist::world_size() == 1)  // one process reduces nothing: the passes just accumulate
      EXPECT_NO_THROW(net(batch_of(0, 1, Device::cpu())).sum().backward());
    else
      EXPECT_THROW(net(batch_of(0, 1, Device::cpu())).sum().backward(), Error);
    ddp.wait();  // the ranks are still in step
    dist::barrier();
  }
}

// Several collectives in flight at once complete in call order with the blocking ones'
// results; a staged (non-contiguous) tensor gets its result at wait().
TEST(AsyncCollectives, SeveralInFlightGiveTheBlockingResults) {
  const int me = dist::rank(), world = dist::world_size();
  for (const Device& d : test::collective_devices()) {
    SCOPED_TRACE(testing::Message() << d);
    Tensor a = full({1000}, static_cast<double>(me + 1), d);
    Tensor big = full({4, 6}, static_cast<double>(me), d);
    Tensor view = big.t();  // non-contiguous: staged through a buffer of the Work's
    Tensor b = full({3}, static_cast<double>(me * 10), d);
    std::vector<Tensor> gathered(static_cast<std::size_t>(world));
    for (auto& g : gathered) g = empty({2}, TensorOptions(d));
    dist::Work w1 = dist::all_reduce(a, dist::ReduceOp::sum, dist::async_op);
    dist::Work w2 = dist::all_reduce(view, dist::ReduceOp::max, dist::async_op);
    dist::Work w3 = dist::broadcast(b, world - 1, dist::async_op);
    dist::Work w4 =
        dist::all_gather(gathered, full({2}, static_cast<double>(me), d), dist::async_op);
    dist::Work w5 = dist::barrier(dist::async_op);
    w5.wait();  // out of order: the earlier ones are done too
    w4.wait();
    w3.wait();
    w2.wait();
    EXPECT_TRUE(w1.is_completed());
    w1.wait();
    w1.wait();  // again: returns at once
    EXPECT_EQ(a.to_vector<double>(), std::vector<double>(1000, world * (world + 1) / 2.0));
    EXPECT_EQ(big.to_vector<double>(), std::vector<double>(24, world - 1.0));
    EXPECT_EQ(b.to_vector<double>(), std::vector<double>(3, (world - 1) * 10.0));
    for (int r = 0; r < world; ++r)
      EXPECT_EQ(gathered[static_cast<std::size_t>(r)].to_vector<double>(),
                std::vector<double>(2, r));
    EXPECT_TRUE(dist::Work().is_completed());
  }
}

TEST(AsyncCollectives, ErrorsComeFromWait) {
  const int me = dist::rank(), world = dist::world_size();
  if (world > 1) {
    Tensor t = full({me == 0 ? 2 : 3}, 1.0);
    dist::Work w = dist::all_reduce(t, dist::ReduceOp::sum, dist::async_op);
    for (int i = 0; i < 2; ++i) {  // the same error both times
      try {
        w.wait();
        ADD_FAILURE() << "shapes [2] and [3] were reduced together";
      } catch (const dist::DistributedError& e) {
        EXPECT_NE(std::string(e.what()).find("disagree"), std::string::npos) << e.what();
      }
    }
  }
  // Local errors are thrown at the call, before anything is launched.
  Tensor ints = full({2}, 1.0, DType::int64);
  EXPECT_THROW(dist::all_reduce(ints, dist::ReduceOp::avg, dist::async_op), DTypeError);
  // Destroyed before the wait: the Work says so.
  Tensor x = full({2}, 1.0);
  dist::Work pending = dist::all_reduce(x, dist::ReduceOp::sum, dist::async_op);
  dist::destroy_process_group();
  EXPECT_THROW(pending.wait(), dist::DistributedError);
  dist::init_process_group();
  dist::barrier();
}
