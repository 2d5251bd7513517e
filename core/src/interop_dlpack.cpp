// SPDX-License-Identifier: Apache-2.0
// DLPack 0.6 export and import (as torch.utils.dlpack): export hands out the tensor's own
// memory with a context that keeps its storage alive; import wraps the producer's memory
// with from_blob, whose deleter calls the producer's.
#include <dlpack/dlpack.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <hetero/devices.hpp>
#include <hetero/error.hpp>
#include <hetero/interop.hpp>

#include "op_helpers.hpp"
#include "tensor_impl.hpp"

namespace hetero {
namespace {

// What an exported DLManagedTensor owns: the tensor (its storage) and the shape and
// strides arrays its DLTensor points to.
struct ExportContext {
  Tensor tensor;
  std::vector<std::int64_t> shape, strides;
  DLManagedTensor managed{};
};

DLDataType dl_dtype(DType t) {
  const auto bits = static_cast<std::uint8_t>(element_size(t) * 8);
  switch (t) {
    case DType::float16:
    case DType::float32:
    case DType::float64:
      return {kDLFloat, bits, 1};
    case DType::bfloat16:
      return {kDLBfloat, bits, 1};
    case DType::int8:
    case DType::int32:
    case DType::int64:
      return {kDLInt, bits, 1};
    case DType::uint8:
    case DType::bool_:  // DLPack 0.6 has no bool code (torch 1.13 exports kDLUInt 8 too)
      return {kDLUInt, bits, 1};
  }
  throw DTypeError("to_dlpack: dtype " + std::string(dtype_name(t)) + " has no DLPack code");
}

DType from_dl_dtype(const DLDataType& d) {
  if (d.lanes == 1) {
    if (d.code == kDLFloat && d.bits == 16) return DType::float16;
    if (d.code == kDLFloat && d.bits == 32) return DType::float32;
    if (d.code == kDLFloat && d.bits == 64) return DType::float64;
    if (d.code == kDLBfloat && d.bits == 16) return DType::bfloat16;
    if (d.code == kDLInt && d.bits == 8) return DType::int8;
    if (d.code == kDLInt && d.bits == 32) return DType::int32;
    if (d.code == kDLInt && d.bits == 64) return DType::int64;
    if (d.code == kDLUInt && d.bits == 8) return DType::uint8;
  }
  throw DTypeError("from_dlpack: DLPack dtype (code " + std::to_string(d.code) + ", " +
                   std::to_string(d.bits) + " bits, " + std::to_string(d.lanes) +
                   " lanes) has no hetero dtype");
}

}  // namespace

DLManagedTensor* to_dlpack(const Tensor& t) {
  const detail::TensorImpl& impl = detail::impl_of(t, "to_dlpack");
  const Device device = t.device();
  DLDevice dl_device{};
  if (device.is_cpu())
    dl_device = {t.is_pinned() ? kDLCUDAHost : kDLCPU, 0};
  else if (device.type() == "cuda")
    dl_device = {kDLCUDA, device.index()};
  else
    throw NotImplementedError("to_dlpack: tensors on " + device.str() +
                              " have no DLPack device type hetero exports (cpu and cuda do)");
  const DLDataType dtype = dl_dtype(t.dtype());
  synchronize(device);  // the consumer reads at once: DLPack 0.6 has no stream hand-off
  auto ctx = std::make_unique<ExportContext>();
  ctx->tensor = t;
  ctx->shape.assign(t.shape().begin(), t.shape().end());
  ctx->strides = t.strides();
  const detail::Storage& storage = *impl.storage;
  DLTensor& dl = ctx->managed.dl_tensor;
  // The view's offset folded into `data` and byte_offset 0, as torch's to_dlpack does:
  // torch 1.13's from_dlpack ignores byte_offset.
  dl.data = t.numel() == 0 ? nullptr
                           : static_cast<char*>(storage.buffer->handle()) +
                                 detail::view_of(t).offset * element_size(t.dtype());
  dl.device = dl_device;
  dl.ndim = static_cast<std::int32_t>(t.dim());
  dl.dtype = dtype;
  dl.shape = ctx->shape.data();
  dl.strides = ctx->strides.data();
  dl.byte_offset = 0;
  ctx->managed.manager_ctx = ctx.get();
  ctx->managed.deleter = [](DLManagedTensor* self) {
    delete static_cast<ExportContext*>(self->manager_ctx);
  };
  return &ctx.release()->managed;
}

Tensor from_dlpack(DLManagedTensor* managed) {
  if (managed == nullptr) throw ValueError("from_dlpack: the DLManagedTensor is null");
  // Owned from here: the producer's deleter runs once, when the tensor goes or now on an
  // error (whichever of from_blob's buffer and this function's handler gets there first).
  auto once = std::make_shared<std::once_flag>();
  auto release = [managed, once](void*) {
    std::call_once(*once, [managed] {
      if (managed->deleter) managed->deleter(managed);
    });
  };
  try {
    const DLTensor& dl = managed->dl_tensor;
    Device device = Device::cpu();
    if (dl.device.device_type == kDLCUDA)
      device = Device("cuda", dl.device.device_id);  // adopted by the cuda backend
    else if (dl.device.device_type != kDLCPU && dl.device.device_type != kDLCUDAHost)
      throw NotImplementedError("from_dlpack: DLPack device type " +
                                std::to_string(dl.device.device_type) +
                                " (kDLCPU, kDLCUDAHost and kDLCUDA memory can be imported)");
    const DType dtype = from_dl_dtype(dl.dtype);
    if (dl.ndim < 0 || (dl.ndim > 0 && dl.shape == nullptr))
      throw ValueError("from_dlpack: ndim " + std::to_string(dl.ndim) + " without a shape");
    const Shape shape(dl.shape, dl.shape + dl.ndim);
    std::vector<std::int64_t> strides;
    if (dl.strides != nullptr) strides.assign(dl.strides, dl.strides + dl.ndim);
    // A null data pointer stays null whatever the offset (from_blob refuses it with
    // elements), and an offset that wraps the address space is refused, not followed.
    const auto base = reinterpret_cast<std::uintptr_t>(dl.data);
    if (dl.data != nullptr && dl.byte_offset > std::numeric_limits<std::uintptr_t>::max() - base)
      throw ValueError("from_dlpack: byte_offset " + std::to_string(dl.byte_offset) +
                       " wraps the address space past data");
    auto* data = dl.data == nullptr ? nullptr : static_cast<char*>(dl.data) + dl.byte_offset;
    return from_blob(data, shape, strides, dtype, device, release);
  } catch (...) {
    release(nullptr);
    throw;
  }
}

}  // namespace hetero
