// SPDX-License-Identifier: Apache-2.0
// A plugin whose Backend::name() throws: refused naming the call, and discovery goes on.
#include <stdexcept>

#include "minimal_backend.hpp"

namespace {
class NameThrows : public hetero::test::MinimalBackend {
 public:
  NameThrows() : MinimalBackend("namethrows", "dev") {}
  std::string name() const override { throw std::runtime_error("simulated name() failure"); }
};
}  // namespace

HETERO_TEST_PLUGIN_INFO("namethrows")
HETERO_PLUGIN_EXPORT hetero::Backend* hetero_plugin_create() { return new NameThrows; }
