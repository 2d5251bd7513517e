// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the activations of <hetero/activations.hpp> (ops_activation.cpp,
// ops_activation_piecewise.cpp) share: the floating-dtype check and the compute dtype.
#include <string>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/tensor.hpp>

#include "autograd/record.hpp"
#include "op_helpers.hpp"

namespace hetero::detail {

/// NotImplementedError unless x is floating, as torch ("GeluKernelImpl" not implemented for
/// 'Long'); Error (impl_of) for an undefined x.
inline void check_floating(const Tensor& x, const char* op) {
  impl_of(x, op);
  if (!is_floating_point(x.dtype()))
    throw NotImplementedError(std::string("\"") + op + "\" not implemented for '" +
                              std::string(dtype_name(x.dtype())) +
                              "' (floating dtypes only, as torch)");
}

/// f(x) untracked in x's compute dtype (float32 for the 16-bit ones), rounded once to x's
/// dtype.
template <class F>
Tensor in_compute_dtype(const Tensor& x, F f) {
  const bool half = x.dtype() == DType::float16 || x.dtype() == DType::bfloat16;
  return untracked([&] {
    const Tensor r = f(half ? x.to(DType::float32) : x);
    return half ? r.to(x.dtype()) : r;
  });
}

}  // namespace hetero::detail
