// SPDX-License-Identifier: Apache-2.0
// A plugin whose device reports an empty name: refused naming the device.
#include "minimal_backend.hpp"

HETERO_TEST_PLUGIN("emptydevicename", "")
