// SPDX-License-Identifier: Apache-2.0
// from_blob: a Storage whose Buffer is foreign memory (ForeignBuffer), run by the cpu
// plugin as any host buffer (its kernels read Buffer::handle()).
#include <memory>
#include <string>
#include <utility>

#include <hetero/error.hpp>
#include <hetero/interop.hpp>

#include "backend_calls.hpp"
#include "op_helpers.hpp"
#include "plugin_library.hpp"
#include "registry.hpp"
#include "storage.hpp"

namespace hetero {
namespace {

// Host memory hetero does not own, for a cpu plugin that does not adopt memory (interface
// minor < 7, or adopt() declines): the deleter (if any) runs when the storage goes, once the work
// queued on the device's stream is done (issue #44: it ran while a queued kernel still read the
// memory).
class ForeignBuffer final : public Buffer {
 public:
  ForeignBuffer(void* data, std::size_t bytes, BlobDeleter deleter)
      : data_(data), bytes_(bytes), deleter_(std::move(deleter)) {}
  ~ForeignBuffer() override {
    if (stream_ != nullptr) {
      try {
        stream_->synchronize();
      } catch (...) {  // a failed kernel: its error surfaces at the caller's next wait
      }
    }
    if (deleter_) deleter_(data_);
  }
  // The stream whose work is waited for before the deleter runs (the storage's; set once
  // the storage exists, which keeps its plugin, and so the stream, alive past this buffer).
  void set_stream(Stream* s) noexcept { stream_ = s; }
  std::size_t size() const noexcept override { return bytes_; }
  int device() const noexcept override { return 0; }
  void* handle() const noexcept override { return data_; }
  void* host_pointer() const noexcept override { return data_; }

 private:
  void* data_;
  std::size_t bytes_;
  BlobDeleter deleter_;
  Stream* stream_ = nullptr;
};

}  // namespace

Tensor from_blob(void* data, const Shape& shape, const std::vector<std::int64_t>& strides_in,
                 DType dtype, const Device& device, BlobDeleter deleter) {
  const std::int64_t numel = detail::checked_numel(shape);
  std::vector<std::int64_t> strides =
      strides_in.empty() ? detail::contiguous_strides(shape) : strides_in;
  if (strides.size() != shape.size())
    throw ValueError("from_blob: " + std::to_string(strides.size()) + " strides for shape " +
                     detail::shape_str(shape));
  // The elements span [0, extent): the last one's offset plus one, in bytes below 2^63
  // (issue #44: an extent that overflowed int64 wrapped reads to the first element).
  std::int64_t extent = numel == 0 ? 0 : 1;
  const auto esize = static_cast<std::int64_t>(element_size(dtype));
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (strides[d] < 0)
      throw ValueError("from_blob: stride " + std::to_string(strides[d]) + " of dimension " +
                       std::to_string(d) + " is negative (hetero has no negative strides)");
    std::int64_t span = 0;
    if (numel > 0 && (__builtin_mul_overflow(shape[d] - 1, strides[d], &span) ||
                      __builtin_add_overflow(extent, span, &extent)))
      extent = -1;
    std::int64_t bytes_spanned = 0;
    if (extent < 0 || __builtin_mul_overflow(extent, esize, &bytes_spanned))
      throw ValueError("from_blob: shape " + detail::shape_str(shape) + " with strides " +
                       detail::shape_str(strides) +
                       " spans more than 2^63 bytes (the offsets overflow int64)");
  }
  if (data == nullptr && numel > 0) throw ValueError("from_blob: data is null");
  const std::size_t bytes = static_cast<std::size_t>(extent) * element_size(dtype);
  auto plugin = detail::plugin_for(device);  // may throw: before the buffer owns the deleter
  std::unique_ptr<Buffer> buffer;
  ForeignBuffer* foreign = nullptr;
  if (device.is_cpu()) {
    // The cpu plugin adopts it where it can (minor 7): its buffer waits for the work queued
    // on the memory before the deleter runs, as hetero's own buffers are released in stream
    // order. Otherwise a ForeignBuffer that synchronises the stream first. The deleter is
    // shared so that it survives an adopt() that declines (and then calls nothing).
    auto shared = std::make_shared<BlobDeleter>(std::move(deleter));
    buffer = detail::calls::adopt(*plugin, device.index(), data, bytes, [data, shared] {
      if (*shared) (*shared)(data);
    });
    if (!buffer) {
      auto own = std::make_unique<ForeignBuffer>(data, bytes, [shared](void* p) {
        if (*shared) (*shared)(p);
      });
      foreign = own.get();
      buffer = std::move(own);
    }
  } else {
    // Device memory: only its backend can run kernels on it (Backend::adopt, minor 7).
    const std::string who = "backend '" + plugin->status.name + "' (plugin interface " +
                            plugin->status.interface_version + ")";
    if (!plugin->has(OptionalCapability::adopt))
      throw NotImplementedError("from_blob: memory of " + device.str() + ": " + who +
                                " predates Backend::adopt (3." +
                                std::to_string(capability_since(OptionalCapability::adopt)) +
                                "), which imports foreign memory");
    auto release = [data, d = std::move(deleter)]() {
      if (d) d(data);
    };
    buffer = detail::calls::adopt(*plugin, device.index(), data, bytes, std::move(release));
    if (!buffer)
      throw NotImplementedError("from_blob: memory of " + device.str() + ": " + who +
                                " does not adopt memory it did not allocate");
  }
  auto storage = std::make_shared<detail::Storage>(std::move(plugin), std::move(buffer), device);
  if (foreign != nullptr) foreign->set_stream(&storage->stream());
  const Tensor flat = detail::contiguous_tensor(std::move(storage), {extent}, dtype);
  return detail::strided_view(flat, shape, std::move(strides), 0);
}

Tensor from_blob(void* data, const Shape& shape, DType dtype, const Device& device,
                 BlobDeleter deleter) {
  return from_blob(data, shape, {}, dtype, device, std::move(deleter));
}

}  // namespace hetero
