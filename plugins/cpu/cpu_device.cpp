// SPDX-License-Identifier: Apache-2.0
#include "cpu_device.hpp"

namespace hetero::cpu {

CpuDevice::CpuDevice(int index, int threads, std::int64_t inline_limit, bool pooling,
                     std::size_t cache_limit)
    : index_(index),
      host_(pooling),
      pool_(std::make_unique<ThreadPool>(threads)),
      queue_(pool_.get(), inline_limit),
      memory_(CachingAllocator::RawMemory{
                  [this](std::size_t bytes) { return host_.allocate(bytes); },
                  [this](void* ptr, std::size_t bytes) { release(ptr, bytes); }},
              pooling, cache_limit),
      stream_(*this) {}

void CpuDevice::release(void* ptr, std::size_t bytes) noexcept {
  queued_release_bytes_ += bytes;
  run_in_order([this, ptr, bytes] {
    host_.release(ptr, bytes);
    queued_release_bytes_ -= bytes;
  });
  if (queued_release_bytes_.load() <= kReleaseBacklog || WorkQueue::running_work()) return;
  try {
    queue_.wait(queue_.last_ticket());
  } catch (...) {
    // A failure of earlier work stays for the next synchronize (WorkQueue::wait).
  }
}

MemoryStats CpuDevice::memory_stats() const {
  MemoryStats s = memory_.stats();
  s.reserved += queued_release_bytes_.load();
  return s;
}

}  // namespace hetero::cpu
