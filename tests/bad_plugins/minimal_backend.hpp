// SPDX-License-Identifier: Apache-2.0
// A backend with one device that can do nothing: the base of the bad plugins that get as
// far as creating a Backend. Every operation throws DeviceUnavailableError.
#pragma once
#include <hetero/sdk/plugin.hpp>

namespace hetero::test {

class MinimalBackend : public Backend {
 public:
  MinimalBackend(std::string name, std::string device_name)
      : name_(std::move(name)), device_name_(std::move(device_name)) {}
  std::string name() const override { return name_; }
  int device_count() const noexcept override { return 1; }
  DeviceProperties device_properties(int) const override {
    DeviceProperties p;
    p.name = device_name_;
    return p;
  }
  Capabilities capabilities(int) const override { return {}; }
  MemoryStats memory_stats(int) const override { return {}; }
  std::unique_ptr<Buffer> allocate(int, std::size_t) override { refuse(); }
  Stream& default_stream(int) override { refuse(); }
  void copy_host_to_device(const void*, Buffer&, std::size_t, std::size_t, Stream&) override {
    refuse();
  }
  void copy_device_to_host(const Buffer&, std::size_t, void*, std::size_t, Stream&) override {
    refuse();
  }
  void copy_device_to_device(const Buffer&, std::size_t, Buffer&, std::size_t, std::size_t,
                             Stream&) override {
    refuse();
  }
  void fill(const StridedView&, Scalar, Stream&) override { refuse(); }
  void cast(const StridedView&, const StridedView&, Stream&) override { refuse(); }
  void unary(UnaryOp, const StridedView&, const StridedView&, Stream&) override { refuse(); }
  void binary(BinaryOp, const StridedView&, const StridedView&, const StridedView&,
              Stream&) override {
    refuse();
  }
  void reduce(ReductionOp, const StridedView&, const StridedView&, Stream&) override { refuse(); }
  void random(RandomDistribution, const StridedView&, std::uint64_t, std::uint64_t,
              Stream&) override {
    refuse();
  }
  void gemm(const GemmArgs&, Stream&) override { refuse(); }
#if HETERO_TARGET_INTERFACE_MINOR >= 4
  void ternary(TernaryOp, const StridedView&, const StridedView&, const StridedView&,
               const StridedView&, Stream&) override {
    refuse();
  }
#endif
#if HETERO_TARGET_INTERFACE_MINOR >= 6
  void gather(const StridedView&, const StridedView&, int, const StridedView&, Stream&) override {
    refuse();
  }
  void scatter_add(const StridedView&, const StridedView&, int, const StridedView&,
                   Stream&) override {
    refuse();
  }
#endif

 private:
  [[noreturn]] void refuse() const {
    throw DeviceUnavailableError(name_ + ": test backend does nothing");
  }
  std::string name_;
  std::string device_name_;
};

}  // namespace hetero::test

/// Defines the info entry point of a test plugin named `name` (interface, compiler and C++
/// library of this build: a plugin the core accepts).
#define HETERO_TEST_PLUGIN_INFO(name)                                  \
  HETERO_PLUGIN_EXPORT const HeteroPluginInfo* hetero_plugin_info() {  \
    static const HeteroPluginInfo info{sizeof(HeteroPluginInfo),       \
                                       HETERO_INTERFACE_VERSION_MAJOR, \
                                       HETERO_INTERFACE_VERSION_MINOR, \
                                       name,                           \
                                       "0.0.1",                        \
                                       HETERO_COMPILER_ID,             \
                                       HETERO_CXX_STDLIB_ID,           \
                                       ""};                            \
    return &info;                                                      \
  }

/// Defines the entry points of a test plugin named `name` whose device is `device_name`.
#define HETERO_TEST_PLUGIN(name, device_name)                    \
  HETERO_TEST_PLUGIN_INFO(name)                                  \
  HETERO_PLUGIN_EXPORT hetero::Backend* hetero_plugin_create() { \
    return new hetero::test::MinimalBackend(name, device_name);  \
  }
