// SPDX-License-Identifier: Apache-2.0
// from_blob: a Storage whose Buffer is foreign memory (ForeignBuffer), run by the cpu
// plugin as any host buffer (its kernels read Buffer::handle()).
#include <string>
#include <utility>

#include <hetero/error.hpp>
#include <hetero/interop.hpp>

#include "op_helpers.hpp"
#include "plugin_library.hpp"
#include "registry.hpp"
#include "storage.hpp"

namespace hetero {
namespace {

// Host memory hetero does not own: the deleter (if any) runs when the storage goes.
class ForeignBuffer final : public Buffer {
 public:
  ForeignBuffer(void* data, std::size_t bytes, BlobDeleter deleter)
      : data_(data), bytes_(bytes), deleter_(std::move(deleter)) {}
  ~ForeignBuffer() override {
    if (deleter_) deleter_(data_);
  }
  std::size_t size() const noexcept override { return bytes_; }
  int device() const noexcept override { return 0; }
  void* handle() const noexcept override { return data_; }
  void* host_pointer() const noexcept override { return data_; }

 private:
  void* data_;
  std::size_t bytes_;
  BlobDeleter deleter_;
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
  // The elements span [0, extent): the last one's offset plus one.
  std::int64_t extent = numel == 0 ? 0 : 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (strides[d] < 0)
      throw ValueError("from_blob: stride " + std::to_string(strides[d]) + " of dimension " +
                       std::to_string(d) + " is negative (hetero has no negative strides)");
    if (numel > 0) extent += (shape[d] - 1) * strides[d];
  }
  if (data == nullptr && numel > 0) throw ValueError("from_blob: data is null");
  const std::size_t bytes = static_cast<std::size_t>(extent) * element_size(dtype);
  auto plugin = detail::plugin_for(device);  // may throw: before the buffer owns the deleter
  std::unique_ptr<Buffer> buffer;
  if (device.is_cpu()) {
    buffer = std::make_unique<ForeignBuffer>(data, bytes, std::move(deleter));
  } else {
    // Device memory: only its backend can run kernels on it (Backend::adopt, minor 7).
    const std::string who = "backend '" + plugin->status.name + "' (plugin interface " +
                            plugin->status.interface_version + ")";
    if (plugin->interface_minor < 7)
      throw NotImplementedError("from_blob: memory of " + device.str() + ": " + who +
                                " predates Backend::adopt (3.7), which imports foreign memory");
    auto release = [data, d = std::move(deleter)]() {
      if (d) d(data);
    };
    buffer = plugin->backend->adopt(device.index(), data, bytes, std::move(release));
    if (!buffer)
      throw NotImplementedError("from_blob: memory of " + device.str() + ": " + who +
                                " does not adopt memory it did not allocate");
  }
  auto storage = std::make_shared<detail::Storage>(std::move(plugin), std::move(buffer), device);
  const Tensor flat = detail::contiguous_tensor(std::move(storage), {extent}, dtype);
  return detail::strided_view(flat, shape, std::move(strides), 0);
}

Tensor from_blob(void* data, const Shape& shape, DType dtype, const Device& device,
                 BlobDeleter deleter) {
  return from_blob(data, shape, {}, dtype, device, std::move(deleter));
}

}  // namespace hetero
