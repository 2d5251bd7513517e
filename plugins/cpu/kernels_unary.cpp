// SPDX-License-Identifier: Apache-2.0
// The unary kernels (one per op and dtype the tables define); kernels_binary.cpp,
// kernels_ternary.cpp and kernels_copy.cpp are the other element-wise kernels, one file
// each so that they compile in parallel (this was one 190 s translation unit).
#include <string>

#include <hetero/internal_assert.hpp>
#include <hetero/sdk/element_conversion.hpp>
#include <hetero/sdk/elementwise_ops.hpp>

#include "kernels.hpp"
#include "vector_kernels.hpp"

namespace hetero::cpu::kernels {
namespace {

// Dense runs go to the vector kernels (Note [Vector kernels]) where they have the op and
// dtype, whatever their length, so that an element's result does not depend on the size of
// the tensor it is in; the rest runs the scalar rule `op`.
template <class T, class Op>
void apply_unary(UnaryOp code, const StridedView& in, const StridedView& out, Op op) {
  const T* src = data_of<T>(in);
  T* dst = data_of<T>(out);
  for_each_row<2>({&in, &out}, [&](auto off, std::int64_t n, auto st) {
    const T* s = src + off[0];
    T* d = dst + off[1];
    if (st[0] == 1 && st[1] == 1) {
      if (vec::unary(code, in.dtype, s, d, n)) return;
      for (std::int64_t i = 0; i < n; ++i) d[i] = op(s[i]);
    } else {
      for (std::int64_t i = 0; i < n; ++i) d[i * st[1]] = op(s[i * st[0]]);
    }
  });
}

}  // namespace

// The element rules are the SDK's (Note [Element-wise semantics], elementwise_ops.hpp);
// each op is its own loop (visit_unary/visit_binary), so the compiler vectorises it. The
// core calls only for ops and dtypes the tables define (Backend::supports' default).
void unary(UnaryOp op, const StridedView& in, const StridedView& out) {
  dispatch(in.dtype, [&](auto tag) {
    using T = decltype(tag);
    HETERO_INTERNAL_ASSERT(supports_unary<T>(op), "cpu backend: unary " + std::string(op_name(op)) +
                                                      " on " + std::string(dtype_name(in.dtype)));
    visit_unary(op, [&](auto c) {
      constexpr UnaryOp Op = decltype(c)::value;
      // Only the pairs the table defines are instantiated (the assert above refuses the
      // rest): a third fewer loops to compile, none that could run.
      if constexpr (supports_unary<T>(Op))
        apply_unary<T>(op, in, out, [](T x) { return unary_element<Op>(x); });
    });
  });
}

}  // namespace hetero::cpu::kernels
