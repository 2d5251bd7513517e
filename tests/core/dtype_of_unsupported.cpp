// SPDX-License-Identifier: Apache-2.0
// Must not compile (CTest core.dtype_of_rejects_unsupported_types): long long is not an
// element type of hetero, and from_vector must not read its 8-byte values as another type's.
#include <vector>

#include <hetero/hetero.hpp>

int main() {
  const std::vector<long long> values{1, 2, 3};
  return static_cast<int>(hetero::from_vector(values, {3}).numel());
}
