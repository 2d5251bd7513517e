// SPDX-License-Identifier: Apache-2.0
// Pinned host memory (Tensor::pin_memory, factories given TensorOptions::pinned_memory):
// page-locked host memory from the first loaded backend that has a device and offers it
// (torch takes it from the CUDA host allocator), run as a cpu tensor.
#include <hetero/tensor.hpp>

#include <hetero/error.hpp>

#include "backend_calls.hpp"
#include "empty_buffer.hpp"
#include "op_helpers.hpp"
#include "registry.hpp"
#include "tensor_impl.hpp"

namespace hetero {
namespace {

std::shared_ptr<detail::LoadedPlugin> pinned_memory_provider() {
  for (auto& p : detail::Registry::instance().loaded())
    if (detail::calls::device_count(*p) > 0 && detail::calls::capabilities(*p, 0).pinned_memory)
      return p;
  throw DeviceUnavailableError(
      "pin_memory: no loaded backend with a device provides pinned host memory "
      "(see hetero::backend_status())");
}

}  // namespace

namespace detail {

Tensor new_pinned_tensor(Shape shape, DType dtype) {
  const std::size_t bytes = checked_bytes(shape, dtype);
  auto owner = pinned_memory_provider();
  // Note [Empty tensors]: the backend is never asked for 0 bytes.
  std::unique_ptr<Buffer> buffer = bytes == 0 ? std::make_unique<EmptyBuffer>(0)
                                              : detail::calls::allocate_pinned_host(*owner, bytes);
  auto storage =
      std::make_shared<Storage>(plugin_for(Device::cpu()), std::move(owner), std::move(buffer));
  return contiguous_tensor(std::move(storage), std::move(shape), dtype);
}

}  // namespace detail

bool Tensor::is_pinned() const { return defined() && impl()->storage->pinned; }

Tensor Tensor::pin_memory() const {
  const auto& src = *detail::impl_of(*this, "pin_memory").storage;
  if (!src.device.is_cpu())
    throw InvalidDeviceError("pin_memory: only cpu tensors can be pinned, this one is on " +
                             src.device.str());
  if (src.pinned) return *this;
  Tensor out = detail::new_pinned_tensor(shape(), dtype());
  out.copy_(*this);  // recorded (CopyBackwards) when this requires grad, as torch's copy
  return out;
}

}  // namespace hetero
