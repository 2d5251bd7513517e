// SPDX-License-Identifier: Apache-2.0
#pragma once
// CudaBuffer (device memory from a device's CudaCachingAllocator) and PinnedHostBuffer
// (page-locked host memory from the backend's pinned pool). Destruction returns the block
// to its pool, fenced against every stream other than the device's own that used it.
#include <functional>
#include <mutex>
#include <vector>

#include <hetero/sdk/buffer.hpp>

#include "cuda_caching_allocator.hpp"

namespace hetero::cuda {

class CudaBuffer final : public Buffer {
 public:
  CudaBuffer(CudaCachingAllocator& pool, CudaCachingAllocator::Block block, std::size_t bytes,
             int device)
      : pool_(&pool), block_(block), bytes_(bytes), device_(device) {}
  /// Device memory another library owns (Backend::adopt): no pool; destruction waits for
  /// the device's work (cudaDeviceSynchronize), then calls `release`.
  CudaBuffer(void* ptr, std::size_t bytes, int device, std::function<void()> release)
      : block_{ptr, bytes}, bytes_(bytes), device_(device), release_(std::move(release)) {}
  ~CudaBuffer() override;

  std::size_t size() const noexcept override { return bytes_; }
  int device() const noexcept override { return device_; }
  void* handle() const noexcept override { return block_.ptr; }
  /// Records that work on `s` (a stream of another device) reads or writes this buffer,
  /// as c10::cuda::CUDACachingAllocator::recordStream. Thread-safe.
  void record_stream(StreamRef s) const {
    std::lock_guard lock(mutex_);
    for (const auto& r : foreign_streams_)
      if (r.stream == s.stream) return;
    foreign_streams_.push_back(s);
  }

 private:
  CudaCachingAllocator* pool_ = nullptr;  // null: adopted memory
  CudaCachingAllocator::Block block_;
  std::size_t bytes_;
  int device_;
  std::function<void()> release_;  // adopted memory: the owner's deleter
  mutable std::mutex mutex_;
  mutable std::vector<StreamRef> foreign_streams_;
};

class PinnedHostBuffer final : public Buffer {
 public:
  /// `streams`: every device stream that may copy from or to the buffer; all are fenced
  /// when it is freed.
  PinnedHostBuffer(CudaCachingAllocator& pool, CudaCachingAllocator::Block block, std::size_t bytes,
                   std::vector<StreamRef> streams)
      : pool_(pool), block_(block), bytes_(bytes), streams_(std::move(streams)) {}
  ~PinnedHostBuffer() override { pool_.free(block_, streams_); }

  std::size_t size() const noexcept override { return bytes_; }
  int device() const noexcept override { return 0; }
  void* handle() const noexcept override { return block_.ptr; }
  void* host_pointer() const noexcept override { return block_.ptr; }

 private:
  CudaCachingAllocator& pool_;
  CudaCachingAllocator::Block block_;
  std::size_t bytes_;
  std::vector<StreamRef> streams_;
};

}  // namespace hetero::cuda
