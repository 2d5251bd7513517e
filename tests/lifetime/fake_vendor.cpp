// SPDX-License-Identifier: Apache-2.0
// libhetero_fake_vendor.so: a stand-in for a vendor runtime such as cuBLAS on cudart, for
// the exit-lifetime tests. Like cudart, it registers its own teardown with atexit() at its
// first call, so the teardown runs before the static destructors of anything created
// earlier (the core's plugin registry). A handle destroyed after that teardown is the bug
// the tests catch: the library then ends the process with exit code 86 and a message, as a
// real runtime would crash.
#include <cstdio>
#include <cstdlib>
#include <mutex>

extern "C" {
int fake_vendor_create(int* handle);
int fake_vendor_destroy(int handle);
int fake_vendor_live_handles();
}

namespace {

std::mutex g_mutex;
int g_live = 0;
int g_next = 1;
bool g_registered = false;
bool g_torn_down = false;

void teardown() {
  std::lock_guard lock(g_mutex);
  g_torn_down = true;
}

}  // namespace

/// Creates a handle (> 0) in `*handle`; returns 0. The first call registers the teardown.
int fake_vendor_create(int* handle) {
  std::lock_guard lock(g_mutex);
  if (!g_registered) {
    g_registered = true;
    std::atexit(teardown);
  }
  *handle = g_next++;
  ++g_live;
  return 0;
}

/// Destroys a handle; returns 0. After the teardown: prints why and exits with code 86.
int fake_vendor_destroy(int handle) {
  std::lock_guard lock(g_mutex);
  if (g_torn_down) {
    std::fprintf(stderr, "fake_vendor: handle %d destroyed after the vendor's exit teardown\n",
                 handle);
    std::fflush(stderr);
    std::_Exit(86);
  }
  --g_live;
  return 0;
}

/// Handles created and not yet destroyed.
int fake_vendor_live_handles() {
  std::lock_guard lock(g_mutex);
  return g_live;
}
