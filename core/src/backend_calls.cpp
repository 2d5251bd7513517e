// SPDX-License-Identifier: Apache-2.0
#include "backend_calls.hpp"

#include <hetero/internal_assert.hpp>

namespace hetero::detail {

namespace calls {
namespace {

Backend& backend(const LoadedPlugin& p) { return *p.backend; }

}  // namespace

int device_count(const LoadedPlugin& p) noexcept { return backend(p).device_count(); }
DeviceProperties device_properties(const LoadedPlugin& p, int device) {
  return backend(p).device_properties(device);
}
Capabilities capabilities(const LoadedPlugin& p, int device) {
  return backend(p).capabilities(device);
}
MemoryStats memory_stats(const LoadedPlugin& p, int device) {
  return backend(p).memory_stats(device);
}
void empty_cache(const LoadedPlugin& p, int device) { backend(p).empty_cache(device); }
std::unique_ptr<Buffer> adopt(const LoadedPlugin& p, int device, void* handle, std::size_t bytes,
                              std::function<void()> release) {
  if (!p.has(OptionalCapability::adopt)) return nullptr;  // not in its vtable
  return backend(p).adopt(device, handle, bytes, std::move(release));
}
std::string unavailable_reason(const LoadedPlugin& p) {
  try {  // a status line: a throwing plugin must not take the listing down (issue #25)
    return backend(p).unavailable_reason();
  } catch (const std::exception& e) {
    return std::string("unavailable_reason() threw: ") + e.what();
  } catch (...) {
    return "unavailable_reason() threw a non-standard exception";
  }
}

std::unique_ptr<Buffer> allocate(const LoadedPlugin& p, int device, std::size_t bytes) {
  HETERO_INTERNAL_ASSERT(bytes > 0, "allocate of 0 bytes");
  const prof::Scope trace("alloc", "allocate", nullptr, nullptr, bytes);
  return backend(p).allocate(device, bytes);
}
std::unique_ptr<Buffer> allocate_pinned_host(const LoadedPlugin& p, std::size_t bytes) {
  HETERO_INTERNAL_ASSERT(bytes > 0, "allocate_pinned_host of 0 bytes");
  return backend(p).allocate_pinned_host(bytes);
}
Stream& default_stream(const LoadedPlugin& p, int device) {
  return backend(p).default_stream(device);
}

void copy_device_to_host(const Storage& src, std::size_t src_offset, void* dst, std::size_t bytes) {
  const prof::Scope trace("copy", "device_to_host", &src, nullptr, bytes);
  backend(*src.plugin).copy_device_to_host(*src.buffer, src_offset, dst, bytes, src.stream());
}
void copy_host_to_device(const void* src, const Storage& dst, std::size_t dst_offset,
                         std::size_t bytes) {
  const prof::Scope trace("copy", "host_to_device", &dst, nullptr, bytes);
  backend(*dst.plugin).copy_host_to_device(src, *dst.buffer, dst_offset, bytes, dst.stream());
}
void copy_device_to_device(const Storage& src, std::size_t src_offset, const Storage& dst,
                           std::size_t dst_offset, std::size_t bytes) {
  HETERO_INTERNAL_ASSERT(src.plugin == dst.plugin, "device-to-device copy between two backends");
  const prof::Scope trace("copy", "device_to_device", &dst, nullptr, bytes);
  backend(*dst.plugin)
      .copy_device_to_device(*src.buffer, src_offset, *dst.buffer, dst_offset, bytes, dst.stream());
}

void throw_not_implemented(const Storage& on, OpRef op, DType dtype) {
  const LoadedPlugin& p = *on.plugin;
  std::string why = "backend '" + p.status.name + "' (plugin interface " +
                    p.status.interface_version + ") does not implement it";
  if (op_since(op) > p.interface_minor)
    why = "backend '" + p.status.name + "' was built for plugin interface " +
          p.status.interface_version + ", which predates this op";
  else if (dtype_since(dtype) > p.interface_minor)
    why = "backend '" + p.status.name + "' was built for plugin interface " +
          p.status.interface_version + ", which predates this dtype";
  throw NotImplementedError(std::string(op_name(op)) + ": not implemented for '" +
                            std::string(dtype_name(dtype)) + "' on " + on.device.str() + " (" +
                            why + ")");
}

std::unique_ptr<Event> record_timestamp(const Storage& on) noexcept {
  if (!on.plugin->has(OptionalCapability::record_timestamp)) return nullptr;  // not in its vtable
  try {
    return on.plugin->backend->record_timestamp(on.stream());
  } catch (...) {
    return nullptr;
  }
}

std::optional<double> elapsed_seconds(const LoadedPlugin& plugin, Event& start,
                                      Event& end) noexcept {
  try {
    return plugin.backend->elapsed_seconds(start, end);
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace calls
}  // namespace hetero::detail
