// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file capabilities.hpp
/// Note [Optional capabilities]: the Backend virtuals that are not op rows and were appended
/// in a later interface minor (interface_version.hpp). A plugin built for an older minor has
/// no such slot in its vtable, so the core asks has_capability(plugin's minor, c) before
/// every call and never reaches past the end of an older vtable. The one table below is
/// where each capability's minor is written; the ops of later minors are gated by their own
/// rows' `since` (op_codes.hpp), not here. Header-only, usable by plugins and the
/// conformance kit alike. How the next major replaces these slots with typed extensions:
/// docs/design/backend-extensions.md.
#include <cstdint>
#include <string_view>

namespace hetero {

// clang-format off
/// X(name, since, what): one row per optional capability, in the order of its minor. (Not to
/// be confused with hetero::Capabilities, what one device offers.)
#define HETERO_FORALL_OPTIONAL_CAPABILITIES(X)                                                      \
  X(adopt, 7, "Backend::adopt: wrapping device memory the backend did not allocate")      \
  X(record_timestamp, 9, "Backend::record_timestamp and elapsed_seconds: device timestamps") \
  X(reduces_into, 10, "Backend::reduces_into: widening sums (narrow integers into int64)")
// clang-format on

/// An optional capability (a row of HETERO_FORALL_OPTIONAL_CAPABILITIES).
enum class OptionalCapability : std::uint8_t {
#define HETERO_CAPABILITY_ENUM(name, since, what) name,
  HETERO_FORALL_OPTIONAL_CAPABILITIES(HETERO_CAPABILITY_ENUM)
#undef HETERO_CAPABILITY_ENUM
};

/// The interface minor that appended `c`'s virtuals to Backend.
constexpr int capability_since(OptionalCapability c) noexcept {
  switch (c) {
#define HETERO_CAPABILITY_SINCE(name, since, what) \
  case OptionalCapability::name:                   \
    return since;
    HETERO_FORALL_OPTIONAL_CAPABILITIES(HETERO_CAPABILITY_SINCE)
#undef HETERO_CAPABILITY_SINCE
  }
  return 1 << 30;  // unreachable for a valid enumerator: never "has"
}

/// The capability's name, e.g. "adopt".
constexpr std::string_view capability_name(OptionalCapability c) noexcept {
  switch (c) {
#define HETERO_CAPABILITY_NAME(name, since, what) \
  case OptionalCapability::name:                  \
    return #name;
    HETERO_FORALL_OPTIONAL_CAPABILITIES(HETERO_CAPABILITY_NAME)
#undef HETERO_CAPABILITY_NAME
  }
  return "unknown";
}

/// Whether a plugin built for interface minor `interface_minor` has `c`'s virtuals in its
/// vtable (whether its backend then does anything useful with them is the backend's answer:
/// adopt() may decline, record_timestamp() may return nullptr).
constexpr bool has_capability(int interface_minor, OptionalCapability c) noexcept {
  return interface_minor >= capability_since(c);
}

}  // namespace hetero
