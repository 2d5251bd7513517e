// SPDX-License-Identifier: Apache-2.0
#pragma once
// Storage: one device allocation, the plugin that runs work on it, and the plugin whose
// memory it is (Note [Plugin lifetime]). The two plugins differ only for pinned host
// memory: a cpu tensor (run by the cpu plugin) in page-locked memory from, e.g., cuda.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include <hetero/device.hpp>
#include <hetero/sdk/buffer.hpp>

#include "plugin_library.hpp"

namespace hetero::detail {

struct Storage {
  std::shared_ptr<LoadedPlugin> plugin;        // runs the device's work
  std::shared_ptr<LoadedPlugin> memory_owner;  // made a pinned buffer (else null: `plugin` made it)
  std::unique_ptr<Buffer> buffer;
  Device device;
  bool pinned = false;  // page-locked host memory from memory_owner
  /// Note [Saved tensor versions]: bumped by every in-place write through a tensor (copy_,
  /// and what is built on it: optimiser steps, collectives, load into a module), as
  /// torch's version counter, which views and detached tensors share as they share this
  /// storage. A backward closure remembers the version of each tensor it saved and refuses
  /// to run on a newer one (autograd/engine.cpp), instead of computing a gradient from the
  /// new values.
  std::atomic<std::uint64_t> version{0};

  Storage(std::shared_ptr<LoadedPlugin> p, std::unique_ptr<Buffer> b, Device d)
      : plugin(std::move(p)), buffer(std::move(b)), device(std::move(d)) {}
  /// Pinned host memory made by `owner`, used as a tensor of `cpu_plugin`'s device cpu:0.
  Storage(std::shared_ptr<LoadedPlugin> cpu_plugin, std::shared_ptr<LoadedPlugin> owner,
          std::unique_ptr<Buffer> b)
      : plugin(std::move(cpu_plugin)),
        memory_owner(std::move(owner)),
        buffer(std::move(b)),
        device(Device::cpu()),
        pinned(true) {}
  ~Storage() { buffer.reset(); }  // before the plugins that made it are released
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  /// The device's default stream (owned by the backend, which `plugin` keeps alive). The
  /// one Backend call outside backend_calls.hpp (Note [One call layer]): a lookup on the
  /// path of every op, kept inline.
  Stream& stream() const { return plugin->backend->default_stream(device.index()); }
};

/// Allocates `bytes` on `d` through its backend (checks the device first).
std::shared_ptr<Storage> allocate_storage(const Device& d, std::size_t bytes);
/// The same through a plugin already looked up (the device's own; skips the registry).
std::shared_ptr<Storage> allocate_storage(std::shared_ptr<LoadedPlugin> plugin, const Device& d,
                                          std::size_t bytes);

}  // namespace hetero::detail
