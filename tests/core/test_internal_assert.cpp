// SPDX-License-Identifier: Apache-2.0
// HETERO_INTERNAL_ASSERT: a broken invariant is an InternalError naming where and what.
#include <gtest/gtest.h>

#include <hetero/hetero.hpp>
#include <hetero/internal_assert.hpp>
#include <hetero/sdk/backend.hpp>
#include <hetero/sdk/find_backend.hpp>

using namespace hetero;

TEST(InternalAssert, ThrowsInternalErrorWithFileLineConditionAndMessage) {
  const int three = 3;
  try {
    HETERO_INTERNAL_ASSERT(three == 4, "three is " + std::to_string(three));
    FAIL() << "no error";
  } catch (const InternalError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("test_internal_assert.cpp:"), std::string::npos) << what;
    EXPECT_NE(what.find("three == 4: three is 3"), std::string::npos) << what;
    EXPECT_NE(what.find("please report it"), std::string::npos) << what;
  }
}

TEST(InternalAssert, MessageIsBuiltOnlyOnFailure) {
  int evaluated = 0;
  auto message = [&] {
    ++evaluated;
    return std::string("x");
  };
  HETERO_INTERNAL_ASSERT(evaluated == 0, message());
  EXPECT_EQ(evaluated, 0);
}

TEST(InternalAssert, CpuBackendReportsADeviceIndexTheCoreShouldHaveRejected) {
  const std::shared_ptr<Backend> cpu = find_backend("cpu");
  ASSERT_NE(cpu, nullptr);
  EXPECT_THROW(cpu->default_stream(cpu->device_count()), InternalError);
  EXPECT_THROW(cpu->default_stream(-1), InternalError);
}
