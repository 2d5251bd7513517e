// SPDX-License-Identifier: Apache-2.0
#include "cudnn_conv.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include <hetero/error.hpp>
#include <hetero/internal_assert.hpp>

#include "cuda_device.hpp"
#include "cudnn_library.hpp"

namespace hetero::cuda {
namespace {

constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();

int as_int(std::int64_t v) { return static_cast<int>(v); }

cudnnDataType_t data_type(DType t) {
  switch (t) {
    case DType::float32:
      return CUDNN_DATA_FLOAT;
    case DType::float64:
      return CUDNN_DATA_DOUBLE;
    case DType::float16:
      return CUDNN_DATA_HALF;
    case DType::bfloat16:
      return CUDNN_DATA_BFLOAT16;
    default:
      break;
  }
  HETERO_INTERNAL_ASSERT(false, "cuda backend: cuDNN convolution of " + std::string(dtype_name(t)));
  return CUDNN_DATA_FLOAT;
}

// RAII for the three descriptors of one call (host objects: creating them costs
// microseconds, so they are not cached).
struct Descriptors {
  const CudnnApi& api;
  cudnnTensorDescriptor_t x = nullptr;  // the input [n, c, h, w]
  cudnnTensorDescriptor_t y = nullptr;  // the output [n, o, oh, ow]
  cudnnFilterDescriptor_t w = nullptr;  // the weight [o, c / groups, kh, kw]
  cudnnConvolutionDescriptor_t conv = nullptr;

  Descriptors(const CudnnApi& a, const Conv2dArgs& g, std::int64_t n, DType dtype) : api(a) {
    try {
      const cudnnDataType_t t = data_type(dtype);
      HETERO_CUDNN_CHECK(api, api.create_tensor(&x));
      HETERO_CUDNN_CHECK(api, api.create_tensor(&y));
      HETERO_CUDNN_CHECK(api, api.create_filter(&w));
      HETERO_CUDNN_CHECK(api, api.create_convolution(&conv));
      HETERO_CUDNN_CHECK(
          api, api.set_tensor_4d(x, t, as_int(n), as_int(g.c), as_int(g.h), as_int(g.w),
                                 as_int(g.c * g.h * g.w), as_int(g.h * g.w), as_int(g.w), 1));
      HETERO_CUDNN_CHECK(
          api, api.set_tensor_4d(y, t, as_int(n), as_int(g.o), as_int(g.oh), as_int(g.ow),
                                 as_int(g.o * g.oh * g.ow), as_int(g.oh * g.ow), as_int(g.ow), 1));
      HETERO_CUDNN_CHECK(
          api, api.set_filter_4d(w, t, CUDNN_TENSOR_NCHW, as_int(g.o), as_int(g.c / g.groups),
                                 as_int(g.kh), as_int(g.kw)));
      // float64 accumulates in float64, the rest in float32 (cuDNN's PSEUDO_HALF and
      // PSEUDO_BFLOAT16 configurations for the 16-bit dtypes).
      const cudnnDataType_t compute =
          dtype == DType::float64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
      HETERO_CUDNN_CHECK(api, api.set_convolution_2d(conv, as_int(g.ph), as_int(g.pw), as_int(g.sh),
                                                     as_int(g.sw), as_int(g.dh), as_int(g.dw),
                                                     CUDNN_CROSS_CORRELATION, compute));
      HETERO_CUDNN_CHECK(api, api.set_group_count(conv, as_int(g.groups)));
    } catch (...) {
      release();
      throw;
    }
  }
  ~Descriptors() { release(); }
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;

