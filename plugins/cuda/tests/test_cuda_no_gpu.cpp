// SPDX-License-Identifier: Apache-2.0
// The cuda plugin without a usable GPU (no driver here and in CI; every device hidden by
// CUDA_VISIBLE_DEVICES=-1 on a GPU machine): it loads, reports 0 devices and why, and
// every GPU path falls back or fails clearly. test_cuda_gpu.cpp covers the GPU paths.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <hetero/hetero.hpp>

using namespace hetero;
namespace fs = std::filesystem;

namespace {

BackendStatus cuda_status() {
  for (const auto& s : backend_status())
    if (s.name == "cuda" && s.loaded) return s;
  ADD_FAILURE() << "the cuda plugin was not loaded; records:";
  for (const auto& s : backend_status())
    ADD_FAILURE() << s.name << " " << s.path << ": " << s.reason;
  return {};
}

class CudaWithoutGpu : public ::testing::Test {
 protected:
  // CTest runs this binary with CUDA_VISIBLE_DEVICES=-1, so the no-device path is what
  // the plugin sees on every machine, with or without a GPU.
  void SetUp() override {
    status_ = cuda_status();
    ASSERT_EQ(status_.devices, 0) << "run with CUDA_VISIBLE_DEVICES=-1 (as ctest does)";
  }
  BackendStatus status_;
};

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

TEST_F(CudaWithoutGpu, LoadsWithZeroDevicesAndTheCudaReason) {
  EXPECT_EQ(status_.devices, 0);
  // e.g. "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA
  // runtime version" or "cudaErrorNoDevice: no CUDA-capable device is detected".
  EXPECT_EQ(status_.reason.rfind("cudaError", 0), 0u) << status_.reason;
  EXPECT_TRUE(contains(status_.reason, ": ")) << status_.reason;
  EXPECT_TRUE(contains(status_.vendor_libraries, "CUDA runtime")) << status_.vendor_libraries;
  EXPECT_TRUE(contains(status_.vendor_libraries, "cuBLAS")) << status_.vendor_libraries;
}

TEST_F(CudaWithoutGpu, LoadingThePluginDoesNotMapCublas) {
  // cuBLAS (libcublas + libcublasLt, ~600 MB) is loaded at the first GEMM, not when the
  // plugin is: listing devices stays cheap (bench_startup). The plugin is loaded here.
  std::ifstream maps("/proc/self/maps");
  const std::string text((std::istreambuf_iterator<char>(maps)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(contains(text, "libhetero-cuda.so"));
  EXPECT_FALSE(contains(text, "libcublas")) << "loading the cuda plugin mapped cuBLAS";
}

TEST_F(CudaWithoutGpu, DeviceCountsAndTryGpuFallBackToCpu) {
  EXPECT_EQ(device_count("cuda"), 0);
  EXPECT_EQ(num_gpus(), 0);
  EXPECT_EQ(try_gpu(), Device::cpu());
  EXPECT_EQ(try_gpu(1), Device::cpu());
  EXPECT_EQ(try_all_gpus(), std::vector<Device>{Device::cpu()});
  Tensor x = ones({2, 3}, try_gpu());
  EXPECT_EQ(x.device(), Device::cpu());
}

TEST_F(CudaWithoutGpu, AllocatingOnCudaThrowsDeviceUnavailableWithTheReason) {
  for (const char* text : {"cuda", "cuda:0", "cuda:1"}) {
    try {
      (void)ones({2, 3}, Device(text));
      FAIL() << "allocated on " << text;
    } catch (const DeviceUnavailableError& e) {
      EXPECT_TRUE(contains(e.what(), Device(text).str())) << e.what();
      EXPECT_TRUE(contains(e.what(), status_.reason)) << e.what();
    }
  }
  EXPECT_THROW((void)tensor({1.0f, 2.0f}).cuda(), DeviceUnavailableError);
  EXPECT_THROW(synchronize(Device("cuda:0")), DeviceUnavailableError);
  EXPECT_THROW((void)memory_stats(Device("cuda:0")), DeviceUnavailableError);
  EXPECT_EQ((ones({2}) + ones({2})).sum().item<float>(), 4.0f);  // cpu unaffected
}

TEST_F(CudaWithoutGpu, RequireGpuTurnsTheFallbackIntoAnErrorWithTheReason) {
  ::setenv("HETERO_REQUIRE_GPU", "1", 1);
  try {
    (void)try_gpu();
    ADD_FAILURE() << "try_gpu() fell back although HETERO_REQUIRE_GPU=1";
  } catch (const DeviceUnavailableError& e) {
    EXPECT_TRUE(contains(e.what(), status_.reason)) << e.what();
  }
  ::unsetenv("HETERO_REQUIRE_GPU");
}

TEST_F(CudaWithoutGpu, PinMemoryNeedsADeviceAndSaysSo) {
  Tensor x = arange(6, TensorOptions().dtype(DType::float32));
  EXPECT_FALSE(x.is_pinned());
  try {
    (void)x.pin_memory();
    FAIL() << "pinned memory without any device that provides it";
  } catch (const DeviceUnavailableError& e) {
    EXPECT_TRUE(contains(e.what(), "pin_memory")) << e.what();
  }
}

TEST(CudaPlugin, WithoutLibcudartIsNotLoadedAndTheProcessGoesOn) {
  // A copy of the plugin whose DT_NEEDED entry names a library that does not exist
  // (same length, so the ELF layout is unchanged): what a machine without the CUDA
  // runtime looks like to the loader.
  std::ifstream in(HETERO_TEST_CUDA_PLUGIN, std::ios::binary);
  ASSERT_TRUE(in) << HETERO_TEST_CUDA_PLUGIN;
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string needed = "libcudart.so.", absent = "libcudaXX.so.";
  std::size_t replaced = 0;
  for (auto pos = bytes.find(needed); pos != std::string::npos;
       pos = bytes.find(needed, pos + 1), ++replaced)
    bytes.replace(pos, needed.size(), absent);
  ASSERT_GT(replaced, 0u) << "the plugin does not name libcudart";
  const fs::path dir =
      fs::temp_directory_path() / ("hetero_no_cudart_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path copy = dir / "libhetero-cuda.so";
  std::ofstream(copy, std::ios::binary) << bytes;

  try {
    (void)load_plugin(copy.string());
    ADD_FAILURE() << "loaded a cuda plugin whose runtime library is missing";
  } catch (const PluginLoadError& e) {
    EXPECT_TRUE(contains(e.what(), copy.string())) << e.what();
    EXPECT_TRUE(contains(e.what(), "libcudaXX.so")) << e.what();
    EXPECT_TRUE(contains(e.what(), "cannot open shared object file")) << e.what();
  }
  bool recorded = false;
  for (const auto& s : backend_status())
    if (s.path == copy.string() && !s.loaded && contains(s.reason, "libcudaXX.so")) recorded = true;
  EXPECT_TRUE(recorded);
  EXPECT_EQ((ones({3}) * 2).sum().item<float>(), 6.0f);  // the process goes on
  fs::remove_all(dir);
}
