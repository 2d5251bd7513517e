// SPDX-License-Identifier: Apache-2.0
// The opencl plugin where no OpenCL driver exists (run with OCL_ICD_VENDORS pointing at an
// empty directory, so the ICD loader finds no platform): it loads with 0 devices and the
// reason, try_gpu() falls back to cpu, and using opencl:0 is a DeviceUnavailableError
// naming the reason. Never skips.
#include <gtest/gtest.h>

#include <hetero/hetero.hpp>

using namespace hetero;

TEST(OpenClNoDriver, LoadsWithNoDeviceAndTheReason) {
  load_plugin(default_plugin_dir() + "/libhetero-cpu.so");  // HETERO_PLUGIN_DISCOVERY=0
  const BackendStatus s = load_plugin(HETERO_TEST_OPENCL_PLUGIN);
  EXPECT_TRUE(s.loaded);
  EXPECT_EQ(s.devices, 0);
  EXPECT_NE(s.reason.find("CL_PLATFORM_NOT_FOUND_KHR"), std::string::npos) << s.reason;
  EXPECT_EQ(device_count("opencl"), 0);
  EXPECT_EQ(try_gpu(), Device("cpu"));
  try {
    ones({2}, TensorOptions().device(Device("opencl:0")));
    FAIL() << "allocated on opencl:0 without a driver";
  } catch (const DeviceUnavailableError& e) {
    EXPECT_NE(std::string(e.what()).find("CL_PLATFORM_NOT_FOUND_KHR"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ((ones({2}) + ones({2})).sum().item<float>(), 4.0f);  // cpu unaffected
}
