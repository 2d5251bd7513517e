#pragma once
// OpSupport: what a loaded plugin's backend runs, asked once per device when it loads
// (Backend::supports is a virtual call; the core asks before every kernel, so it reads
// this table instead: one load and a bit test).
#include <cstdint>
#include <vector>

#include <hetero/sdk/backend.hpp>

namespace hetero::detail {

class OpSupport {
 public:
  /// Asks `backend` about every op of the core's tables and every dtype on each of its
  /// `devices` devices. An op newer than the plugin's `plugin_minor` is unsupported without
  /// asking (an older plugin's tables lack it: Note [Interface versions]). Exceptions from
  /// supports() propagate (the loader reports them as the plugin's load failure).
  void build(const Backend& backend, int devices, int plugin_minor);
  /// Whether `device`'s backend runs `op` on `dtype` (false for a device index not built).
  bool supports(int device, OpRef op, DType dtype) const noexcept {
    const std::size_t i = index(device, op, dtype);
    return i < bits_.size() && bits_[i] != 0;
  }

 private:
  static std::size_t slot(OpRef op) noexcept;
  std::size_t index(int device, OpRef op, DType dtype) const noexcept;

  std::vector<std::uint8_t> bits_;  // [device][op slot][dtype]
};

}  // namespace hetero::detail
