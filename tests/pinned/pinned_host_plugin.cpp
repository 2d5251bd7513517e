// SPDX-License-Identifier: Apache-2.0
// libhetero-pinnedhost.so: a test backend whose one device does nothing but provide
// "pinned" host memory (ordinary aligned host memory here), as the cuda plugin provides
// page-locked memory. It lets the core's pinned paths (Tensor::pin_memory,
// TensorOptions::pinned_memory, the plugin that owns the memory of a cpu tensor) run in
// CI, which has no GPU. memory_stats(0).allocated is the bytes of its live pinned buffers,
// so that the tests can see every buffer returned.
#include <atomic>
#include <new>

#include "../bad_plugins/minimal_backend.hpp"

namespace hetero::test {
namespace {

constexpr std::align_val_t kAlignment{64};

std::atomic<std::size_t> g_live_bytes{0};

class HostBuffer final : public Buffer {
 public:
  explicit HostBuffer(std::size_t bytes) : bytes_(bytes), data_(::operator new(bytes, kAlignment)) {
    g_live_bytes += bytes_;
  }
  ~HostBuffer() override {
    ::operator delete(data_, kAlignment);
    g_live_bytes -= bytes_;
  }
  std::size_t size() const noexcept override { return bytes_; }
  int device() const noexcept override { return 0; }
  void* handle() const noexcept override { return data_; }
  void* host_pointer() const noexcept override { return data_; }

 private:
  std::size_t bytes_;
  void* data_;
};

class PinnedHostBackend final : public MinimalBackend {
 public:
  PinnedHostBackend() : MinimalBackend("pinnedhost", "test pinned host memory") {}
  Capabilities capabilities(int) const override {
    Capabilities c;
    c.pinned_memory = true;
    return c;
  }
  MemoryStats memory_stats(int) const override {
    MemoryStats s;
    s.allocated = s.reserved = g_live_bytes.load();
    return s;
  }
  std::unique_ptr<Buffer> allocate_pinned_host(std::size_t bytes) override {
    return std::make_unique<HostBuffer>(bytes);
  }
};

}  // namespace
}  // namespace hetero::test

HETERO_TEST_PLUGIN_INFO("pinnedhost")
HETERO_PLUGIN_EXPORT hetero::Backend* hetero_plugin_create() {
  return new hetero::test::PinnedHostBackend;
}
