#include "clblast_gemm.hpp"

#include <clblast.h>

#include <hetero/error.hpp>

#include "cl_check.hpp"
#include "kernels.hpp"
#include "opencl_buffer.hpp"

namespace hetero::opencl {
namespace {

clblast::Transpose transpose(bool t) { return t ? clblast::Transpose::kYes : clblast::Transpose::kNo; }

template <class T>
void gemm_typed(cl_command_queue queue, const GemmArgs& g) {
  const auto m = static_cast<std::size_t>(g.m);
  const auto n = static_cast<std::size_t>(g.n);
  const auto k = static_cast<std::size_t>(g.k);
  const auto alpha = static_cast<T>(g.alpha);
  const auto beta = static_cast<T>(g.beta);
  clblast::StatusCode status;
  if (g.batch == 1) {
    status = clblast::Gemm<T>(clblast::Layout::kRowMajor, transpose(g.trans_a), transpose(g.trans_b), m, n, k,
                              alpha, mem_of(*g.a), static_cast<std::size_t>(g.a_offset),
                              static_cast<std::size_t>(g.lda), mem_of(*g.b), static_cast<std::size_t>(g.b_offset),
                              static_cast<std::size_t>(g.ldb), beta, mem_of(*g.c),
                              static_cast<std::size_t>(g.c_offset), static_cast<std::size_t>(g.ldc), &queue,
                              nullptr);
  } else {
    status = clblast::GemmStridedBatched<T>(
        clblast::Layout::kRowMajor, transpose(g.trans_a), transpose(g.trans_b), m, n, k, alpha, mem_of(*g.a),
        static_cast<std::size_t>(g.a_offset), static_cast<std::size_t>(g.lda), static_cast<std::size_t>(g.stride_a),
        mem_of(*g.b), static_cast<std::size_t>(g.b_offset), static_cast<std::size_t>(g.ldb),
        static_cast<std::size_t>(g.stride_b), beta, mem_of(*g.c), static_cast<std::size_t>(g.c_offset),
        static_cast<std::size_t>(g.ldc), static_cast<std::size_t>(g.stride_c), static_cast<std::size_t>(g.batch),
        &queue, nullptr);
  }
  if (status != clblast::StatusCode::kSuccess)
    fail_clblast(static_cast<int>(status), g.batch == 1 ? "clblast::Gemm" : "clblast::GemmStridedBatched",
                 __FILE__, __LINE__);
}

}  // namespace

void clblast_gemm(OpenClDevice& dev, const GemmArgs& g) {
  if (g.m == 0 || g.n == 0 || g.batch == 0) return;
  if (g.dtype == DType::float64 && !dev.fp64)
    throw DTypeError("opencl backend: float64 GEMM needs cl_khr_fp64, which device '" + dev.properties.name +
                     "' lacks");
  if (g.k == 0) return kernels::scale_gemm_output(dev, g);  // CLBlast rejects k = 0
  if (g.dtype == DType::float32) gemm_typed<float>(dev.stream.queue(), g);
  else if (g.dtype == DType::float64) gemm_typed<double>(dev.stream.queue(), g);
  else throw DTypeError("opencl backend: GEMM needs float32 or float64, got " + std::string(dtype_name(g.dtype)));
}

std::string clblast_version() {
  return "CLBlast " + std::to_string(CLBLAST_VERSION_MAJOR) + "." + std::to_string(CLBLAST_VERSION_MINOR) + "." +
         std::to_string(CLBLAST_VERSION_PATCH);
}

}  // namespace hetero::opencl
