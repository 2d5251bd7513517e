// SPDX-License-Identifier: Apache-2.0
#include "openblas_gemm.hpp"

#include <cblas.h>

#include <algorithm>
#include <cstring>

#include <hetero/sdk/buffer.hpp>
#include <hetero/sdk/half.hpp>

#include <vector>

#include "strided_loop.hpp"

namespace hetero::cpu {
namespace {

template <class T, class Fn>
void run(const GemmArgs& a, Fn gemm_fn) {
  T* A = static_cast<T*>(a.a->handle()) + a.a_offset;
  T* B = static_cast<T*>(a.b->handle()) + a.b_offset;
  T* C = static_cast<T*>(a.c->handle()) + a.c_offset;
  for (std::int64_t b = 0; b < a.batch; ++b) {
    T* c = C + b * a.stride_c;
    // Row-major data passed with CblasRowMajor: OpenBLAS applies the transpose identity
    // C^T = B^T A^T itself, so lda/ldb/ldc are the row strides of the row-major matrices.
    gemm_fn(CblasRowMajor, a.trans_a ? CblasTrans : CblasNoTrans,
            a.trans_b ? CblasTrans : CblasNoTrans, static_cast<blasint>(a.m),
            static_cast<blasint>(a.n), static_cast<blasint>(a.k), static_cast<T>(a.alpha),
            A + b * a.stride_a, static_cast<blasint>(a.lda), B + b * a.stride_b,
            static_cast<blasint>(a.ldb), static_cast<T>(a.beta), c, static_cast<blasint>(a.ldc));
  }
}

// rows x cols row-major matrix at `src` (row stride ld) <-> dense float (row stride cols).
template <class H>
void widen(const H* src, std::int64_t rows, std::int64_t cols, std::int64_t ld, float* dst) {
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) dst[i * cols + j] = static_cast<float>(src[i * ld + j]);
}
template <class H>
void narrow(const float* src, std::int64_t rows, std::int64_t cols, std::int64_t ld, H* dst) {
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) dst[i * ld + j] = H(src[i * cols + j]);
}

// float16 / bfloat16: each batch's operands widened to float32, one cblas_sgemm
// (float32 accumulation, as torch on CPU), the result rounded to nearest even.
template <class H>
void run_half(const GemmArgs& a) {
  const H* A = static_cast<const H*>(a.a->handle()) + a.a_offset;
  const H* B = static_cast<const H*>(a.b->handle()) + a.b_offset;
  H* C = static_cast<H*>(a.c->handle()) + a.c_offset;
  const std::int64_t ar = a.trans_a ? a.k : a.m, ac = a.trans_a ? a.m : a.k;
  const std::int64_t br = a.trans_b ? a.n : a.k, bc = a.trans_b ? a.k : a.n;
  std::vector<float> fa(static_cast<std::size_t>(ar * ac)), fb(static_cast<std::size_t>(br * bc)),
      fc(static_cast<std::size_t>(a.m * a.n));
  for (std::int64_t b = 0; b < a.batch; ++b) {
    H* c = C + b * a.stride_c;
    if (a.beta != 0) widen(c, a.m, a.n, a.ldc, fc.data());
    widen(A + b * a.stride_a, ar, ac, a.lda, fa.data());
    widen(B + b * a.stride_b, br, bc, a.ldb, fb.data());
    cblas_sgemm(CblasRowMajor, a.trans_a ? CblasTrans : CblasNoTrans,
                a.trans_b ? CblasTrans : CblasNoTrans, static_cast<blasint>(a.m),
                static_cast<blasint>(a.n), static_cast<blasint>(a.k), static_cast<float>(a.alpha),
                fa.data(), static_cast<blasint>(ac), fb.data(), static_cast<blasint>(bc),
                static_cast<float>(a.beta), fc.data(), static_cast<blasint>(a.n));
    narrow(fc.data(), a.m, a.n, a.ldc, c);
  }
}

}  // namespace

void gemm(const GemmArgs& a) {
  switch (a.dtype) {
    case DType::float64:
      return run<double>(a, cblas_dgemm);
    case DType::float16:
      return run_half<Half>(a);
    case DType::bfloat16:
      return run_half<BFloat16>(a);
    default:
      return run<float>(a, cblas_sgemm);
  }
}

void set_blas_threads(int n) { openblas_set_num_threads(std::max(n, 1)); }

std::string blas_version() {
  return openblas_get_config();  // "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ..."
}

}  // namespace hetero::cpu
