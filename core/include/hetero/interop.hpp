// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file interop.hpp
/// Zero-copy interop: tensors over memory hetero does not own (from_blob, as torch's), and
/// DLPack (v0.6, <dlpack/dlpack.h> from libdlpack-dev) export and import, as
/// torch.utils.dlpack: a tensor passes to NumPy, PyTorch, JAX or CuPy and back without a
/// copy.
#include <cstdint>
#include <functional>
#include <vector>

#include <hetero/device.hpp>
#include <hetero/dtype.hpp>
#include <hetero/export.hpp>
#include <hetero/tensor.hpp>

struct DLManagedTensor;  // <dlpack/dlpack.h>

namespace hetero {

/// Called with the data pointer once no tensor uses the memory any more (from any thread).
using BlobDeleter = std::function<void(void*)>;

/// A tensor over `data`, which hetero does not own, as torch.from_blob: `shape`, element
/// `strides` (empty: contiguous row-major; >= 0, 0 for a broadcast dimension), `dtype`.
/// `deleter`, when given, is called once the last tensor (or view) using the memory is
/// gone; without one the caller keeps the memory alive longer than every such tensor.
/// Writes through the tensor write the memory. On cpu, host memory (pageable or pinned);
/// on another device, memory of that device (a device pointer for cuda), which its backend
/// adopts (Backend::adopt, plugin interface 3.7; it waits for the work queued on the memory
/// before calling the deleter); NotImplementedError naming the backend when it does not
/// adopt foreign memory (OpenCL) or predates 3.7. ValueError for a null
/// `data` with elements, negative strides, a strides/shape length mismatch, or a pointer
/// that is not the device's memory (cuda: host memory, pinned or not, or another GPU's);
/// ShapeError for a bad shape. The deleter is not called when this throws.
HETERO_API Tensor from_blob(void* data, const Shape& shape,
                            const std::vector<std::int64_t>& strides, DType dtype,
                            const Device& device = Device::cpu(), BlobDeleter deleter = {});
/// from_blob of a contiguous row-major block.
HETERO_API Tensor from_blob(void* data, const Shape& shape, DType dtype,
                            const Device& device = Device::cpu(), BlobDeleter deleter = {});

/// `t` as a DLPack tensor sharing its memory, as torch.utils.dlpack.to_dlpack: the caller
/// owns the result and calls its `deleter` when done (the memory stays alive until then).
/// Waits for the device's queued work first, so the consumer may read at once (DLPack 0.6
/// has no stream hand-off). The view's offset is folded into `data` (byte_offset 0), as
/// torch does. Devices: cpu (kDLCPU; pinned memory kDLCUDAHost) and cuda
/// (kDLCUDA, the device pointer). bool is exported as kDLUInt 8 (DLPack 0.6 has no bool
/// code; torch 1.13 does the same). Throws Error for an undefined tensor,
/// NotImplementedError for another device type.
HETERO_API DLManagedTensor* to_dlpack(const Tensor& t);
/// A tensor over a DLPack tensor's memory, as torch.utils.dlpack.from_dlpack: takes
/// ownership of `managed` (calls its deleter when the last tensor using it is gone, or
/// at once when this throws). kDLCPU and kDLCUDAHost memory become cpu tensors, kDLCUDA
/// memory a tensor on cuda:device_id (from_blob on that device: Backend::adopt); strides
/// NULL means row-major; byte_offset is honoured. DTypeError for a dtype hetero lacks
/// (complex, int16, lanes != 1, ...), NotImplementedError for other device types,
/// DeviceUnavailableError for a cuda device hetero cannot use, ValueError for null or
/// negative strides.
HETERO_API Tensor from_dlpack(DLManagedTensor* managed);

}  // namespace hetero
