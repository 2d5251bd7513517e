// SPDX-License-Identifier: Apache-2.0
// The cuda plugin's error-check generator and lost-device bookkeeping, linked from the
// plugin's own sources: these run without a GPU (the statuses are fed in directly).
#include <gtest/gtest.h>

#include <string>

#include <hetero/error.hpp>

#include "cuda_check.hpp"
#include "device_health.hpp"

using namespace hetero;

namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

template <class E, class Status>
std::string thrown_by(Status s) {
  try {
    HETERO_CUDA_CHECK(s);
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
    return {};
  }
  ADD_FAILURE() << "nothing thrown";
  return {};
}

}  // namespace

TEST(CudaCheck, SuccessDoesNotThrow) {
  EXPECT_NO_THROW(HETERO_CUDA_CHECK(cudaSuccess));
  EXPECT_NO_THROW(HETERO_CUDA_CHECK(CUBLAS_STATUS_SUCCESS));
}

TEST(CudaCheck, RuntimeErrorNamesCallFileLineNameAndText) {
  const std::string m = thrown_by<Error>(cudaErrorInvalidValue);
  EXPECT_TRUE(contains(m, "cudaErrorInvalidValue")) << m;
  EXPECT_TRUE(contains(m, "invalid argument")) << m;
  EXPECT_TRUE(contains(m, "test_cuda_check.cpp:")) << m;
  EXPECT_TRUE(contains(m, "HETERO_CUDA_CHECK") || contains(m, "s failed")) << m;
}

TEST(CudaCheck, AllocationFailuresAreOutOfMemory) {
  EXPECT_TRUE(contains(thrown_by<OutOfMemoryError>(cudaErrorMemoryAllocation),
                       "cudaErrorMemoryAllocation"));
  EXPECT_TRUE(contains(thrown_by<OutOfMemoryError>(CUBLAS_STATUS_ALLOC_FAILED),
                       "CUBLAS_STATUS_ALLOC_FAILED"));
}

TEST(CudaCheck, CublasStatusNamesItself) {
  const std::string m = thrown_by<Error>(CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_TRUE(contains(m, "CUBLAS_STATUS_INVALID_VALUE")) << m;
}

TEST(CudaCheck, StickyErrorsAreRecognised) {
  EXPECT_TRUE(cuda::is_sticky(cudaErrorIllegalAddress));
  EXPECT_TRUE(cuda::is_sticky(cudaErrorLaunchFailure));
  EXPECT_FALSE(cuda::is_sticky(cudaErrorMemoryAllocation));
  EXPECT_FALSE(cuda::is_sticky(cudaErrorInvalidValue));
}

TEST(CudaCheck, DeviceHealthKeepsTheFirstReasonAndFailsFast) {
  cuda::DeviceHealth health;
  EXPECT_NO_THROW(health.check(3));
  health.mark_lost(3, "cudaErrorIllegalAddress: an illegal memory access was encountered");
  health.mark_lost(3, "a later error");
  EXPECT_NO_THROW(health.check(2));  // other devices keep working
  try {
    health.check(3);
    FAIL() << "a lost device passed the check";
  } catch (const DeviceUnavailableError& e) {
    EXPECT_TRUE(contains(e.what(), "cuda:3")) << e.what();
    EXPECT_TRUE(contains(e.what(), "cudaErrorIllegalAddress")) << e.what();
    EXPECT_FALSE(contains(e.what(), "a later error")) << e.what();
  }
}

// Last: a sticky error marks the current device (here, without a GPU, "unknown": -1)
// lost in the plugin-wide record, so later calls on it fail fast.
TEST(CudaCheck, ZStickyErrorMarksTheCurrentDeviceLost) {
  const std::string m = thrown_by<DeviceUnavailableError>(cudaErrorIllegalAddress);
  EXPECT_TRUE(contains(m, "cudaErrorIllegalAddress")) << m;
  EXPECT_TRUE(contains(m, "lost")) << m;
  int device = -1;
  (void)cudaGetDevice(&device);
  (void)cudaGetLastError();
  EXPECT_THROW(cuda::device_health().check(device < 0 ? 0 : device), DeviceUnavailableError);
}
