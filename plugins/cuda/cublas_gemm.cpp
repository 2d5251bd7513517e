// SPDX-License-Identifier: Apache-2.0
#include "cublas_gemm.hpp"

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <string>
#include <type_traits>

#include <hetero/error.hpp>
#include <hetero/internal_assert.hpp>
#include <hetero/sdk/buffer.hpp>
#include <hetero/sdk/dtype_dispatch.hpp>

#include "cublas_library.hpp"

namespace hetero::cuda {
namespace {

// cuBLAS wants ld >= rows of the column-major matrix even where a single column makes
// ld meaningless; the core may pass any ld then.
std::int64_t fix_ld(std::int64_t ld, std::int64_t rows, std::int64_t cols) {
  return cols <= 1 ? std::max<std::int64_t>({ld, rows, 1}) : ld;
}

// The cuBLAS entry points of a dtype: cublas{S,D}gemm for one product and
// cublas{S,D}gemmStridedBatched for several (the batched entry points choose other
// kernels, measurably slower for one product at small n); the 32-bit ones when every size
// fits an int, the _64 ones otherwise.
template <class T>
struct GemmEntryPoints;
template <>
struct GemmEntryPoints<float> {
  static constexpr auto one32 = &CublasApi::sgemm32;
  static constexpr auto batched32 = &CublasApi::sgemm_strided_batched32;
  static constexpr auto one = &CublasApi::sgemm;
  static constexpr auto batched = &CublasApi::sgemm_strided_batched;
};
template <>
struct GemmEntryPoints<double> {
  static constexpr auto one32 = &CublasApi::dgemm32;
  static constexpr auto batched32 = &CublasApi::dgemm_strided_batched32;
  static constexpr auto one = &CublasApi::dgemm;
  static constexpr auto batched = &CublasApi::dgemm_strided_batched;
};

bool fits_int(std::initializer_list<std::int64_t> values) {
  for (const std::int64_t v : values)
    if (v > std::numeric_limits<int>::max()) return false;
  return true;
}

template <class T>
cublasStatus_t gemm(const CublasApi& api, cublasHandle_t h, cublasOperation_t ta,
                    cublasOperation_t tb, std::int64_t m, std::int64_t n, std::int64_t k,
                    const T* alpha, const T* a, std::int64_t lda, std::int64_t stride_a, const T* b,
                    std::int64_t ldb, std::int64_t stride_b, const T* beta, T* c, std::int64_t ldc,
                    std::int64_t stride_c, std::int64_t batch) {
  using E = GemmEntryPoints<T>;
  if (fits_int({m, n, k, lda, ldb, ldc, stride_a, stride_b, stride_c, batch})) {
    const auto i = [](std::int64_t v) { return static_cast<int>(v); };
    if (batch == 1)
      return (api.*E::one32)(h, ta, tb, i(m), i(n), i(k), alpha, a, i(lda), b, i(ldb), beta, c,
                             i(ldc));
    return (api.*E::batched32)(h, ta, tb, i(m), i(n), i(k), alpha, a, i(lda), stride_a, b, i(ldb),
                               stride_b, beta, c, i(ldc), stride_c, i(batch));
  }
  if (batch == 1) return (api.*E::one)(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  return (api.*E::batched)(h, ta, tb, m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b, beta, c,
                           ldc, stride_c, batch);
}

// float16 / bfloat16: cublasGemmEx / cublasGemmStridedBatchedEx with float32 accumulation
// (CUBLAS_COMPUTE_32F; alpha and beta are then float), as torch does; the 32-bit entry
// points when every size fits an int, as gemm() above.
cublasStatus_t half_gemm(const CublasApi& api, cudaDataType_t type, cublasHandle_t h,
                         cublasOperation_t ta, cublasOperation_t tb, std::int64_t m, std::int64_t n,
                         std::int64_t k, const float* alpha, const void* a, std::int64_t lda,
                         std::int64_t stride_a, const void* b, std::int64_t ldb,
                         std::int64_t stride_b, const float* beta, void* c, std::int64_t ldc,
                         std::int64_t stride_c, std::int64_t batch) {
  if (fits_int({m, n, k, lda, ldb, ldc, stride_a, stride_b, stride_c, batch})) {
    const auto i = [](std::int64_t v) { return static_cast<int>(v); };
    if (batch == 1)
      return api.gemm_ex32(h, ta, tb, i(m), i(n), i(k), alpha, a, type, i(lda), b, type, i(ldb),
                           beta, c, type, i(ldc), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    return api.gemm_strided_batched_ex32(
        h, ta, tb, i(m), i(n), i(k), alpha, a, type, i(lda), stride_a, b, type, i(ldb), stride_b,
        beta, c, type, i(ldc), stride_c, i(batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  }
  if (batch == 1)
    return api.gemm_ex(h, ta, tb, m, n, k, alpha, a, type, lda, b, type, ldb, beta, c, type, ldc,
                       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  return api.gemm_strided_batched_ex(h, ta, tb, m, n, k, alpha, a, type, lda, stride_a, b, type,
                                     ldb, stride_b, beta, c, type, ldc, stride_c, batch,
                                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

}  // namespace

void cublas_gemm(CudaDevice& device, const GemmArgs& args) {
  // cuBLAS is column-major and our data is row-major. A row-major r x c matrix is the
  // column-major c x r matrix with the same leading dimension, i.e. its transpose. So
  // the row-major product C = op(A) op(B) is computed as the column-major product
  //   C^T = op(B)^T op(A)^T   (n x m = (n x k)(k x m)),
  // which means: swap A and B, swap m and n, keep each operand's own transpose flag.
  const cublasOperation_t op_b = args.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = args.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  // Column-major shapes of the stored operands: B^T is (trans_b ? k x n : n x k), etc.
  const std::int64_t ldb =
      args.trans_b ? fix_ld(args.ldb, args.k, args.n) : fix_ld(args.ldb, args.n, args.k);
  const std::int64_t lda =
      args.trans_a ? fix_ld(args.lda, args.m, args.k) : fix_ld(args.lda, args.k, args.m);
  const std::int64_t ldc = fix_ld(args.ldc, args.n, args.m);
  device.with_cublas([&](const CublasApi& api, cublasHandle_t handle) {
    dispatch_dtype(args.dtype, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
        const float alpha = static_cast<float>(args.alpha), beta = static_cast<float>(args.beta);
        const std::size_t es = sizeof(T);
        const char* a = static_cast<const char*>(args.a->handle()) + args.a_offset * es;
        const char* b = static_cast<const char*>(args.b->handle()) + args.b_offset * es;
        char* c = static_cast<char*>(args.c->handle()) + args.c_offset * es;
        const cudaDataType_t type = std::is_same_v<T, Half> ? CUDA_R_16F : CUDA_R_16BF;
        HETERO_CUDA_CHECK(half_gemm(api, type, handle, op_b, op_a, args.n, args.m, args.k, &alpha,
                                    b, ldb, args.stride_b, a, lda, args.stride_a, &beta, c, ldc,
                                    args.stride_c, args.batch));
      } else if constexpr (!std::is_floating_point_v<T>) {
        HETERO_INTERNAL_ASSERT(false,
                               "cuda backend: gemm of " + std::string(dtype_name(args.dtype)));
      } else {
        const T alpha = static_cast<T>(args.alpha), beta = static_cast<T>(args.beta);
        const T* a = static_cast<const T*>(args.a->handle()) + args.a_offset;
        const T* b = static_cast<const T*>(args.b->handle()) + args.b_offset;
        T* c = static_cast<T*>(args.c->handle()) + args.c_offset;
        HETERO_CUDA_CHECK(gemm(api, handle, op_b, op_a, args.n, args.m, args.k, &alpha, b, ldb,
                               args.stride_b, a, lda, args.stride_a, &beta, c, ldc, args.stride_c,
                               args.batch));
      }
    });
  });
}

}  // namespace hetero::cuda
