// SPDX-License-Identifier: Apache-2.0
// CpuOnlyScope: for tests that assert the no-GPU behaviour (try_gpu() falling back to cpu,
// cuda:N unavailable), on every machine: for its lifetime only the cpu backend is loaded
// (HETERO_BACKENDS=cpu, plugins reloaded); afterwards the previous setting and plugins
// come back. Tensors made inside stay valid after it ends (they hold their plugin).
#pragma once
#include <cstdlib>
#include <optional>
#include <string>

#include <hetero/plugins.hpp>

namespace hetero::test {

class CpuOnlyScope {
 public:
  CpuOnlyScope() {
    if (const char* v = std::getenv("HETERO_BACKENDS")) previous_ = v;
    ::setenv("HETERO_BACKENDS", "cpu", 1);
    unload_plugins();
  }
  ~CpuOnlyScope() {
    if (previous_)
      ::setenv("HETERO_BACKENDS", previous_->c_str(), 1);
    else
      ::unsetenv("HETERO_BACKENDS");
    unload_plugins();
  }
  CpuOnlyScope(const CpuOnlyScope&) = delete;
  CpuOnlyScope& operator=(const CpuOnlyScope&) = delete;

 private:
  std::optional<std::string> previous_;
};

}  // namespace hetero::test
