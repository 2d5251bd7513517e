// SPDX-License-Identifier: Apache-2.0
// The piecewise activations of <hetero/activations.hpp>: hardtanh, relu6, hardsigmoid,
// hardswish (clamp and arithmetic, then one node with torch 1.13's backward formula) and
// prelu (tracked where and mul, as torch's autograd differentiates it).
#include <hetero/activations.hpp>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

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

// hardtanh of an integer tensor, as torch's hardtanh_out: no gradient; the bounds truncated
// toward 0 (a Scalar's toLong()), then an unsigned dtype refuses negative ones (so -0.5, which
// truncates to 0, is taken), then they are cast to the dtype (DTypeError beyond its range).
Tensor integer_hardtanh(const Tensor& x, double min_val, double max_val) {
  const double lo = std::trunc(min_val), hi = std::trunc(max_val);
  if (x.dtype() == DType::uint8 && (lo < 0 || hi < 0))
    throw ValueError(
        "hardtanh: cannot do hardtanh on an unsigned type with negative limits "
        "(min_val " +
        detail::format_double(min_val) + ", max_val " + detail::format_double(max_val) +
        "; as torch)");
  detail::check_value_fits("hardtanh", lo, x.dtype());
  detail::check_value_fits("hardtanh", hi, x.dtype());
  return clamp(x, Number(static_cast<std::int64_t>(lo)), Number(static_cast<std::int64_t>(hi)));
}

}  // namespace

Tensor hardtanh(const Tensor& x, double min_val, double max_val) {
  const detail::prof::Scope op_scope("hardtanh", x);
  detail::impl_of(x, "hardtanh");
  if (x.dtype() == DType::bool_)
    throw DTypeError("hardtanh: Bool inputs not supported for hardtanh (as torch)");
  if (!is_floating_point(x.dtype())) return integer_hardtanh(x, min_val, max_val);
  const Tensor out = in_compute_dtype(
      x, [&](const Tensor& v) { return clamp(v, Number(min_val), Number(max_val)); });
  return detail::record("HardtanhBackward", out, {x}, [&] {
    return [v = detail::saved(x), min_val, max_val](const Tensor& g) {
      return detail::formulas::hardtanh(g, v, min_val, max_val);
    };
  });
}

Tensor relu6(const Tensor& x) { return hardtanh(x, 0.0, 6.0); }

Tensor hardsigmoid(const Tensor& x) {
  const detail::prof::Scope op_scope("hardsigmoid", x);
  check_floating(x, "hardsigmoid");
  const Tensor out = in_compute_dtype(
      x, [](const Tensor& v) { return clamp(v + 3.0, Number(0.0), Number(6.0)) / 6.0; });
  return detail::record("HardsigmoidBackward", out, {x}, [&] {
    return [v = detail::saved(x)](const Tensor& g) { return detail::formulas::hardsigmoid(g, v); };
  });
}

Tensor hardswish(const Tensor& x) {
  const detail::prof::Scope op_scope("hardswish", x);
  check_floating(x, "hardswish");
  // torch's kernel: x * min(max(x + 3, 0), 6) / 6, in that order.
  const Tensor out = in_compute_dtype(
      x, [](const Tensor& v) { return v * clamp(v + 3.0, Number(0.0), Number(6.0)) / 6.0; });
  return detail::record("HardswishBackward", out, {x}, [&] {
    return [v = detail::saved(x)](const Tensor& g) { return detail::formulas::hardswish(g, v); };
  });
}

Tensor prelu(const Tensor& x, const Tensor& weight) {
  const detail::prof::Scope op_scope("prelu", x);
  check_floating(x, "prelu");
  detail::impl_of(weight, "prelu");
  detail::check_same_device("prelu", {&x, &weight});
  if (weight.dtype() != x.dtype())
    throw DTypeError("prelu: weight is " + std::string(dtype_name(weight.dtype())) + " but x is " +
                     std::string(dtype_name(x.dtype())) +
                     " (one dtype, as torch's \"Found dtype ... but expected ...\")");
  if (weight.dim() > 1)
    throw ShapeError("prelu: Expected `weight` to be a scalar or 1D tensor, but got ndim = " +
                     std::to_string(weight.dim()) + " (as torch)");
  // torch 1.13's channel count: dimension 1, and 1 for a 0-d or 1-d x.
  const std::int64_t channels = x.dim() >= 2 ? x.size(1) : 1;
  const std::int64_t count = weight.numel();
  if (x.dim() == 0 && count != 1)
    throw ValueError("prelu: Not allow zero-dim input tensor with " + std::to_string(count) +
                     " weights (one weight for a 0-d x, as torch)");
  if (count != 1 && count != channels)
    throw ValueError(
        "prelu: Mismatch of parameter numbers and input channel size. Found parameter "
        "numbers = " +
        std::to_string(count) + " and channel size = " + std::to_string(channels) +
        " (the channels are x's dimension 1; as torch)");
  // The weight shaped to broadcast along the channel dimension: [C, 1, ...] from dim 1 on.
  Shape w_shape(static_cast<std::size_t>(x.dim() >= 2 ? x.dim() - 1 : 0), 1);
  if (!w_shape.empty()) w_shape[0] = count;
  const Tensor w = weight.reshape(w_shape);
  return where(gt(x, 0.0), x, w * x);
}

}  // namespace hetero
