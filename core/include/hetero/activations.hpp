// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file activations.hpp
/// The activation functions of models after 2015, as torch.nn.functional's: gelu, silu,
/// leaky_relu, elu, selu, celu, softplus, mish, logsigmoid, softsign, and the piecewise ones
/// of mobile networks (hardtanh, relu6, hardsigmoid, hardswish) and prelu. Element-wise on
/// any shape; floating dtypes only unless a function says otherwise (integer and bool input
/// raise NotImplementedError, as torch's "not implemented for 'Long'"). float32 and float64
/// compute in their own dtype with torch's formulas; float16 and bfloat16 in float32,
/// rounded once. Each records one autograd node whose gradient is torch's (GeluBackward,
/// ...), except softsign and prelu, which are compositions of tracked ops as in torch.
/// Composed from kernels every backend has (exp, tanh, erf, where, clamp and arithmetic), so
/// they run on every device; the result is on the input's device.
#include <string_view>

#include <hetero/export.hpp>
#include <hetero/tensor.hpp>

namespace hetero {

/// x Φ(x) = x / 2 (1 + erf(x / sqrt 2)) (`approximate` "none"), or with "tanh"
/// x / 2 (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), as torch.nn.functional.gelu; the tanh
/// form is computed as the equal x sigmoid(2 sqrt(2 / pi) (x + 0.044715 x^3)), which does not
/// cancel at negative x (torch's does: 54 float64 ulps at -3). ValueError for another
/// `approximate`.
HETERO_API Tensor gelu(const Tensor& x, std::string_view approximate = "none");
/// x sigmoid(x) = x / (1 + exp(-x)), as torch.nn.functional.silu.
HETERO_API Tensor silu(const Tensor& x);
/// x where x > 0, else negative_slope x, as torch.nn.functional.leaky_relu.
HETERO_API Tensor leaky_relu(const Tensor& x, double negative_slope = 0.01);
/// x where x > 0, else alpha (exp(x) - 1), as torch.nn.functional.elu (NaN stays NaN); the
/// exp(x) - 1 computed as expm1(x), exact near 0 where torch's subtraction cancels
/// (docs/semantics.md row 36).
HETERO_API Tensor elu(const Tensor& x, double alpha = 1.0);
/// log(1 + exp(beta x)) / beta, and x itself where beta x > threshold (for stability), as
/// torch.nn.functional.softplus. ValueError for beta == 0.
HETERO_API Tensor softplus(const Tensor& x, double beta = 1.0, double threshold = 20.0);

/// SELU's alpha (Klambauer et al. 2017, torch's SELU_ALPHA).
inline constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
/// SELU's scale (Klambauer et al. 2017, torch's SELU_SCALE).
inline constexpr double kSeluScale = 1.0507009873554804934193349852946;
/// scale x where x > 0, else scale alpha (exp(x) - 1), with kSeluAlpha and kSeluScale, as
/// torch.nn.functional.selu (Klambauer et al. 2017); exp(x) - 1 as expm1, as elu.
HETERO_API Tensor selu(const Tensor& x);
/// x where x > 0, else alpha (exp(x / alpha) - 1), as torch.nn.functional.celu (Barron
/// 2017); exp - 1 as expm1, as elu. ValueError for alpha == 0 (torch: "alpha cannot be 0
/// for CELU").
HETERO_API Tensor celu(const Tensor& x, double alpha = 1.0);
/// x tanh(softplus(x)) = x tanh(log(1 + exp(x))), as torch.nn.functional.mish (Misra 2019).
HETERO_API Tensor mish(const Tensor& x);
/// log(sigmoid(x)) = min(x, 0) - log(1 + exp(-|x|)) (torch's stable form), as
/// torch.nn.functional.logsigmoid.
HETERO_API Tensor logsigmoid(const Tensor& x);
/// x / (1 + |x|), as torch.nn.functional.softsign: composed of tracked abs, add and div as
/// torch's (so integer input gives float32, as division; bool raises as abs of bool).
HETERO_API Tensor softsign(const Tensor& x);

/// x clamped to [min_val, max_val], as torch.nn.functional.hardtanh (defaults -1 and 1); a
/// min_val above max_val gives max_val everywhere, as clamp. Integer dtypes too (the bounds
/// cast to the dtype, as clamp; no gradient); bool raises DTypeError. Gradient: g strictly
/// inside (min_val, max_val), 0 at and beyond the bounds, g at NaN (torch's scalar and cuda
/// hardtanh_backward; its cpu vector kernel gives 0 at NaN: docs/semantics.md row 63). NaN
/// stays NaN.
HETERO_API Tensor hardtanh(const Tensor& x, double min_val = -1.0, double max_val = 1.0);
/// min(max(x, 0), 6), as torch.nn.functional.relu6: hardtanh(x, 0, 6) (integers too).
HETERO_API Tensor relu6(const Tensor& x);
/// min(max(x + 3, 0), 6) / 6, as torch.nn.functional.hardsigmoid (Howard et al. 2019,
/// MobileNetV3). Gradient g / 6 strictly inside (-3, 3), else 0 (1 / 6 in the compute
/// dtype; torch's is float32's in every dtype: docs/semantics.md row 61).
HETERO_API Tensor hardsigmoid(const Tensor& x);
/// x min(max(x + 3, 0), 6) / 6, as torch.nn.functional.hardswish (MobileNetV3). Gradient
/// (torch's scalar and cuda hardswish_backward): 0 for x < -3, g (x / 3 + 0.5) for
/// -3 <= x <= 3, g above and at NaN (torch's cpu vector kernel gives g at exactly 3 and NaN
/// at NaN: docs/semantics.md row 62).
HETERO_API Tensor hardswish(const Tensor& x);
/// x where x > 0, else weight x, as torch.nn.functional.prelu (He et al. 2015). `weight`:
/// 1-d (or 0-d) of one element (shared) or of x's channel count, the same floating dtype
/// and device as x; the channel count is x.size(1), and 1 for a 0-d or 1-d x (torch 1.13:
/// prelu(x [5], weight [5]) raises). A composition of tracked where, gt and mul, as torch's
/// autograd gives: the gradient to weight sums x g where x <= 0 over every dimension but
/// the channel one. NotImplementedError for a non-floating x; ValueError for a 0-d x with
/// several weights or a weight count that is neither 1 nor the channel count ("Mismatch of
/// parameter numbers and input channel size"); ShapeError for a weight of 2 or more
/// dimensions; DTypeError when the dtypes differ; DeviceMismatchError when the devices do.
HETERO_API Tensor prelu(const Tensor& x, const Tensor& weight);

}  // namespace hetero
