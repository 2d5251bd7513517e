#pragma once
// CpuBuffer: 64-byte aligned host memory; counts itself in its device's statistics.
#include <atomic>
#include <cstdint>
#include <memory>

#include <hetero/sdk/buffer.hpp>
#include <hetero/sdk/device_properties.hpp>

namespace hetero::cpu {

/// Live allocation statistics of one virtual CPU device (thread-safe counters).
struct DeviceCounters {
  std::atomic<std::size_t> allocated{0};
  std::atomic<std::size_t> peak{0};
  std::atomic<std::uint64_t> count{0};

  void add(std::size_t bytes);
  void remove(std::size_t bytes) { allocated -= bytes; }
  MemoryStats snapshot() const;
};

class CpuBuffer final : public Buffer {
 public:
  /// Takes ownership of `data` (from std::aligned_alloc/posix_memalign).
  CpuBuffer(void* data, std::size_t bytes, int device, std::shared_ptr<DeviceCounters> counters);
  ~CpuBuffer() override;
  std::size_t size() const noexcept override { return bytes_; }
  int device() const noexcept override { return device_; }
  void* handle() const noexcept override { return data_; }
  void* host_pointer() const noexcept override { return data_; }

 private:
  void* data_;
  std::size_t bytes_;
  int device_;
  std::shared_ptr<DeviceCounters> counters_;
};

}  // namespace hetero::cpu
