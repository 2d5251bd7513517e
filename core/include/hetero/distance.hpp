// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file distance.hpp
/// cosine_similarity and pairwise_distance, as torch.nn.functional's (torch 1.13's formulas):
/// composed from ops every backend runs, so it runs on every device; the result is on the
/// inputs' device.
#include <cstdint>

#include <hetero/export.hpp>
#include <hetero/tensor.hpp>

namespace hetero {

/// sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps)) along `dim` (norms over `dim`,
/// Euclidean), as torch.nn.functional.cosine_similarity 1.13: x1 and x2 broadcast together
/// and promote as torch.result_type; the result has the broadcast shape without `dim`. Each
/// norm is clamped to eps separately, so a zero vector gives 0 (not NaN); the gradient
/// through a clamped norm is x / max(||x||, eps) (torch's norm backward of the clamped
/// value). 16-bit inputs compute in float32 and round once (torch 1.13's cpu has no float16
/// clamp_min). DTypeError when the common dtype is not floating (torch's "expected common
/// dtype to be floating point"), ShapeError when the shapes do not broadcast, IndexError for
/// `dim` out of the broadcast rank's range, DeviceMismatchError for two devices.
HETERO_API Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, std::int64_t dim = 1,
                                    double eps = 1e-8);

/// The `p`-norm of x1 - x2 + eps along the last dimension of their broadcast shape, as
/// torch.nn.functional.pairwise_distance 1.13 (the eps keeps the norm's gradient finite for
/// equal vectors): [N, D] and [N, D] (or [D]) give [N]; `keepdim` keeps that dimension with
/// size 1. The difference promotes as `-` (integers with the float eps: float32), then as
/// vector_norm (<hetero/norms.hpp>: its values, gradient and errors).
HETERO_API Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p = 2.0,
                                    double eps = 1e-6, bool keepdim = false);

}  // namespace hetero
