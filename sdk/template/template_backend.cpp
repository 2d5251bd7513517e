// SPDX-License-Identifier: Apache-2.0
// Devices, memory, streams and copies of the template backend.
#include "template_backend.hpp"

#include <unistd.h>

#include <cstring>
#include <new>

namespace hetero::template_backend {
namespace {

/// An event of a stream whose work is always done.
class DoneEvent final : public Event {
 public:
  void synchronize() override {}
  bool query() override { return true; }
};

std::size_t host_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page)
                               : 0;
}

}  // namespace

TemplateBuffer::TemplateBuffer(std::size_t bytes, MemoryCounter& memory)
    : bytes_(bytes), data_(new unsigned char[bytes]), memory_(memory) {
  memory_.allocated(bytes_);
}

TemplateBuffer::~TemplateBuffer() { memory_.released(bytes_); }

std::unique_ptr<Event> TemplateStream::record() { return std::make_unique<DoneEvent>(); }

DeviceProperties TemplateBackend::device_properties(int) const {
  DeviceProperties p;
  p.name = "template device (host memory)";  // never empty: the loader refuses that
  p.kind = DeviceKind::accelerator;  // say truthfully what it is; gpu makes try_gpu() pick it
  p.total_memory = host_memory_bytes();
  const std::size_t live = memory_.stats().allocated;
  p.free_memory = p.total_memory > live ? p.total_memory - live : 0;
  p.multiprocessor_count = 1;
  return p;
}

Capabilities TemplateBackend::capabilities(int) const {
  Capabilities c;
  c.async_copy = false;  // copies finish before returning
  c.events = true;
  return c;
}

MemoryStats TemplateBackend::memory_stats(int) const { return memory_.stats(); }

std::unique_ptr<Buffer> TemplateBackend::allocate(int, std::size_t bytes) {
  // The contract: OutOfMemoryError naming the device, the requested and the free bytes.
  auto oom = [&] {
    return OutOfMemoryError(name() + ":0: cannot allocate " + std::to_string(bytes) +
                            " bytes (free " + std::to_string(device_properties(0).free_memory) +
                            " bytes)");
  };
  // More than the device has: refuse before asking the allocator (which may abort on an
  // impossible size, as AddressSanitizer's does, instead of throwing std::bad_alloc).
  if (bytes > device_properties(0).total_memory) throw oom();
  std::unique_ptr<Buffer> buffer;
  try {
    buffer = std::make_unique<TemplateBuffer>(bytes, memory_);
  } catch (const std::bad_alloc&) {
    throw oom();
  }
  return buffer;
}

void TemplateBackend::copy_host_to_device(const void* src, Buffer& dst, std::size_t dst_offset,
                                          std::size_t bytes, Stream&) {
  if (bytes) std::memcpy(static_cast<unsigned char*>(dst.handle()) + dst_offset, src, bytes);
}

void TemplateBackend::copy_device_to_host(const Buffer& src, std::size_t src_offset, void* dst,
                                          std::size_t bytes, Stream&) {
  if (bytes) std::memcpy(dst, static_cast<const unsigned char*>(src.handle()) + src_offset, bytes);
}

void TemplateBackend::copy_device_to_device(const Buffer& src, std::size_t src_offset, Buffer& dst,
                                            std::size_t dst_offset, std::size_t bytes, Stream&) {
  if (bytes)
    std::memmove(static_cast<unsigned char*>(dst.handle()) + dst_offset,
                 static_cast<const unsigned char*>(src.handle()) + src_offset, bytes);
}

}  // namespace hetero::template_backend
