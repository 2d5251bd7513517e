// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file distributed/distributed_data_parallel.hpp
/// DistributedDataParallel: data-parallel training with the gradient reduction overlapped
/// with backward(), as torch.nn.parallel.DistributedDataParallel. Each trainable parameter
/// gets a post-accumulate-grad hook (hooks.hpp); when every gradient of a bucket is ready,
/// the bucket's all_reduce (sum of gradients times 1 / world, or avg for 16-bit dtypes:
/// all_reduce_gradients) is launched asynchronously (work.hpp) while backward goes on
/// computing earlier layers' gradients. wait() before the optimiser step completes it.
///
///   dist::DistributedDataParallel ddp(net);      // broadcasts rank 0's parameters
///   for (batch of this rank's shard) {
///     loss = criterion(net(x), y); sgd.zero_grad();
///     loss.backward();                           // buckets are reduced meanwhile
///     ddp.wait();                                // every gradient is the mean now
///     sgd.step();
///   }
///
/// Buckets follow reverse parameter order (Note [Gradient buckets],
/// distributed/src/gradient_reducer.hpp), of at most `bucket_bytes` each, and are launched
/// in order on every rank. Frozen parameters (requires_grad false) and non-floating ones
/// take no part; a parameter without a gradient on any rank keeps none, one without a
/// gradient on this rank only receives the mean, as all_reduce_gradients. Results are
/// those of all_reduce_gradients, bit for bit. Where the process's compute already takes
/// every core of the host (cpu devices, several processes per machine), the buckets start in
/// wait() instead (DataParallelOptions::overlap).
#include <cstddef>
#include <memory>

#include <hetero/distributed/data_parallel.hpp>
#include <hetero/export.hpp>
#include <hetero/nn/module.hpp>

namespace hetero::distributed {

/// When DistributedDataParallel starts a bucket's all_reduce (Note [When buckets start],
/// distributed/src/distributed_data_parallel.cpp). Every choice gives the same gradients, bit
/// for bit; only the time differs.
enum class Overlap {
  /// always where the communication thread has a core of its own, else never: for a
  /// bucket on a device of kind cpu, when local_world_size() x (the device's kernel
  /// threads, DeviceProperties::multiprocessor_count, + 1) <= the cores this process may
  /// run on (its affinity mask);
  /// accelerators' buckets always (their kernels leave the host's cores free).
  automatic,
  /// As soon as a bucket's gradients are all ready, while backward() goes on (torch's DDP).
  always,
  /// In wait(), after backward(), back to back (all_reduce_gradients's timing): where the
  /// compute already takes every core, a collective during backward() only takes cores
  /// from it (a 3-bucket MLP step on 2 cores and 2 processes took 1.17-1.28x the time of the
  /// same buckets reduced after backward).
  never,
};

/// How DistributedDataParallel buckets and starts.
struct DataParallelOptions {
  /// Upper bound of a bucket's gradient bytes, as DDP's bucket_cap_mb (25 MiB).
  std::size_t bucket_bytes = default_bucket_bytes;
  /// The rank whose parameters and buffers every replica starts from (broadcast_parameters).
  int root = 0;
  /// When buckets start: during backward() or in wait() (Overlap).
  Overlap overlap = Overlap::automatic;
};

/// Data parallelism over the process group with overlapped gradient reduction (see the
/// file comment). Not copyable; `module` must outlive it and keep its parameters (the
/// hooks are on those tensors). Call its methods, backward() included, from the thread
/// that calls the group's collectives.
class HETERO_API DistributedDataParallel {
 public:
  /// Broadcasts rank options.root's parameters and buffers to every rank
  /// (broadcast_parameters) and registers the gradient hooks. DistributedError without a
  /// process group or when the ranks' modules differ.
  explicit DistributedDataParallel(nn::Module& module, const DataParallelOptions& options = {});
  /// Removes the hooks; collectives still in flight complete in order. Never throws.
  ~DistributedDataParallel();
  DistributedDataParallel(const DistributedDataParallel&) = delete;
  DistributedDataParallel& operator=(const DistributedDataParallel&) = delete;

  /// The wrapped module (run it directly: `ddp.module().forward(x)` or the module itself).
  nn::Module& module() noexcept;

  /// Completes the reduction of the gradients of the backward() passes since the last
  /// wait(): launches the buckets backward did not (parameters unused on this rank), waits
  /// for all, and makes each parameter's grad() the mean, a view of its bucket (as torch's
  /// gradient_as_bucket_view=True; each step fills new buckets). Call it once per step on
  /// every rank, after backward() and before the optimiser step (torch does this at the
  /// end of backward). Inside no_sync() it does nothing. DistributedError as all_reduce.
  void wait();

  /// While a NoSync lives, backward() only accumulates this rank's gradients (no
  /// communication), as DDP.no_sync(): for gradient accumulation. The first backward()
  /// after it reduces the accumulated gradients. Must not outlive its
  /// DistributedDataParallel. Nests.
  class HETERO_API NoSync {
   public:
    ~NoSync();
    NoSync(const NoSync&) = delete;
    NoSync& operator=(const NoSync&) = delete;

   private:
    friend class DistributedDataParallel;
    explicit NoSync(int* depth) noexcept;
    int* depth_;
  };
  /// A NoSync guard (see there).
  [[nodiscard]] NoSync no_sync();

  /// How many buckets the gradients are reduced in (all_reduce calls per step).
  std::size_t bucket_count() const noexcept;

  /// Whether buckets start during backward() (options.overlap, with Overlap::automatic
  /// decided at construction) or in wait().
  bool overlaps() const noexcept;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace hetero::distributed
