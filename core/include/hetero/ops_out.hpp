// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file ops_out.hpp
/// add, sub, mul and div written into an existing tensor, as libtorch's at::add_out /
/// at::sub_out / at::mul_out / at::div_out (torch.mul(a, b, out=out)): no new tensor, so a
/// caller can fill a slice of a buffer it owns in one pass (DistributedDataParallel copies
/// each gradient into its bucket times 1 / world size this way, as torch's reducer does).
///
/// The rules, torch's (checked against torch 1.13 in tests/core/test_ops_out.cpp):
///  - a and b broadcast and promote as the ops of ops.hpp; the result is computed in their
///    result dtype and converted to out's. DTypeError when that conversion is one torch
///    refuses ("result type Float can't be cast to the desired output type Long"): floating
///    into an integer dtype, or anything but bool into bool.
///  - out must already have the broadcast shape (ShapeError naming both shapes), except that
///    an out with no elements takes it (as torch resizes an empty out; torch also resizes a
///    non-empty out of another shape with a deprecation warning, which hetero refuses). An
///    undefined out: Error.
///  - all three on one device (DeviceMismatchError).
///  - with grad mode on, Error when a, b or out requires grad (torch: "functions with out=...
///    arguments don't support automatic differentiation"); under NoGradGuard, nothing is
///    recorded, and out's version is bumped as by any in-place write.
///  - out may be a or b itself (the same elements, shape and strides); ValueError when it
///    shares only some memory with a or b where both are dense (contiguous, or a permutation
///    of contiguous such as a transpose; torch: "some elements of the input tensor and the
///    written-to tensor refer to a single memory location"), or when out itself is broadcast
///    (a stride 0 over more than one element). Other sharing geometries (interleaved strided
///    views of one storage) are computed through a temporary, so the result is always right.
/// Not thread-safe on out: one writer at a time, as any in-place write.
#include <hetero/export.hpp>
#include <hetero/tensor.hpp>

namespace hetero {

/// out = a + b, a - b, a * b, a / b (true division) element by element; returns out.
/// @{
HETERO_API Tensor& add_out(Tensor& out, const Tensor& a, const Tensor& b);
HETERO_API Tensor& sub_out(Tensor& out, const Tensor& a, const Tensor& b);
HETERO_API Tensor& mul_out(Tensor& out, const Tensor& a, const Tensor& b);
HETERO_API Tensor& div_out(Tensor& out, const Tensor& a, const Tensor& b);
/// @}

/// The same with a floating scalar as b, wrapped as torch wraps a Python float (a floating a
/// keeps its dtype, an integer or bool a computes in float32; ops.hpp's `a * s`).
/// @{
HETERO_API Tensor& add_out(Tensor& out, const Tensor& a, double b);
HETERO_API Tensor& sub_out(Tensor& out, const Tensor& a, double b);
HETERO_API Tensor& mul_out(Tensor& out, const Tensor& a, double b);
HETERO_API Tensor& div_out(Tensor& out, const Tensor& a, double b);
/// @}

}  // namespace hetero
