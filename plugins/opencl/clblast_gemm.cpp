// SPDX-License-Identifier: Apache-2.0
#include "clblast_gemm.hpp"

#include <clblast.h>

#include <algorithm>
#include <memory>

#include <hetero/error.hpp>
#include <hetero/internal_assert.hpp>

#include "kernels.hpp"
#include "opencl_buffer.hpp"
#include "opencl_check.hpp"
#include "opencl_memory.hpp"

namespace hetero::opencl {
namespace {

clblast::Transpose transpose(bool t) {
  return t ? clblast::Transpose::kYes : clblast::Transpose::kNo;
}

template <class T>
void gemm_typed(cl_command_queue queue, const GemmArgs& g) {
  const auto m = static_cast<std::size_t>(g.m);
  const auto n = static_cast<std::size_t>(g.n);
  const auto k = static_cast<std::size_t>(g.k);
  const auto alpha = static_cast<T>(g.alpha);
  const auto beta = static_cast<T>(g.beta);
  clblast::StatusCode status;
  if (g.batch == 1) {
    status = clblast::Gemm<T>(
        clblast::Layout::kRowMajor, transpose(g.trans_a), transpose(g.trans_b), m, n, k, alpha,
        mem_of(*g.a), static_cast<std::size_t>(g.a_offset), static_cast<std::size_t>(g.lda),
        mem_of(*g.b), static_cast<std::size_t>(g.b_offset), static_cast<std::size_t>(g.ldb), beta,
        mem_of(*g.c), static_cast<std::size_t>(g.c_offset), static_cast<std::size_t>(g.ldc), &queue,
        nullptr);
  } else {
    status = clblast::GemmStridedBatched<T>(
        clblast::Layout::kRowMajor, transpose(g.trans_a), transpose(g.trans_b), m, n, k, alpha,
        mem_of(*g.a), static_cast<std::size_t>(g.a_offset), static_cast<std::size_t>(g.lda),
        static_cast<std::size_t>(g.stride_a), mem_of(*g.b), static_cast<std::size_t>(g.b_offset),
        static_cast<std::size_t>(g.ldb), static_cast<std::size_t>(g.stride_b), beta, mem_of(*g.c),
        static_cast<std::size_t>(g.c_offset), static_cast<std::size_t>(g.ldc),
        static_cast<std::size_t>(g.stride_c), static_cast<std::size_t>(g.batch), &queue, nullptr);
  }
  if (status != clblast::StatusCode::kSuccess)
    fail_clblast(static_cast<int>(status),
                 g.batch == 1 ? "clblast::Gemm" : "clblast::GemmStridedBatched", __FILE__,
                 __LINE__);
}

// A float32 scratch buffer of `count` elements on `dev`, from its pool (given back when
// dropped; reused only by work queued after the GEMM that uses it).
std::unique_ptr<OpenClBuffer> scratch(OpenClDevice& dev, std::int64_t count) {
  const std::size_t bytes =
      static_cast<std::size_t>(std::max<std::int64_t>(count, 1)) * sizeof(float);
  return allocate_buffer(dev, bytes, "float32 scratch for a 16-bit GEMM");
}

// View of `batches` row-major rows x cols matrices at `offset` with leading dimension
// `ld` and batch stride `stride` (elements).
StridedView matrices(Buffer* b, DType t, std::int64_t offset, std::int64_t batches,
                     std::int64_t stride, std::int64_t rows, std::int64_t cols, std::int64_t ld) {
  StridedView v;
  v.buffer = b;
  v.offset = offset;
  v.dtype = t;
  v.ndim = 3;
  v.shape = {batches, rows, cols};
  v.strides = {stride, ld, 1};
  return v;
}

// float16 / bfloat16 (CLBlast has no bfloat16, and its float16 needs cl_khr_fp16): the
// operands are widened to float32 by the convert kernel, one float32 CLBlast GEMM
// accumulates, and the result is rounded back into C (nearest even).
void gemm_half(OpenClDevice& dev, const GemmArgs& g) {
  const std::int64_t ar = g.trans_a ? g.k : g.m, ac = g.trans_a ? g.m : g.k;
  const std::int64_t br = g.trans_b ? g.n : g.k, bc = g.trans_b ? g.k : g.n;
  // A broadcast operand (batch stride 0) is widened once.
  const std::int64_t na = g.stride_a == 0 ? 1 : g.batch, nb = g.stride_b == 0 ? 1 : g.batch;
  auto fa = scratch(dev, na * ar * ac), fb = scratch(dev, nb * br * bc),
       fc = scratch(dev, g.batch * g.m * g.n);
  const auto widen = [&](Buffer* src, std::int64_t off, std::int64_t n, std::int64_t stride,
                         std::int64_t r, std::int64_t c, std::int64_t ld, OpenClBuffer& dst) {
    kernels::cast(dev, matrices(src, g.dtype, off, n, stride, r, c, ld),
                  matrices(&dst, DType::float32, 0, n, r * c, r, c, c));
  };
  widen(g.a, g.a_offset, na, g.stride_a, ar, ac, g.lda, *fa);
  widen(g.b, g.b_offset, nb, g.stride_b, br, bc, g.ldb, *fb);
  const StridedView c_view =
      matrices(g.c, g.dtype, g.c_offset, g.batch, g.stride_c, g.m, g.n, g.ldc);
  const StridedView fc_view =
      matrices(fc.get(), DType::float32, 0, g.batch, g.m * g.n, g.m, g.n, g.n);
  if (g.beta != 0) kernels::cast(dev, c_view, fc_view);
  GemmArgs f = g;
  f.dtype = DType::float32;
  f.a = fa.get();
  f.a_offset = 0;
  f.lda = std::max<std::int64_t>(ac, 1);
  f.stride_a = na == 1 ? 0 : ar * ac;
  f.b = fb.get();
  f.b_offset = 0;
  f.ldb = std::max<std::int64_t>(bc, 1);
  f.stride_b = nb == 1 ? 0 : br * bc;
  f.c = fc.get();
  f.c_offset = 0;
  f.ldc = g.n;
  f.stride_c = g.m * g.n;
  gemm_typed<float>(dev.stream.queue(), f);
  kernels::cast(dev, fc_view, c_view);
}

}  // namespace

void clblast_gemm(OpenClDevice& dev, const GemmArgs& g) {
  if (g.dtype == DType::float32)
    gemm_typed<float>(dev.stream.queue(), g);
  else if (g.dtype == DType::float64)
    gemm_typed<double>(dev.stream.queue(), g);
  else if (is_half(g.dtype))
    gemm_half(dev, g);
  else
    HETERO_INTERNAL_ASSERT(false, "opencl backend: gemm of " + std::string(dtype_name(g.dtype)));
}

std::string clblast_version() {
  return "CLBlast " + std::to_string(CLBLAST_VERSION_MAJOR) + "." +
         std::to_string(CLBLAST_VERSION_MINOR) + "." + std::to_string(CLBLAST_VERSION_PATCH);
}

}  // namespace hetero::opencl
