// SPDX-License-Identifier: Apache-2.0
// main() of every conformance_<backend> executable (see hetero_add_backend).
#include <hetero/conformance/conformance.hpp>

int main(int argc, char** argv) {
  return hetero::conformance::run(argc, argv, HETERO_CONFORMANCE_BACKEND,
                                  HETERO_CONFORMANCE_PLUGIN);
}
