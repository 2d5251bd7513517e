// SPDX-License-Identifier: Apache-2.0
#pragma once
// OpSupport: what a loaded plugin's backend runs, asked once per device when it loads.
// Three names, three things: Backend::supports is the plugin's answer (a virtual call);
// OpSupport::has_kernel is the core's cached copy of it (one load and a bit test, asked
// before every kernel); calls::has_kernel(storage, op, dtype) asks that copy for the device
// a tensor lives on (it runs nothing).
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <hetero/sdk/backend.hpp>

namespace hetero::detail {
namespace op_support_detail {
inline constexpr std::size_t kFamilies = static_cast<std::size_t>(kLastOpFamily) + 1;
// First slot of each family: the families' op counts laid end to end.
constexpr std::array<std::size_t, kFamilies + 1> family_offsets() {
  std::array<std::size_t, kFamilies + 1> o{};
  for (std::size_t f = 0; f < kFamilies; ++f)
    o[f + 1] = o[f] + static_cast<std::size_t>(op_count(static_cast<OpFamily>(f)));
  return o;
}
}  // namespace op_support_detail

class OpSupport {
 public:
  /// Asks `backend` about every op of the core's tables and every dtype on each of its
  /// `devices` devices. An op or a dtype newer than the plugin's `plugin_minor` is
  /// unsupported without asking (an older plugin's tables lack it: Note [Interface versions]).
  /// Exceptions from supports() propagate (the loader reports them as the plugin's load failure).
  void build(const Backend& backend, int devices, int plugin_minor);
  /// Whether `device`'s backend runs `op` on `dtype` (false for a device index not built).
  /// Inline: it runs before every kernel (a few loads and compares).
  bool has_kernel(int device, OpRef op, DType dtype) const noexcept {
    const auto f = static_cast<std::size_t>(op.family);
    if (f >= kFamilies || op.code >= kOffsets[f + 1] - kOffsets[f] || device < 0 ||
        static_cast<std::size_t>(dtype) >= kDTypes)
      return false;
    const std::size_t i =
        (static_cast<std::size_t>(device) * kSlots + kOffsets[f] + op.code) * kDTypes +
        static_cast<std::size_t>(dtype);
    return i < bits_.size() && bits_[i] != 0;
  }

 private:
  static constexpr std::size_t kFamilies = op_support_detail::kFamilies;
  static constexpr std::size_t kDTypes = kDTypeCount;
  static constexpr auto kOffsets = op_support_detail::family_offsets();
  static constexpr std::size_t kSlots = kOffsets[kFamilies];

  std::vector<std::uint8_t> bits_;  // [device][op slot][dtype]
};

}  // namespace hetero::detail
