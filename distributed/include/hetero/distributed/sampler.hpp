// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file distributed/sampler.hpp
/// hetero::distributed::DistributedSampler — which samples of a data set each rank
/// trains on, as torch.utils.data.distributed.DistributedSampler.
#include <cstdint>
#include <vector>

#include <hetero/export.hpp>

namespace hetero::distributed {

/// Shards the indices 0..size-1 over `num_replicas` ranks: each epoch's order (shuffled
/// with seed + epoch, the same on every rank, or 0..size-1 when not shuffled) is padded
/// by repeating its first indices to a multiple of num_replicas (or cut to one with
/// drop_last) and rank r takes elements r, r + num_replicas, ... . Every rank gets
/// num_samples() indices, so every rank runs the same number of steps. Value type; the
/// order depends only on the arguments (std::mt19937_64 and a Fisher-Yates shuffle).
class HETERO_API DistributedSampler {
 public:
  /// IndexError unless 0 <= rank < num_replicas; Error for size < 0.
  DistributedSampler(std::int64_t size, int num_replicas, int rank, bool shuffle = true,
                     std::uint64_t seed = 0, bool drop_last = false);
  /// A sampler for this rank of the current process group (world_size() replicas,
  /// rank()); DistributedError without a group.
  static DistributedSampler for_group(std::int64_t size, bool shuffle = true,
                                      std::uint64_t seed = 0, bool drop_last = false);

  /// Selects the epoch's order, as DistributedSampler.set_epoch: call before each epoch.
  void set_epoch(std::int64_t epoch) noexcept { epoch_ = epoch; }
  /// This rank's indices for the current epoch (num_samples() of them).
  std::vector<std::int64_t> indices() const;
  /// Indices per rank: ceil(size / num_replicas), or floor with drop_last.
  std::int64_t num_samples() const noexcept { return num_samples_; }

 private:
  std::int64_t size_;
  int num_replicas_, rank_;
  bool shuffle_;
  std::uint64_t seed_;
  std::int64_t epoch_ = 0;
  std::int64_t num_samples_;
};

}  // namespace hetero::distributed