  void release() noexcept {
    if (conv) (void)api.destroy_convolution(conv);
    if (w) (void)api.destroy_filter(w);
    if (y) (void)api.destroy_tensor(y);
    if (x) (void)api.destroy_tensor(x);
    conv = nullptr;
    w = nullptr;
    x = y = nullptr;
  }
};

// The math type every algorithm of `dtype` runs with: float32 on FMA kernels only (no
// TF32), float64 by default, the 16-bit dtypes on tensor cores where an algorithm has them.
cudnnMathType_t math_for(DType dtype) {
  switch (dtype) {
    case DType::float32:
      return CUDNN_FMA_MATH;
    case DType::float64:
      return CUDNN_DEFAULT_MATH;
    default:
      return CUDNN_TENSOR_OP_MATH;
  }
}

// cuDNN's ranked algorithms for `op` (the heuristics of the _v7 queries, as PyTorch's
// default, non-benchmark mode) as (algorithm, status, math, memory, determinism).
struct Ranked {
  int algorithm;
  cudnnStatus_t status;
  cudnnMathType_t math;
  std::size_t memory;
  bool deterministic;
};

template <class Perf, class Query>
std::vector<Ranked> ranked(int count, Query&& query) {
  std::vector<Perf> perf(static_cast<std::size_t>(count));
  int returned = 0;
  query(count, &returned, perf.data());
  std::vector<Ranked> out;
  for (int i = 0; i < returned; ++i) {
    const Perf& p = perf[static_cast<std::size_t>(i)];
    out.push_back({static_cast<int>(p.algo), p.status, p.mathType, p.memory,
                   p.determinism == CUDNN_DETERMINISTIC});
  }
  return out;
}

std::vector<Ranked> rank(const CudnnApi& api, cudnnHandle_t h, Conv2dOp op, const Descriptors& d) {
  switch (op) {
    case Conv2dOp::forward:
      return ranked<cudnnConvolutionFwdAlgoPerf_t>(
          CUDNN_CONVOLUTION_FWD_ALGO_COUNT, [&](int n, int* got, auto* p) {
            HETERO_CUDNN_CHECK(api, api.forward_algorithms(h, d.x, d.w, d.conv, d.y, n, got, p));
          });
    case Conv2dOp::backward_input:
      return ranked<cudnnConvolutionBwdDataAlgoPerf_t>(
          CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, [&](int n, int* got, auto* p) {
            HETERO_CUDNN_CHECK(api,
                               api.backward_data_algorithms(h, d.w, d.y, d.conv, d.x, n, got, p));
          });
    case Conv2dOp::backward_weight:
      return ranked<cudnnConvolutionBwdFilterAlgoPerf_t>(
          CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, [&](int n, int* got, auto* p) {
            HETERO_CUDNN_CHECK(api,
                               api.backward_filter_algorithms(h, d.x, d.y, d.conv, d.w, n, got, p));
          });
    case Conv2dOp::forward_bias:
      break;
  }
  HETERO_INTERNAL_ASSERT(false, "cuda backend: cuDNN convolution op " + std::string(op_name(op)));
  return {};
}

// Whether a ranked algorithm may be used for `dtype`: it succeeds for the geometry, is
// deterministic (run-to-run identical results, as every other hetero kernel), and a float32
// one does not use TF32 tensor cores.
bool usable(const Ranked& r, DType dtype) {
  if (r.status != CUDNN_STATUS_SUCCESS || !r.deterministic) return false;
  if (dtype == DType::float32 || dtype == DType::float64)
    return r.math != CUDNN_TENSOR_OP_MATH && r.math != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
  return true;
}

std::string geometry(const Conv2dArgs& g, std::int64_t n) {
  auto s = [](std::int64_t v) { return std::to_string(v); };
  return "input [" + s(n) + ", " + s(g.c) + ", " + s(g.h) + ", " + s(g.w) + "], weight [" + s(g.o) +
         ", " + s(g.c / g.groups) + ", " + s(g.kh) + ", " + s(g.kw) + "], stride (" + s(g.sh) +
         ", " + s(g.sw) + "), padding (" + s(g.ph) + ", " + s(g.pw) + "), dilation (" + s(g.dh) +
         ", " + s(g.dw) + "), groups " + s(g.groups);
}

// One call of `op` on images [first, first + n) of the batch. `accumulate`: add into out
// (the weight's gradient over the second and later chunks).
void run_chunk(CudaDevice& device, const CudnnApi& api, cudnnHandle_t h, CudnnConvPlans& plans,
               Conv2dOp op, const Conv2dArgs& g, DType dtype, std::int64_t n, const void* a,
               const void* b, void* out, bool accumulate) {
  Descriptors d(api, g, n, dtype);
  const CudnnConvPlans::Key key{static_cast<std::int64_t>(op),
                                static_cast<std::int64_t>(dtype),
                                n,
                                g.c,
                                g.h,
                                g.w,
                                g.o,
                                g.groups,
                                g.kh,
                                g.kw,
                                g.sh,
                                g.sw,
                                g.ph,
                                g.pw,
                                g.dh,
                                g.dw,
                                g.oh,
                                g.ow};
  // The workspace of the chosen algorithm, from the device's pool: a block used only on the
  // device's stream is reusable once freed, after this call's work (stream order).
  CudaCachingAllocator& pool = device.allocator();
  CudaCachingAllocator::Block workspace{};
  // Returned to the pool when this call ends, normally or by an exception (the cache's
  // insertion below may throw after the block is taken).
  struct Release {
    CudaCachingAllocator& pool;
    CudaCachingAllocator::Block& block;
    ~Release() {
      if (block) pool.free(block, {});
    }
  } release{pool, workspace};
  CudnnConvChoice choice;
  if (auto it = plans.choices.find(key); it != plans.choices.end()) {
    choice = it->second;
    if (choice.workspace > 0) workspace = pool.allocate(choice.workspace);
  } else {
    HETERO_CUDNN_CHECK(api, api.set_math_type(d.conv, math_for(dtype)));
    bool found = false, out_of_memory = false;
    for (const Ranked& r : rank(api, h, op, d)) {
      if (!usable(r, dtype)) continue;
      if (r.memory > 0) {
        try {
          workspace = pool.allocate(r.memory);
        } catch (const OutOfMemoryError&) {
          out_of_memory = true;  // a later algorithm may need less
          continue;
        }
      }
      choice = {r.algorithm, dtype == DType::float32 ? CUDNN_FMA_MATH : r.math, r.memory};
      found = true;
      break;
    }
    if (!found) {
      const std::string what = std::string(op_name(op)) + " of " + std::string(dtype_name(dtype)) +
                               ", " + geometry(g, n);
      if (out_of_memory)
        throw OutOfMemoryError("cuda: no cuDNN algorithm's workspace fits in memory for " + what);
      throw NotImplementedError("cuda: cuDNN has no deterministic algorithm for " + what);
    }
    if (plans.choices.size() >= CudnnConvPlans::kMaxChoices) plans.choices.clear();
    plans.choices.emplace(key, choice);
  }
  HETERO_CUDNN_CHECK(api, api.set_math_type(d.conv, choice.math));
  const float one_f = 1, zero_f = 0;
  const double one_d = 1, zero_d = 0;
  const bool f64 = dtype == DType::float64;
  const void* alpha = f64 ? static_cast<const void*>(&one_d) : &one_f;
  const void* beta = accumulate ? alpha : f64 ? static_cast<const void*>(&zero_d) : &zero_f;
  switch (op) {
    case Conv2dOp::forward:
      HETERO_CUDNN_CHECK(api, api.forward(h, alpha, d.x, a, d.w, b, d.conv,
                                          static_cast<cudnnConvolutionFwdAlgo_t>(choice.algorithm),
                                          workspace.ptr, choice.workspace, beta, d.y, out));
      break;
    case Conv2dOp::backward_input:
      HETERO_CUDNN_CHECK(
          api, api.backward_data(h, alpha, d.w, b, d.y, a, d.conv,
                                 static_cast<cudnnConvolutionBwdDataAlgo_t>(choice.algorithm),
                                 workspace.ptr, choice.workspace, beta, d.x, out));
      break;
    case Conv2dOp::backward_weight:
      HETERO_CUDNN_CHECK(
          api, api.backward_filter(h, alpha, d.x, b, d.y, a, d.conv,
                                   static_cast<cudnnConvolutionBwdFilterAlgo_t>(choice.algorithm),
                                   workspace.ptr, choice.workspace, beta, d.w, out));
      break;
    case Conv2dOp::forward_bias:
      HETERO_INTERNAL_ASSERT(false, "cuda backend: cudnn_conv2d of forward_bias");
  }
}

}  // namespace

void cudnn_conv2d(CudaDevice& device, Conv2dOp op, const Conv2dArgs& g, DType dtype, const void* a,
                  const void* b, void* out) {
  // cuDNN's descriptors take int sizes and strides: one image and the weight must fit, and
  // the batch is split so that each chunk's input and output do.
  const std::int64_t in_image = g.c * g.h * g.w, out_image = g.o * g.oh * g.ow;
  const std::int64_t weight = g.o * (g.c / g.groups) * g.kh * g.kw;
  const std::int64_t largest =
      std::max({in_image, out_image, weight, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw});
  if (largest > kIntMax)
    throw NotImplementedError("cuda: " + std::string(op_name(op)) + " of " +
                              std::string(dtype_name(dtype)) +
                              ": one image, the weight or a window size exceeds cuDNN's 2^31 - 1 "
                              "elements (" +
                              geometry(g, g.n) + ")");
  const std::int64_t chunk =
      std::max<std::int64_t>(1, std::min(g.n, kIntMax / std::max(in_image, out_image)));
  const std::size_t es = element_size(dtype);
  device.with_cudnn([&](const CudnnApi& api, cudnnHandle_t h, CudnnConvPlans& plans) {
    for (std::int64_t first = 0; first < g.n; first += chunk) {
      const std::int64_t n = std::min(chunk, g.n - first);
      // The batched operands of this chunk: a is the input (forward) or the output's
      // gradient (backward_*); b the weight (forward, backward_input) or the input
      // (backward_weight); out the output, the input's gradient, or the weight's gradient.
      const auto at = [&](const void* p, std::int64_t per_image) {
        return static_cast<const char*>(p) + static_cast<std::size_t>(first * per_image) * es;
      };
      switch (op) {
        case Conv2dOp::forward:
          run_chunk(device, api, h, plans, op, g, dtype, n, at(a, in_image), b,
                    const_cast<char*>(at(out, out_image)), false);
          break;
        case Conv2dOp::backward_input:
          run_chunk(device, api, h, plans, op, g, dtype, n, at(a, out_image), b,
                    const_cast<char*>(at(out, in_image)), false);
          break;
        case Conv2dOp::backward_weight:
          run_chunk(device, api, h, plans, op, g, dtype, n, at(a, out_image), at(b, in_image), out,
                    first > 0);
          break;
        case Conv2dOp::forward_bias:
          HETERO_INTERNAL_ASSERT(false, "cuda backend: cudnn_conv2d of forward_bias");
      }
    }
  });
}

}  // namespace hetero::cuda
