// SPDX-License-Identifier: Apache-2.0
// libhetero-lazyvendor.so: a test backend shaped like the cuda plugin's use of cuBLAS. Its
// one device is created on first use (default_stream(0)); the device opens the vendor
// library lazily with Boost.DLL (HETERO_TEST_FAKE_VENDOR), makes a handle, and destroys it
// in its destructor. Used by test_lifetime.cpp: a process that used it must exit 0, and
// unload_plugins() while the program runs must destroy the handle with the library mapped.
#include <boost/dll/shared_library.hpp>

#include <memory>
#include <mutex>
#include <string>

#include "../bad_plugins/minimal_backend.hpp"

namespace {

using namespace hetero;

// The vendor library, opened on first use (as cublas_library.cpp opens cuBLAS).
class VendorLibrary {
 public:
  int create() {
    std::lock_guard lock(mutex_);
    if (!library_)
      library_ = std::make_unique<boost::dll::shared_library>(HETERO_TEST_FAKE_VENDOR,
                                                              boost::dll::load_mode::rtld_now);
    int handle = 0;
    if (library_->get<int(int*)>("fake_vendor_create")(&handle) != 0)
      throw Error("fake vendor: create failed");
    return handle;
  }
  void destroy(int handle) noexcept {
    (void)library_->get<int(int)>("fake_vendor_destroy")(handle);
  }

 private:
  std::mutex mutex_;
  std::unique_ptr<boost::dll::shared_library> library_;
};

class LazyStream final : public Stream {
 public:
  int device() const noexcept override { return 0; }
  void synchronize() override {}
  std::unique_ptr<Event> record() override {
    throw DeviceUnavailableError("lazyvendor: no events");
  }
  void wait(Event&) override {}
};

class LazyDevice {
 public:
  explicit LazyDevice(VendorLibrary& vendor) : vendor_(vendor), handle_(vendor.create()) {}
  ~LazyDevice() { vendor_.destroy(handle_); }
  LazyStream& stream() noexcept { return stream_; }

 private:
  VendorLibrary& vendor_;
  int handle_;
  LazyStream stream_;
};

class LazyVendorBackend final : public test::MinimalBackend {
 public:
  LazyVendorBackend() : MinimalBackend("lazyvendor", "lazy vendor device") {}
  Stream& default_stream(int device) override {
    if (device != 0) throw InvalidDeviceError("lazyvendor: no device " + std::to_string(device));
    std::lock_guard lock(mutex_);
    if (!device_) device_ = std::make_unique<LazyDevice>(vendor_);
    return device_->stream();
  }

 private:
  VendorLibrary vendor_;  // declared before the device: outlives it
  std::mutex mutex_;
  std::unique_ptr<LazyDevice> device_;
};

}  // namespace

HETERO_PLUGIN_EXPORT const HeteroPluginInfo* hetero_plugin_info() {
  static const HeteroPluginInfo info{sizeof(HeteroPluginInfo),
                                     HETERO_INTERFACE_VERSION_MAJOR,
                                     HETERO_INTERFACE_VERSION_MINOR,
                                     "lazyvendor",
                                     "0.0.1",
                                     HETERO_COMPILER_ID,
                                     HETERO_CXX_STDLIB_ID,
                                     "fake vendor"};
  return &info;
}
HETERO_PLUGIN_EXPORT hetero::Backend* hetero_plugin_create() { return new LazyVendorBackend; }
