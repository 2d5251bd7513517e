// SPDX-License-Identifier: Apache-2.0
#include "op_support.hpp"

#include <algorithm>

namespace hetero::detail {
void OpSupport::build(const Backend& backend, int devices, int plugin_minor) {
  bits_.assign(static_cast<std::size_t>(std::max(devices, 0)) * kSlots * kDTypes, 0);
  for (int d = 0; d < devices; ++d)
    for (std::size_t f = 0; f < kFamilies; ++f) {
      const auto family = static_cast<OpFamily>(f);
      for (int code = 0; code < op_count(family); ++code) {
        const OpRef op(family, static_cast<std::uint8_t>(code));
        if (op_since(op) > plugin_minor) continue;
        for (std::size_t t = 0; t < kDTypes; ++t)
          if (dtype_since(static_cast<DType>(t)) <= plugin_minor)
            bits_[(static_cast<std::size_t>(d) * kSlots + kOffsets[f] + op.code) * kDTypes + t] =
                backend.supports(op, static_cast<DType>(t), d) ? 1 : 0;
      }
    }
}

}  // namespace hetero::detail
