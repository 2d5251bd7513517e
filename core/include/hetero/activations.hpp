// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file activations.hpp
/// The activation functions of models after 2015, as torch.nn.functional's: gelu, silu,
/// leaky_relu, elu, softplus. Element-wise on any shape; floating dtypes only (integer and
/// bool input raise NotImplementedError, as torch's "not implemented for 'Long'"). float32
/// and float64 compute in their own dtype with torch's formulas; float16 and bfloat16 in
/// float32, rounded once. Each records one autograd node whose gradient is torch's
/// (GeluBackward, ...). Composed from kernels every backend has (exp, tanh, erf, where and
/// arithmetic), so they run on every device; the result is on the input's device.
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

}  // namespace hetero
