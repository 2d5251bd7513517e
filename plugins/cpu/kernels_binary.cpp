// SPDX-License-Identifier: Apache-2.0
// The binary kernels (one per op and dtype the tables define; see kernels_unary.cpp).
#include <string>

#include <hetero/internal_assert.hpp>
#include <hetero/sdk/element_conversion.hpp>
#include <hetero/sdk/elementwise_ops.hpp>

#include "kernels.hpp"
#include "vector_kernels.hpp"

namespace hetero::cpu::kernels {
namespace {

// Element-wise binary ops are exact (IEEE arithmetic, comparisons), so the vector kernels
// give the scalar loop's results bit for bit; tiny dense tensors skip them (no dispatch).
template <class T, class Op>
void apply_binary(BinaryOp code, const StridedView& a, const StridedView& b, const StridedView& out,
                  Op op) {
  constexpr std::int64_t kVectorMin = 64;
  const T* pa = data_of<T>(a);
  const T* pb = data_of<T>(b);
  T* po = data_of<T>(out);
  if (const std::int64_t n = out.numel();
      n < kParallelThreshold && a.is_contiguous() && b.is_contiguous() && out.is_contiguous()) {
    // Small and dense (the common case of small tensors): one loop, no loop planning.
    const T* x = pa + a.offset;
    const T* y = pb + b.offset;
    T* o = po + out.offset;
    if (n >= kVectorMin && vec::binary(code, out.dtype, x, 1, y, 1, o, n)) return;
    for (std::int64_t i = 0; i < n; ++i) o[i] = op(x[i], y[i]);
    return;
  }
  for_each_row<3>({&out, &a, &b}, [&](auto off, std::int64_t n, auto st) {
    T* o = po + off[0];
    const T* x = pa + off[1];
    const T* y = pb + off[2];
    if (st[0] == 1 && (st[1] == 0 || st[1] == 1) && (st[2] == 0 || st[2] == 1) && n >= kVectorMin &&
        vec::binary(code, out.dtype, x, static_cast<int>(st[1]), y, static_cast<int>(st[2]), o, n))
      return;
    if (st[0] == 1 && st[1] == 1 && st[2] == 1) {
      for (std::int64_t i = 0; i < n; ++i) o[i] = op(x[i], y[i]);
    } else if (st[0] == 1 && st[1] == 1 && st[2] == 0) {
      const T yv = *y;
      for (std::int64_t i = 0; i < n; ++i) o[i] = op(x[i], yv);
    } else if (st[0] == 1 && st[1] == 0 && st[2] == 1) {
      const T xv = *x;
      for (std::int64_t i = 0; i < n; ++i) o[i] = op(xv, y[i]);
    } else {
      for (std::int64_t i = 0; i < n; ++i) o[i * st[0]] = op(x[i * st[1]], y[i * st[2]]);
    }
  });
}

}  // namespace

// As unary() (kernels_unary.cpp): the SDK's element rules, one loop per op.
void binary(BinaryOp op, const StridedView& a, const StridedView& b, const StridedView& out) {
  dispatch(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    HETERO_INTERNAL_ASSERT(supports_binary<T>(op), "cpu backend: binary " +
                                                       std::string(op_name(op)) + " on " +
                                                       std::string(dtype_name(out.dtype)));
    visit_binary(op, [&](auto c) {
      constexpr BinaryOp Op = decltype(c)::value;
      if constexpr (supports_binary<T>(Op))  // as in unary()
        apply_binary<T>(op, a, b, out, [](T x, T y) { return binary_element<Op>(x, y); });
    });
  });
}

}  // namespace hetero::cpu::kernels
