// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file tensor_upload.hpp
/// Tensors of the backend under test made from host values without asking the backend for
/// anything beyond memory and a copy: the kit's own set-up must not need a dtype or kernel
/// the backend declines (a device without float64 still runs every test it can; issue #44
/// item 18).
#include <string>
#include <string_view>
#include <vector>

#include <hetero/tensor.hpp>

namespace hetero::conformance {

/// A contiguous tensor of `dtype` and `shape` on `device` holding `values` (row-major),
/// converted on the host (pack(): exact for values in the dtype's range) and then copied
/// to the device in `dtype`, so no cast kernel runs. Throws ShapeError when the count does
/// not fill `shape`, and what the device's allocation throws.
Tensor upload(const std::vector<double>& values, const Shape& shape, DType dtype,
              const Device& device);

/// How a failure names a tensor result: describe_case(what, its dtype, its device, its
/// shape), e.g. "conv2d output float32 on cpu:0, shape [2, 4, 5, 5]".
std::string describe_result(std::string_view what, const Tensor& result);

}  // namespace hetero::conformance
