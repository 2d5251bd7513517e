// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file norms.hpp
/// Vector norms along dimensions, as torch.linalg.vector_norm, torch.norm(x, p, dim) and
/// torch.nn.functional.normalize: composed from reductions and element-wise kernels every
/// backend runs, with torch 1.13's gradient (norm_backward in FunctionsManual.cpp). The
/// result is on the input's device. Distances built on them are in <hetero/distance.hpp>.
#include <cstdint>
#include <optional>
#include <vector>

#include <hetero/export.hpp>
#include <hetero/tensor.hpp>

namespace hetero {

/// The `ord`-norm of `x` over `dims` (empty: every element), as torch.linalg.vector_norm:
/// (sum |x|^ord)^(1 / ord); ord = inf the largest |x|, -inf the smallest, 0 the count of
/// non-zeros (as x's dtype), 1 the sum of |x|, 2 the Euclidean norm; negative and fractional
/// ords by the formula (a zero element makes a negative-ord norm 0). `keepdim` keeps the
/// reduced dimensions with size 1. Floating dtypes (DTypeError otherwise, torch's
/// "Expected a floating point or complex tensor"); 16-bit inputs sum in float32 and round
/// once. Gradient as torch's norm_backward: x / norm for ord 2 (0 where the norm is 0),
/// sign(x) for 1, sign(x) shared among the elements equal to the norm (or NaN) for +-inf,
/// sign(x) |x|^(ord - 1) norm^(1 - ord) otherwise (0 where x or the norm is 0), zeros for
/// ord 0 (torch records none). IndexError for a dimension out of range, ValueError for one
/// repeated ("dim 0 appears multiple times in the list of dims") or, for ord < 0 or +-inf,
/// a reduced dimension of size 0 ("does not have an identity").
HETERO_API Tensor vector_norm(const Tensor& x, double ord = 2.0,
                              const std::vector<std::int64_t>& dims = {}, bool keepdim = false);

/// vector_norm(x, p, {dim}, keepdim), as torch.norm(x, p, dim) and x.norm(p, dim).
HETERO_API Tensor norm(const Tensor& x, double p, std::int64_t dim, bool keepdim = false);

/// x divided by its `p`-norm along `dim` clamped below at `eps`, as
/// torch.nn.functional.normalize: x / max(||x||_p, eps), the norm kept along `dim` and
/// broadcast (a zero vector stays zero). The clamp is differentiated as clamp's (no gradient
/// through a clamped norm). Errors as vector_norm (an integer x: DTypeError).
HETERO_API Tensor normalize(const Tensor& x, double p = 2.0, std::int64_t dim = 1,
                            double eps = 1e-12);

}  // namespace hetero
