#pragma once
// CpuBuffer: 64-byte aligned host memory; counts itself in its device's statistics.
#include <atomic>
#include <cstdint>
#include <memory>

#include <hetero/sdk/buffer.hpp>
#include <hetero/sdk/memory_counter.hpp>

namespace hetero::cpu {

class CpuBuffer final : public Buffer {
 public:
  /// Takes ownership of `data` (from std::aligned_alloc/posix_memalign).
  CpuBuffer(void* data, std::size_t bytes, int device, std::shared_ptr<MemoryCounter> counters);
  ~CpuBuffer() override;
  std::size_t size() const noexcept override { return bytes_; }
  int device() const noexcept override { return device_; }
  void* handle() const noexcept override { return data_; }
  void* host_pointer() const noexcept override { return data_; }

 private:
  void* data_;
  std::size_t bytes_;
  int device_;
  std::shared_ptr<MemoryCounter> counters_;
};

}  // namespace hetero::cpu
