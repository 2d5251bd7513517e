// SPDX-License-Identifier: Apache-2.0
// Plugin lifetime at exit and on explicit unloading (docs/design/plugin-lifetime.md),
// with a test plugin whose device holds a handle of a lazily opened vendor library that
// tears itself down at exit, as cuBLAS on cudart does. Every test here is also a check of
// the process's exit: ctest runs each test in its own process, and a device destroyed
// after the vendor's teardown ends it with exit code 86 (fake_vendor.cpp).
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <hetero/hetero.hpp>
#include <hetero/sdk/backend.hpp>
#include <hetero/sdk/find_backend.hpp>

using namespace hetero;

namespace {

// The vendor library's live-handle count, read through the same loaded copy the plugin uses.
int live_vendor_handles() {
  void* lib = dlopen(HETERO_TEST_FAKE_VENDOR, RTLD_NOW | RTLD_NOLOAD);
  if (!lib) return -1;  // not loaded: no handles
  auto* live = reinterpret_cast<int (*)()>(dlsym(lib, "fake_vendor_live_handles"));
  const int n = live ? live() : -2;
  dlclose(lib);
  return n;
}

Stream& use_the_device() {
  load_plugin(HETERO_TEST_LAZY_PLUGIN);
  auto backend = find_backend("lazyvendor");
  if (!backend) throw Error("lazyvendor not loaded");
  return backend->default_stream(0);
}

}  // namespace

// The device (and its vendor handle) is still alive when main returns: the process must
// still exit 0.
TEST(Lifetime, ExitWithALiveDeviceOfALazilyOpenedVendorLibrary) {
  use_the_device().synchronize();
  EXPECT_EQ(live_vendor_handles(), 1);
}

// Unloading while the program runs destroys the device before the vendor library and the
// plugin are unloaded; the plugin then loads again and the process still exits 0.
TEST(Lifetime, UnloadWhileRunningDestroysTheHandleThenReloads) {
  use_the_device();
  ASSERT_EQ(live_vendor_handles(), 1);
  unload_plugins();
  EXPECT_LE(live_vendor_handles(), 0);  // destroyed (0) or the library already unloaded (-1)
  use_the_device().synchronize();
  EXPECT_EQ(live_vendor_handles(), 1);
}

// Tensors on the cpu device in use at exit too, with queued work (the cpu plugin's
// workers are finished before library destructors run).
TEST(Lifetime, ExitWithQueuedCpuWorkAndALiveVendorDevice) {
  use_the_device();
  Tensor a = ones({512, 512});
  for (int i = 0; i < 8; ++i) a = matmul(a, a) / 512.0;
  EXPECT_EQ(live_vendor_handles(), 1);
}
