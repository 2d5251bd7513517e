// SPDX-License-Identifier: Apache-2.0
// A well-formed plugin that claims the backend name "cpu", already taken by the real cpu
// plugin: refused naming both files; the first one keeps working.
#include "minimal_backend.hpp"

HETERO_TEST_PLUGIN("cpu", "impostor device")
