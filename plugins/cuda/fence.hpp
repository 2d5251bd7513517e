// SPDX-License-Identifier: Apache-2.0
#pragma once
// Fence: events recorded on a set of CUDA streams, to know when the work queued on them
// so far has completed (the caching allocators' guard before reusing a block).
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

namespace hetero::cuda {

/// A stream and the device it belongs to.
struct StreamRef {
  int device = 0;
  cudaStream_t stream = nullptr;
};

class Fence {
 public:
  Fence() = default;
  /// Records one event on each stream. Never throws: a stream on which no event can be
  /// recorded is synchronised instead (slower, still correct).
  static Fence record(const std::vector<StreamRef>& streams) noexcept;
  ~Fence();
  Fence(Fence&& other) noexcept : events_(std::exchange(other.events_, {})) {}
  Fence& operator=(Fence&& other) noexcept;
  Fence(const Fence&) = delete;
  Fence& operator=(const Fence&) = delete;

  bool empty() const noexcept { return events_.empty(); }
  /// True when every recorded event has completed (or its stream failed). Never blocks.
  bool done() noexcept;
  /// Blocks until done().
  void wait() noexcept;

 private:
  void destroy() noexcept;
  std::vector<std::pair<int, cudaEvent_t>> events_;  // (device, event)
};

}  // namespace hetero::cuda
