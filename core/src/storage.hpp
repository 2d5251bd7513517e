#pragma once
// Storage: one device allocation and the plugin that made it (Note [Plugin lifetime]).
#include <cstddef>
#include <memory>

#include <hetero/device.hpp>
#include <hetero/sdk/buffer.hpp>

#include "plugin_library.hpp"

namespace hetero::detail {

struct Storage {
  std::shared_ptr<LoadedPlugin> plugin;  // declared first: released after the buffer
  std::unique_ptr<Buffer> buffer;
  Device device;

  Storage(std::shared_ptr<LoadedPlugin> p, std::unique_ptr<Buffer> b, Device d)
      : plugin(std::move(p)), buffer(std::move(b)), device(std::move(d)) {}
  ~Storage() { buffer.reset(); }
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  Backend& backend() const { return *plugin->backend; }
  Stream& stream() const { return plugin->backend->default_stream(device.index()); }
};

/// Allocates `bytes` on `d` through its backend (checks the device first).
std::shared_ptr<Storage> allocate_storage(const Device& d, std::size_t bytes);

}  // namespace hetero::detail
