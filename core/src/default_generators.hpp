// SPDX-License-Identifier: Apache-2.0
#pragma once
// The devices' default generators without default_generator()'s device check, for the
// factories, whose result tensor already proves the device exists.
#include <hetero/generator.hpp>

namespace hetero::detail {
/// default_generator(device) for a device known to exist (made on first use).
Generator& device_generator(const Device& device);
}  // namespace hetero::detail
