#include "op_support.hpp"

#include <algorithm>
#include <array>

namespace hetero::detail {
namespace {

constexpr int kFamilies = static_cast<int>(OpFamily::gemm) + 1;
constexpr int kDTypes = static_cast<int>(DType::bfloat16) + 1;

// First slot of each family: the families' op counts laid end to end.
constexpr std::array<std::size_t, kFamilies + 1> family_offsets() {
  std::array<std::size_t, kFamilies + 1> o{};
  for (int f = 0; f < kFamilies; ++f)
    o[f + 1] = o[f] + static_cast<std::size_t>(op_count(static_cast<OpFamily>(f)));
  return o;
}
constexpr auto kOffsets = family_offsets();
constexpr std::size_t kSlots = kOffsets[kFamilies];

}  // namespace

std::size_t OpSupport::slot(OpRef op) noexcept {
  return kOffsets[static_cast<std::size_t>(op.family)] + op.code;
}

std::size_t OpSupport::index(int device, OpRef op, DType dtype) const noexcept {
  if (device < 0 || !op_known(op) || static_cast<int>(dtype) >= kDTypes) return bits_.size();
  return (static_cast<std::size_t>(device) * kSlots + slot(op)) * kDTypes +
         static_cast<std::size_t>(dtype);
}

void OpSupport::build(const Backend& backend, int devices, int plugin_minor) {
  bits_.assign(static_cast<std::size_t>(std::max(devices, 0)) * kSlots * kDTypes, 0);
  for (int d = 0; d < devices; ++d)
    for (int f = 0; f < kFamilies; ++f) {
      const auto family = static_cast<OpFamily>(f);
      for (int code = 0; code < op_count(family); ++code) {
        const OpRef op(family, static_cast<std::uint8_t>(code));
        if (op_since(op) > plugin_minor) continue;
        for (int t = 0; t < kDTypes; ++t)
          bits_[index(d, op, static_cast<DType>(t))] =
              backend.supports(op, static_cast<DType>(t), d) ? 1 : 0;
      }
    }
}

}  // namespace hetero::detail
