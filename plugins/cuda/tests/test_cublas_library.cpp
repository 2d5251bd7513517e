// SPDX-License-Identifier: Apache-2.0
// CublasLibrary (the plugin's lazily loaded cuBLAS), from the plugin's own source: loading
// libcublas and resolving its entry points needs no GPU, only the toolkit's library.
#include <gtest/gtest.h>

#include "cublas_library.hpp"

using hetero::cuda::CublasApi;
using hetero::cuda::CublasLibrary;

TEST(CublasLibrary, ResolvesEveryEntryPointWithoutAGpu) {
  CublasLibrary library;
  EXPECT_FALSE(library.loaded());
  const CublasApi& api = library.api();
  EXPECT_TRUE(library.loaded());
  EXPECT_NE(api.create, nullptr);
  EXPECT_NE(api.destroy, nullptr);
  EXPECT_NE(api.set_stream, nullptr);
  EXPECT_NE(api.sgemm32, nullptr);
  EXPECT_NE(api.dgemm32, nullptr);
  EXPECT_NE(api.sgemm_strided_batched32, nullptr);
  EXPECT_NE(api.dgemm_strided_batched32, nullptr);
  EXPECT_NE(api.gemm_ex32, nullptr);
  EXPECT_NE(api.gemm_strided_batched_ex32, nullptr);
  EXPECT_NE(api.sgemm, nullptr);
  EXPECT_NE(api.dgemm, nullptr);
  EXPECT_NE(api.gemm_ex, nullptr);
  EXPECT_NE(api.sgemm_strided_batched, nullptr);
  EXPECT_NE(api.dgemm_strided_batched, nullptr);
  EXPECT_NE(api.gemm_strided_batched_ex, nullptr);
  // The 32-bit and 64-bit entry points are different functions of the library.
  EXPECT_NE(reinterpret_cast<const void*>(api.sgemm32), reinterpret_cast<const void*>(api.sgemm));
  EXPECT_NE(reinterpret_cast<const void*>(api.gemm_ex32),
            reinterpret_cast<const void*>(api.gemm_ex));
  // A second call returns the same table without loading again.
  EXPECT_EQ(&library.api(), &api);
}
