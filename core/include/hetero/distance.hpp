// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file distance.hpp
/// cosine_similarity, as torch.nn.functional.cosine_similarity (torch 1.13's formula):
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

}  // namespace hetero
