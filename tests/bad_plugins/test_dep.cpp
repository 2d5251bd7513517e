// SPDX-License-Identifier: Apache-2.0
extern "C" __attribute__((visibility("default"))) int hetero_test_dep_value() { return 1; }
