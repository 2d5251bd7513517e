// SPDX-License-Identifier: Apache-2.0
// CudnnLibrary (the plugin's lazily loaded cuDNN), from the plugin's own source: loading
// libcudnn, resolving its entry points and creating descriptors need no GPU, only the
// toolkit's library, so a misspelt or missing symbol fails on every machine that builds the
// plugin with cuDNN, not only at the first convolution on a GPU one.
#include <gtest/gtest.h>

#include <hetero/error.hpp>

#include "cudnn_library.hpp"

using hetero::cuda::CudnnApi;
using hetero::cuda::CudnnLibrary;

TEST(CudnnLibrary, ResolvesEveryEntryPointWithoutAGpu) {
  CudnnLibrary library;
  EXPECT_EQ(library.version(), 0u);
  ASSERT_TRUE(library.available()) << library.unavailable_reason();
  const CudnnApi& api = library.api();
  EXPECT_GE(library.version(), 90000u);
  EXPECT_EQ(library.unavailable_reason(), "");
  for (const void* fn : {reinterpret_cast<const void*>(api.get_version),
                         reinterpret_cast<const void*>(api.get_error_string),
                         reinterpret_cast<const void*>(api.create),
                         reinterpret_cast<const void*>(api.destroy),
                         reinterpret_cast<const void*>(api.set_stream),
                         reinterpret_cast<const void*>(api.create_tensor),
                         reinterpret_cast<const void*>(api.set_tensor_4d),
                         reinterpret_cast<const void*>(api.destroy_tensor),
                         reinterpret_cast<const void*>(api.create_filter),
                         reinterpret_cast<const void*>(api.set_filter_4d),
                         reinterpret_cast<const void*>(api.destroy_filter),
                         reinterpret_cast<const void*>(api.create_convolution),
                         reinterpret_cast<const void*>(api.set_convolution_2d),
                         reinterpret_cast<const void*>(api.set_group_count),
                         reinterpret_cast<const void*>(api.set_math_type),
                         reinterpret_cast<const void*>(api.destroy_convolution),
                         reinterpret_cast<const void*>(api.forward_algorithms),
                         reinterpret_cast<const void*>(api.forward),
                         reinterpret_cast<const void*>(api.backward_data_algorithms),
                         reinterpret_cast<const void*>(api.backward_data),
                         reinterpret_cast<const void*>(api.backward_filter_algorithms),
                         reinterpret_cast<const void*>(api.backward_filter)})
    EXPECT_NE(fn, nullptr);
  EXPECT_EQ(&library.api(), &api);  // loaded once
}

TEST(CudnnLibrary, DescribesTensorsAndConvolutionsWithoutAGpu) {
  CudnnLibrary library;
  ASSERT_TRUE(library.available()) << library.unavailable_reason();
  const CudnnApi& api = library.api();
  cudnnTensorDescriptor_t x = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  HETERO_CUDNN_CHECK(api, api.create_tensor(&x));
  HETERO_CUDNN_CHECK(api, api.set_tensor_4d(x, CUDNN_DATA_FLOAT, 2, 3, 5, 7, 105, 35, 7, 1));
  HETERO_CUDNN_CHECK(api, api.create_convolution(&conv));
  HETERO_CUDNN_CHECK(api, api.set_convolution_2d(conv, 1, 1, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION,
                                                 CUDNN_DATA_FLOAT));
  HETERO_CUDNN_CHECK(api, api.set_group_count(conv, 3));
  HETERO_CUDNN_CHECK(api, api.set_math_type(conv, CUDNN_FMA_MATH));
  // A negative size is cuDNN's CUDNN_STATUS_BAD_PARAM: a hetero::Error naming the call.
  try {
    HETERO_CUDNN_CHECK(api, api.set_tensor_4d(x, CUDNN_DATA_FLOAT, -1, 3, 5, 7, 105, 35, 7, 1));
    ADD_FAILURE() << "a negative size was accepted";
  } catch (const hetero::Error& e) {
    EXPECT_NE(std::string(e.what()).find("set_tensor_4d"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("BAD_PARAM"), std::string::npos) << e.what();
  }
  EXPECT_EQ(api.destroy_convolution(conv), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(api.destroy_tensor(x), CUDNN_STATUS_SUCCESS);
}

TEST(CudnnLibrary, StatusesMapToHeteroErrors) {
  CudnnLibrary library;
  ASSERT_TRUE(library.available()) << library.unavailable_reason();
  const CudnnApi& api = library.api();
  EXPECT_THROW(hetero::cuda::fail(api, CUDNN_STATUS_ALLOC_FAILED, "call", __FILE__, __LINE__),
               hetero::OutOfMemoryError);
  EXPECT_THROW(hetero::cuda::fail(api, CUDNN_STATUS_NOT_SUPPORTED, "call", __FILE__, __LINE__),
               hetero::NotImplementedError);
  // The rest (a bad parameter is a plugin defect: the core checked the arguments) is
  // hetero::Error itself.
  try {
    hetero::cuda::fail(api, CUDNN_STATUS_BAD_PARAM, "call", __FILE__, __LINE__);
  } catch (const hetero::OutOfMemoryError&) {
    ADD_FAILURE() << "BAD_PARAM as OutOfMemoryError";
  } catch (const hetero::NotImplementedError&) {
    ADD_FAILURE() << "BAD_PARAM as NotImplementedError";
  } catch (const hetero::Error& e) {
    EXPECT_NE(std::string(e.what()).find("call failed at"), std::string::npos) << e.what();
  }
}
