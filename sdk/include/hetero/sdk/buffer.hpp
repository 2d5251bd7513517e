// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file buffer.hpp
/// hetero::Buffer — a block of memory on one device, owned by the backend that made it.
#include <cstddef>

namespace hetero {

/// Device memory allocated by Backend::allocate. The Buffer owns the memory: its
/// destructor returns it to the backend (it must not block on queued work that uses it
/// beyond what the backend's allocator needs). Not copyable. Methods are const and
/// thread-safe. Note [Plugin lifetime]: the core keeps the plugin library loaded until
/// every Buffer it created is destroyed (docs/design/plugin-lifetime.md).
class Buffer {
 public:
  virtual ~Buffer() = default;
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  /// Size in bytes, as requested from allocate().
  virtual std::size_t size() const noexcept = 0;
  /// Index of the device (within its backend) that holds the memory.
  virtual int device() const noexcept = 0;
  /// Backend-specific handle: a device pointer (CUDA), a cl_mem (OpenCL), a host pointer (CPU).
  virtual void* handle() const noexcept = 0;
  /// The memory as a host-addressable pointer, or nullptr when the host cannot address
  /// it directly. When non-null the core may read/write it after synchronising the
  /// device's stream (the host side of the copy ladder).
  virtual void* host_pointer() const noexcept { return nullptr; }
};

}  // namespace hetero
