// SPDX-License-Identifier: Apache-2.0
// A plugin with no device whose unavailable_reason() throws: refused naming the call.
#include <stdexcept>

#include "minimal_backend.hpp"

namespace {
class ReasonThrows : public hetero::test::MinimalBackend {
 public:
  ReasonThrows() : MinimalBackend("reasonthrows", "dev") {}
  int device_count() const noexcept override { return 0; }
  std::string unavailable_reason() const override {
    throw std::runtime_error("simulated unavailable_reason() failure");
  }
};
}  // namespace

HETERO_TEST_PLUGIN_INFO("reasonthrows")
HETERO_PLUGIN_EXPORT hetero::Backend* hetero_plugin_create() { return new ReasonThrows; }
