// SPDX-License-Identifier: Apache-2.0
// libhetero-partial.so: a partial backend, as a vendor's first port would be: host memory,
// work run when queued, and only three kernels: fill, cast (so copies) and add.
// Backend::supports says so, the core raises NotImplementedError for every other op, and
// the conformance kit lists the rest as unsupported (tests/CMakeLists.txt runs it).
#include <cstring>
#include <memory>

#include <hetero/internal_assert.hpp>

#include <hetero/sdk/dtype_dispatch.hpp>
#include <hetero/sdk/element_conversion.hpp>
#include <hetero/sdk/elementwise_ops.hpp>
#include <hetero/sdk/memory_counter.hpp>

#include "../bad_plugins/minimal_backend.hpp"

namespace hetero::test {
namespace {

class HostBuffer final : public Buffer {
 public:
  HostBuffer(std::size_t bytes, MemoryCounter& memory)
      : bytes_(bytes), data_(new unsigned char[bytes]), memory_(memory) {
    memory_.allocated(bytes_);
  }
  ~HostBuffer() override { memory_.released(bytes_); }
  std::size_t size() const noexcept override { return bytes_; }
  int device() const noexcept override { return 0; }
  void* handle() const noexcept override { return data_.get(); }
  void* host_pointer() const noexcept override { return data_.get(); }

 private:
  std::size_t bytes_;
  std::unique_ptr<unsigned char[]> data_;
  MemoryCounter& memory_;
};

class NowStream final : public Stream {
 public:
  int device() const noexcept override { return 0; }
  void synchronize() override {}
  std::unique_ptr<Event> record() override {
    struct Done final : Event {
      bool query() override { return true; }
      void synchronize() override {}
    };
    return std::make_unique<Done>();
  }
  void wait(Event&) override {}
};

class PartialBackend final : public MinimalBackend {
 public:
  PartialBackend() : MinimalBackend(HETERO_PLUGIN_NAME, "partial test device") {}

  bool supports(OpRef op, DType dtype, int device) const override {
    const bool mine =
        op.family == OpFamily::fill || op.family == OpFamily::cast || op == OpRef(BinaryOp::add);
    return mine && Backend::supports(op, dtype, device);
  }
  DeviceProperties device_properties(int) const override {
    DeviceProperties p;
    p.name = "partial test device";
    p.total_memory = p.free_memory = kMemory;
    return p;
  }
  Capabilities capabilities(int) const override {
    Capabilities c;
    c.max_allocation = kMemory;
    return c;
  }
  MemoryStats memory_stats(int) const override { return memory_.stats(); }
  std::unique_ptr<Buffer> allocate(int, std::size_t bytes) override {
    if (bytes > kMemory)
      throw OutOfMemoryError("partial:0: cannot allocate " + std::to_string(bytes) +
                             " bytes; the device has " + std::to_string(kMemory));
    return std::make_unique<HostBuffer>(bytes, memory_);
  }
  Stream& default_stream(int) override { return stream_; }
  void copy_host_to_device(const void* src, Buffer& dst, std::size_t offset, std::size_t bytes,
                           Stream&) override {
    std::memcpy(static_cast<char*>(dst.handle()) + offset, src, bytes);
  }
  void copy_device_to_host(const Buffer& src, std::size_t offset, void* dst, std::size_t bytes,
                           Stream&) override {
    std::memcpy(dst, static_cast<const char*>(src.handle()) + offset, bytes);
  }
  void copy_device_to_device(const Buffer& src, std::size_t src_offset, Buffer& dst,
                             std::size_t dst_offset, std::size_t bytes, Stream&) override {
    std::memmove(static_cast<char*>(dst.handle()) + dst_offset,
                 static_cast<const char*>(src.handle()) + src_offset, bytes);
  }
  void fill(const StridedView& out, Scalar value, Stream&) override {
    dispatch_dtype(out.dtype, [&](auto tag) {
      using T = decltype(tag);
      for (std::int64_t i = 0; i < out.numel(); ++i)
        data_of<T>(out)[out.element_offset(i)] = scalar_as<T>(value);
    });
  }
  void cast(const StridedView& src, const StridedView& dst, Stream&) override {
    dispatch_dtype(src.dtype, [&](auto s) {
      dispatch_dtype(dst.dtype, [&](auto d) {
        using S = decltype(s);
        using D = decltype(d);
        for (std::int64_t i = 0; i < dst.numel(); ++i)
          data_of<D>(dst)[dst.element_offset(i)] =
              convert_element<D>(data_of<S>(src)[src.element_offset(i)]);
      });
    });
  }
  void binary(BinaryOp op, const StridedView& a, const StridedView& b, const StridedView& out,
              Stream&) override {
    HETERO_INTERNAL_ASSERT(op == BinaryOp::add,
                           "partial backend: binary " + std::string(op_name(op)));
    dispatch_dtype(out.dtype, [&](auto tag) {
      using T = decltype(tag);
      for (std::int64_t i = 0; i < out.numel(); ++i)
        data_of<T>(out)[out.element_offset(i)] = binary_element<BinaryOp::add>(
            data_of<T>(a)[a.element_offset(i)], data_of<T>(b)[b.element_offset(i)]);
    });
  }

 private:
  static constexpr std::size_t kMemory = std::size_t{1} << 30;  // what the device offers
  mutable MemoryCounter memory_;
  NowStream stream_;
};

}  // namespace
}  // namespace hetero::test

HETERO_PLUGIN(hetero::test::PartialBackend, HETERO_PLUGIN_NAME, HETERO_PLUGIN_VERSION,
              std::string("no vendor library (test)"))
