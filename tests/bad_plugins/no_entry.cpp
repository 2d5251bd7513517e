// SPDX-License-Identifier: Apache-2.0
// A shared library that is not a hetero plugin: it exports no entry point.
extern "C" __attribute__((visibility("default"))) int some_unrelated_function() { return 42; }
