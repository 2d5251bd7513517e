#include "blas.hpp"

#include <cblas.h>

#include <algorithm>
#include <cstring>

#include <hetero/sdk/buffer.hpp>

#include "strided_loop.hpp"

namespace hetero::cpu {
namespace {

template <class T>
void zero_or_scale(T* c, const GemmArgs& a) {
  for (std::int64_t i = 0; i < a.m; ++i)
    for (std::int64_t j = 0; j < a.n; ++j) {
      T& v = c[i * a.ldc + j];
      v = a.beta == 0 ? T(0) : static_cast<T>(a.beta * v);
    }
}

template <class T, class Fn>
void run(const GemmArgs& a, Fn gemm_fn) {
  T* A = static_cast<T*>(a.a->handle()) + a.a_offset;
  T* B = static_cast<T*>(a.b->handle()) + a.b_offset;
  T* C = static_cast<T*>(a.c->handle()) + a.c_offset;
  for (std::int64_t b = 0; b < a.batch; ++b) {
    T* c = C + b * a.stride_c;
    if (a.k == 0) {  // empty inner dimension: C = beta * C
      zero_or_scale(c, a);
      continue;
    }
    // Row-major data passed with CblasRowMajor: OpenBLAS applies the transpose identity
    // C^T = B^T A^T itself, so lda/ldb/ldc are the row strides of the row-major matrices.
    gemm_fn(CblasRowMajor, a.trans_a ? CblasTrans : CblasNoTrans, a.trans_b ? CblasTrans : CblasNoTrans,
            static_cast<blasint>(a.m), static_cast<blasint>(a.n), static_cast<blasint>(a.k),
            static_cast<T>(a.alpha), A + b * a.stride_a, static_cast<blasint>(a.lda),
            B + b * a.stride_b, static_cast<blasint>(a.ldb), static_cast<T>(a.beta), c,
            static_cast<blasint>(a.ldc));
  }
}

}  // namespace

void gemm(const GemmArgs& a) {
  if (a.m == 0 || a.n == 0 || a.batch == 0) return;
  if (a.dtype == DType::float64)
    run<double>(a, cblas_dgemm);
  else
    run<float>(a, cblas_sgemm);
}

void set_blas_threads(int n) { openblas_set_num_threads(std::max(n, 1)); }

std::string blas_version() {
  return openblas_get_config();  // "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ..."
}

}  // namespace hetero::cpu
