// SPDX-License-Identifier: Apache-2.0
// Must NOT compile (ctest sdk.no_integer_rule_is_a_compile_error): evaluating the integer
// rule of a `floating` row (exp) is a compile error naming the placeholder, not a silent x.
#include <cstdint>

#include <hetero/sdk/elementwise_ops.hpp>

int main() {
  return static_cast<int>(
      hetero::ops_detail::UnaryRule<hetero::UnaryOp::exp>::integer(std::int32_t{3}));
}
