// SPDX-License-Identifier: Apache-2.0
#include <hetero/distributed/sampler.hpp>

#include <fmt/format.h>

#include <numeric>
#include <random>

#include <hetero/distributed/process_group.hpp>
#include <hetero/error.hpp>

namespace hetero::distributed {

DistributedSampler::DistributedSampler(std::int64_t size, int num_replicas, int rank, bool shuffle,
                                       std::uint64_t seed, bool drop_last)
    : size_(size), num_replicas_(num_replicas), rank_(rank), shuffle_(shuffle), seed_(seed) {
  if (size < 0)
    throw Error(fmt::format("DistributedSampler: the data set size {} is negative", size));
  if (num_replicas <= 0 || rank < 0 || rank >= num_replicas)
    throw IndexError(
        fmt::format("DistributedSampler: rank {} is not in [0, {})", rank, num_replicas));
  num_samples_ = drop_last ? size / num_replicas : (size + num_replicas - 1) / num_replicas;
}

DistributedSampler DistributedSampler::for_group(std::int64_t size, bool shuffle,
                                                 std::uint64_t seed, bool drop_last) {
  return DistributedSampler(size, world_size(), rank(), shuffle, seed, drop_last);
}

std::vector<std::int64_t> DistributedSampler::indices() const {
  std::vector<std::int64_t> order(static_cast<std::size_t>(size_));
  std::iota(order.begin(), order.end(), std::int64_t{0});
  if (shuffle_) {
    // Fisher-Yates with a fixed engine (std::shuffle's algorithm is unspecified).
    std::mt19937_64 engine(seed_ + static_cast<std::uint64_t>(epoch_));
    for (std::size_t i = order.size(); i > 1; --i) {
      const auto j = static_cast<std::size_t>(engine() % i);
      std::swap(order[i - 1], order[j]);
    }
  }
  const std::int64_t total = num_samples_ * num_replicas_;
  std::vector<std::int64_t> mine;
  mine.reserve(static_cast<std::size_t>(num_samples_));
  for (std::int64_t i = rank_; i < total; i += num_replicas_)
    mine.push_back(
        order[static_cast<std::size_t>(i % size_)]);  // past the end: wrap around (padding)
  return mine;
}

}  // namespace hetero::distributed
