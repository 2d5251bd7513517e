// SPDX-License-Identifier: Apache-2.0
// The smooth activations of <hetero/activations.hpp> (the piecewise ones are in
// ops_activation_piecewise.cpp): computed untracked from kernels every backend has, with
// torch's formulas (aten/src/ATen/native/cpu/Activation.cpp, 1.13), then one node whose
// gradient is a formula (autograd/formulas.hpp); softsign is tracked ops, as torch's.
#include <hetero/activations.hpp>

#include <cmath>
#include <optional>
#include <string>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/ops.hpp>

#include "activation_helpers.hpp"
#include "autograd/formulas.hpp"
#include "autograd/record.hpp"
#include "op_helpers.hpp"
#include "profiler_record.hpp"

namespace hetero {

using detail::check_floating;
using detail::in_compute_dtype;

namespace {

// scale x where x > 0, else negcoef (exp(input_scale x) - 1), torch's elu kernel with its
// three coefficients (elu: alpha, 1, 1; selu: alpha scale, scale, 1; celu: alpha, 1,
// 1 / alpha), exp - 1 as expm1, not torch's subtraction, which cancels near 0
// (docs/semantics.md row 36); of x + 0, so that -0 gives torch's (exp(-0) - 1) * alpha =
// +0 * alpha, not -0 (a -0 flipped atan2(elu(x), y) from -pi to pi against torch: torch_diff
// seed 5, case 4089). The factors of 1 are not multiplied.
Tensor elu_family(const char* op, const char* node, const Tensor& x, double negcoef, double poscoef,
                  double input_scale) {
  const detail::prof::Scope op_scope(op, x);
  check_floating(x, op);
  const Tensor out = in_compute_dtype(x, [&](const Tensor& v) {
    const Tensor scaled = input_scale == 1.0 ? v + 0.0 : v * input_scale + 0.0;
    return where(le(v, 0.0), expm1(scaled) * negcoef, poscoef == 1.0 ? v : v * poscoef);
  });
  return detail::record(node, out, {x}, [&] {
    return [v = detail::saved(x), negcoef, poscoef, input_scale](const Tensor& g) {
      return detail::formulas::elu(g, v, negcoef, poscoef, input_scale);
    };
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
  return elu_family("elu", "EluBackward", x, alpha, 1.0, 1.0);
}

Tensor selu(const Tensor& x) {
  return elu_family("selu", "EluBackward", x, kSeluAlpha * kSeluScale, kSeluScale, 1.0);
}

Tensor celu(const Tensor& x, double alpha) {
  if (alpha == 0.0) throw ValueError("celu: alpha cannot be 0 for CELU (it divides; as torch)");
  return elu_family("celu", "EluBackward", x, alpha, 1.0, 1.0 / alpha);
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

Tensor mish(const Tensor& x) {
  const detail::prof::Scope op_scope("mish", x);
  check_floating(x, "mish");
  // torch's kernel: x tanh(log1p(exp(x))); exp overflows to inf for large x, and then
  // tanh(inf) = 1 gives x, as torch.
  const Tensor out = in_compute_dtype(x, [](const Tensor& v) { return v * tanh(log1p(exp(v))); });
  return detail::record("MishBackward", out, {x}, [&] {
    return [v = detail::saved(x)](const Tensor& g) { return detail::formulas::mish(g, v); };
  });
}

Tensor logsigmoid(const Tensor& x) {
  const detail::prof::Scope op_scope("logsigmoid", x);
  check_floating(x, "log_sigmoid");
  // torch's log_sigmoid kernel: min(x, 0) - log1p(exp(-|x|)), never exp of a large value.
  const Tensor out = in_compute_dtype(
      x, [](const Tensor& v) { return clamp(v, std::nullopt, Number(0.0)) - log1p(exp(-abs(v))); });
  return detail::record("LogSigmoidBackward", out, {x}, [&] {
    return [v = detail::saved(x)](const Tensor& g) { return detail::formulas::logsigmoid(g, v); };
  });
}

Tensor softsign(const Tensor& x) {
  const detail::prof::Scope op_scope("softsign", x);
  detail::impl_of(x, "softsign");
  return x / (abs(x) + 1);  // torch's: input / (input.abs() + 1), tracked
}

}  // namespace hetero
