// SPDX-License-Identifier: Apache-2.0
// The activations of <hetero/activations.hpp>: computed untracked from kernels every backend
// has, with torch's formulas (aten/src/ATen/native/cpu/Activation.cpp, 1.13), then one
// node whose gradient is a formula (autograd/formulas.hpp).
#include <hetero/activations.hpp>

#include <cmath>
#include <string>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/ops.hpp>

#include "autograd/formulas.hpp"
#include "autograd/record.hpp"
#include "op_helpers.hpp"
#include "profiler_record.hpp"

namespace hetero {
namespace {

// Floating input only, as torch ("GeluKernelImpl" not implemented for 'Long').
void check_floating(const Tensor& x, const char* op) {
  detail::impl_of(x, op);
  if (!is_floating_point(x.dtype()))
    throw NotImplementedError(std::string("\"") + op + "\" not implemented for '" +
                              std::string(dtype_name(x.dtype())) +
                              "' (floating dtypes only, as torch)");
}

// f(x) in x's compute dtype (float32 for the 16-bit ones), rounded once to x's dtype.
template <class F>
Tensor in_compute_dtype(const Tensor& x, F f) {
  const bool half = x.dtype() == DType::float16 || x.dtype() == DType::bfloat16;
  return detail::untracked([&] {
    const Tensor r = f(half ? x.to(DType::float32) : x);
    return half ? r.to(x.dtype()) : r;
  });
}

}  // namespace

Tensor gelu(const Tensor& x, std::string_view approximate) {
  const detail::prof::Scope op_scope("gelu", x);
  check_floating(x, "gelu");
  if (approximate != "none" && approximate != "tanh")
    throw ValueError("gelu: approximate argument must be either none or tanh, got '" +
                     std::string(approximate) + "' (as torch)");
  const bool tanh_form = approximate == "tanh";
  const Tensor out = in_compute_dtype(x, [&](const Tensor& v) {
    if (tanh_form) {
      // x (1 + tanh(u)) / 2 as x sigmoid(2u), the same function: 1 + tanh(u) cancels at
      // negative x (torch's formula gives 0 at x = -5.09 in float32, where the value is
      // -1.3e-7; float64 loses dozens of ulps at x = -2.6).
      const Tensor inner =
          (v + v * v * v * detail::formulas::kGeluKappa) * detail::formulas::kGeluBeta;
      return v * sigmoid(inner * 2.0);
    }
    return v * 0.5 * (1.0 + erf(v * M_SQRT1_2));
  });
  return detail::record("GeluBackward", out, {x}, [&] {
    return [v = detail::saved(x), tanh_form](const Tensor& g) {
      return detail::formulas::gelu(g, v, tanh_form);
    };
  });
}

Tensor silu(const Tensor& x) {
  const detail::prof::Scope op_scope("silu", x);
  check_floating(x, "silu");
  const Tensor out = in_compute_dtype(x, [](const Tensor& v) { return v / (1.0 + exp(-v)); });
  return detail::record("SiluBackward", out, {x}, [&] {
    return [v = detail::saved(x)](const Tensor& g) { return detail::formulas::silu(g, v); };
  });
}

Tensor leaky_relu(const Tensor& x, double negative_slope) {
  const detail::prof::Scope op_scope("leaky_relu", x);
  check_floating(x, "leaky_relu");
  const Tensor out = in_compute_dtype(
      x, [&](const Tensor& v) { return where(gt(v, 0.0), v, v * negative_slope); });
  return detail::record("LeakyReluBackward", out, {x}, [&] {
    return [v = detail::saved(x), negative_slope](const Tensor& g) {
      return detail::formulas::leaky_relu(g, v, negative_slope);
    };
  });
}

Tensor elu(const Tensor& x, double alpha) {
  const detail::prof::Scope op_scope("elu", x);
  check_floating(x, "elu");
  const Tensor out = in_compute_dtype(
      // expm1(x), not torch's exp(x) - 1, which cancels near 0 (docs/semantics.md row 36);
      // of x + 0, so that -0 gives torch's (exp(-0) - 1) * alpha = +0 * alpha, not -0 (a -0
      // flipped atan2(elu(x), y) from -pi to pi against torch: torch_diff seed 5, case 4089).
      x, [&](const Tensor& v) { return where(le(v, 0.0), expm1(v + 0.0) * alpha, v); });
  return detail::record("EluBackward", out, {x}, [&] {
    return [v = detail::saved(x), alpha](const Tensor& g) {
      return detail::formulas::elu(g, v, alpha);
    };
  });
}

Tensor softplus(const Tensor& x, double beta, double threshold) {
  const detail::prof::Scope op_scope("softplus", x);
  check_floating(x, "softplus");
  if (beta == 0.0) throw ValueError("softplus: beta must not be 0 (it divides)");
  const Tensor out = in_compute_dtype(x, [&](const Tensor& v) {
    const Tensor bx = v * beta;
    return where(gt(bx, threshold), v, log1p(exp(bx)) / beta);
  });
  return detail::record("SoftplusBackward", out, {x}, [&] {
    return [v = detail::saved(x), beta, threshold](const Tensor& g) {
      return detail::formulas::softplus(g, v, beta, threshold);
    };
  });
}

}  // namespace hetero
