// gemm_scale_c: the k == 0 case of GEMM, C_b = beta * C_b (cuBLAS is not asked to handle
// an empty inner dimension). beta == 0 stores zeros without reading C, as BLAS.
#include "kernels.cuh"
#include "kernels.hpp"

namespace hetero::cuda::kernels {
namespace {

template <class T>
__global__ void scale_kernel(T* c, std::int64_t m, std::int64_t n, std::int64_t ldc,
                             std::int64_t stride_c, std::int64_t batch, T beta) {
  const std::int64_t total = batch * m * n;
  HETERO_GRID_STRIDE_LOOP(i, total) {
    const std::int64_t b = i / (m * n), r = (i / n) % m, col = i % n;
    T& x = c[b * stride_c + r * ldc + col];
    x = beta == T(0) ? T(0) : static_cast<T>(beta * x);
  }
}

}  // namespace

void gemm_scale_c(const GemmArgs& args, cudaStream_t stream) {
  const std::int64_t total = args.batch * args.m * args.n;
  if (total == 0) return;
  dispatch(args.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!is_floating_storage_v<T>) {
      throw DTypeError("cuda backend: gemm needs float32 or float64");
    } else {
      T* c = static_cast<T*>(args.c->handle()) + args.c_offset;
      scale_kernel<T><<<grid_for(total), kThreads, 0, stream>>>(c, args.m, args.n, args.ldc, args.stride_c,
                                                                args.batch, static_cast<T>(args.beta));
      HETERO_CUDA_CHECK_LAUNCH();
    }
  });
}

}  // namespace hetero::cuda::kernels
