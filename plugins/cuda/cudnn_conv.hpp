// SPDX-License-Identifier: Apache-2.0
#pragma once
// Backend::conv2d on cuDNN (issue #49 item 1's GPU row), as PyTorch's cudnn_convolution:
// the legacy convolution API of cuDNN 9 (cudnnConvolutionForward, ...BackwardData,
// ...BackwardFilter) with the algorithm cuDNN's heuristics rank first among those that are
// deterministic and whose workspace can be allocated, cached per geometry.
//
// Numerics (docs/semantics.md row 72): float32 runs on FMA kernels only (CUDNN_FMA_MATH:
// no TF32, as torch.backends.cudnn.allow_tf32 = False; hetero's cuBLAS GEMM is full float32
// too), float64 in float64, float16 with float32 accumulation on tensor cores. The backend
// sends no bfloat16 here (CudaBackend::supports); the code handles it as float16.
#include <array>
#include <cstdint>
#include <map>

#include <hetero/dtype.hpp>
#include <hetero/sdk/kernel_args.hpp>
#include <hetero/sdk/op_codes.hpp>

#include <cudnn.h>

namespace hetero::cuda {

class CudaDevice;

/// The algorithm chosen for one convolution geometry: cuDNN's algorithm number (of the
/// op's enumeration), its math type and workspace in bytes.
struct CudnnConvChoice {
  int algorithm = 0;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  std::size_t workspace = 0;
};

/// The per-device cache of CudnnConvChoice, by op, dtype and geometry (the key's 16
/// numbers are Conv2dArgs' fields with n replaced by the batch chunk). Not thread-safe:
/// used under the device's cuDNN mutex (CudaDevice::with_cudnn).
struct CudnnConvPlans {
  /// op, dtype, then n, c, h, w, o, groups, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow.
  using Key = std::array<std::int64_t, 18>;
  /// Past this many geometries the cache starts again (geometries that come and go, as the
  /// cpu plugin's oneDNN plans).
  static constexpr std::size_t kMaxChoices = 4096;
  std::map<Key, CudnnConvChoice> choices;
};

/// Queues `op` (forward, backward_input or backward_weight; see Backend::conv2d for the
/// operands a, b and out, dense NCHW device pointers of `dtype`) on `device`'s stream; the
/// device must be current. A batch whose tensors exceed cuDNN's int sizes runs in chunks of
/// images (the weight's gradient accumulated over them), as PyTorch does. Throws
/// NotImplementedError where one image or the weight exceeds 2^31 - 1 elements or cuDNN
/// has no algorithm for the geometry, DeviceUnavailableError where cuDNN cannot be loaded,
/// OutOfMemoryError where no algorithm's workspace can be allocated.
void cudnn_conv2d(CudaDevice& device, Conv2dOp op, const Conv2dArgs& args, DType dtype,
                  const void* a, const void* b, void* out);

}  // namespace hetero::cuda
