// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <unordered_set>

#include <hetero/hetero.hpp>

#include "cpu_only.hpp"

using namespace hetero;

TEST(Device, ParsesPrintsAndCompares) {
  EXPECT_EQ(Device("cpu").str(), "cpu");
  EXPECT_EQ(Device("cuda").str(), "cuda:0");
  EXPECT_EQ(Device("cuda:1").str(), "cuda:1");
  EXPECT_EQ(Device("cuda"), Device("cuda:0"));
  EXPECT_EQ(Device::cuda(1), Device("cuda:1"));
  EXPECT_EQ(Device("cpu:0"), Device::cpu());
  EXPECT_NE(Device("cuda:0"), Device("cuda:1"));
  EXPECT_EQ(Device("opencl:12").index(), 12);
  std::ostringstream os;
  os << Device("cpu") << ' ' << Device("cuda") << ' ' << Device("cuda:1") << ' '
     << std::vector<Device>{Device("cuda:0"), Device("cuda:1")};
  EXPECT_EQ(os.str(), "cpu cuda:0 cuda:1 [cuda:0, cuda:1]");
  std::unordered_set<Device> set{Device("cuda"), Device("cuda:0"), Device("cpu")};
  EXPECT_EQ(set.size(), 2u);
}

TEST(Device, MalformedTextThrowsNamingIt) {
  for (const char* bad : {"", "cuda:-1", "gpu:x", "cuda:0:1", "CUDA", "cuda:", ":1", "cu da",
                          "cuda:1x", "cuda:99999999999"}) {
    try {
      Device d(bad);
      FAIL() << "accepted '" << bad << "'";
    } catch (const InvalidDeviceError& e) {
      EXPECT_NE(std::string(e.what()).find("'" + std::string(bad) + "'"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_THROW(Device("cuda", -1), InvalidDeviceError);
  EXPECT_THROW(Device::cuda(-2), InvalidDeviceError);
}

TEST(Device, CountsAndFallbacksWithoutGpu) {
  test::CpuOnlyScope cpu_only;  // the no-GPU behaviour, on machines with GPUs too
  EXPECT_EQ(device_count("cuda"), 0);
  EXPECT_EQ(device_count("no_such_backend"), 0);
  EXPECT_EQ(device_count("cpu"), 1);
  EXPECT_EQ(num_gpus(), 0);
  EXPECT_EQ(try_gpu(), Device("cpu"));
  EXPECT_EQ(try_gpu(10), Device("cpu"));
  EXPECT_EQ(try_all_gpus(), std::vector<Device>{Device("cpu")});
}

TEST(Device, RequireGpuTurnsFallbackIntoError) {
  test::CpuOnlyScope cpu_only;  // the no-GPU behaviour, on machines with GPUs too
  ::setenv("HETERO_REQUIRE_GPU", "1", 1);
  EXPECT_THROW(try_gpu(), DeviceUnavailableError);
  EXPECT_THROW(try_all_gpus(), DeviceUnavailableError);
  ::unsetenv("HETERO_REQUIRE_GPU");
  EXPECT_EQ(try_gpu(), Device("cpu"));
}

TEST(Device, IndexOutOfRangeAndMissingBackendAreTypedErrors) {
  test::CpuOnlyScope cpu_only;  // the no-GPU behaviour, on machines with GPUs too
  try {
    ones({2}, Device("cpu:7"));
    FAIL();
  } catch (const InvalidDeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("cpu:7"), std::string::npos) << e.what();
  }
  try {
    ones({2}, Device("cuda:0"));
    FAIL();
  } catch (const DeviceUnavailableError& e) {
    EXPECT_NE(std::string(e.what()).find("cuda:0"), std::string::npos) << e.what();
  }
  EXPECT_THROW(device_info(Device("cuda:0")), DeviceUnavailableError);
  EXPECT_EQ(ones({1}).item<float>(), 1.0f);  // and the process goes on
}

TEST(Device, GuardScopesTheDefaultDevice) {
  test::CpuOnlyScope cpu_only;  // the no-GPU behaviour, on machines with GPUs too
  EXPECT_EQ(default_device(), Device("cpu"));
  {
    DeviceGuard g(Device("cuda:3"));
    EXPECT_EQ(default_device(), Device("cuda:3"));
    {
      DeviceGuard inner(Device("cpu"));
      EXPECT_EQ(zeros({1}).device(), Device("cpu"));
    }
    EXPECT_EQ(default_device(), Device("cuda:3"));
    EXPECT_THROW(zeros({1}), DeviceUnavailableError);
  }
  EXPECT_EQ(default_device(), Device("cpu"));
  set_default_device(Device("cuda:1"));
  EXPECT_EQ(default_device(), Device("cuda:1"));
  set_default_device(Device("cpu"));
}

TEST(Device, InfoDescribesTheCpu) {
  const auto info = device_info(Device("cpu"));
  EXPECT_EQ(info.backend, "cpu");
  EXPECT_FALSE(info.properties.name.empty());
  EXPECT_EQ(info.properties.kind, DeviceKind::cpu);
  EXPECT_GT(info.properties.total_memory, 0u);
}
