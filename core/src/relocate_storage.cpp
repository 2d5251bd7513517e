// SPDX-License-Identifier: Apache-2.0
#include <hetero/relocate_storage.hpp>

#include <utility>

#include "backend_calls.hpp"
#include "op_helpers.hpp"
#include "storage.hpp"

namespace hetero {

std::shared_ptr<void> relocate_storage(const Tensor& t) {
  detail::Storage& old = *detail::impl_of(t, "relocate_storage").storage;
  const std::size_t bytes = old.buffer ? old.buffer->size() : 0;
  if (bytes == 0 || t.numel() == 0) return nullptr;
  // The new memory, from the device's own backend (a pinned storage's cpu plugin), then
  // the old bytes copied over on the same stream, after the work queued before it; once
  // that stream is idle no queued work uses the old memory, and the buffers change hands.
  std::shared_ptr<detail::Storage> fresh = detail::allocate_storage(old.plugin, old.device, bytes);
  detail::calls::copy_device_to_device(old, 0, *fresh, 0, bytes);
  fresh->stream().synchronize();
  // `fresh` takes the old memory (and, for pinned memory, the plugin that made it); the
  // tensor's storage keeps everything else (its version, its views).
  std::swap(old.buffer, fresh->buffer);
  std::swap(old.memory_owner, fresh->memory_owner);
  std::swap(old.pinned, fresh->pinned);
  ++old.version;
  return fresh;
}

}  // namespace hetero
