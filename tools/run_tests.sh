#!/usr/bin/env bash
# Builds hetero and runs every test (ctest: core, conformance.cpu, cuda, examples, tools),
# then the installed package out of tree (tools/test_package.sh: app, template backend,
# OpenCL backend on PoCL),
# then builds it again with AddressSanitizer + UndefinedBehaviorSanitizer and runs the
# whole suite there too. Build directories: build/ and build-asan/.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${HETERO_JOBS:-2}"

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$jobs"
ctest --test-dir build -j"$jobs" --output-on-failure

# The libFuzzer target of the safetensors reader (clang), briefly, from the malformed corpus.
HETERO_FUZZ_SECONDS="${HETERO_FUZZ_SECONDS:-20}" tools/run_fuzz.sh build-fuzz

# The installed package, moved, used out of tree: the example app, the template backend
# and the OpenCL backend (conformance on PoCL).
tools/test_package.sh build

cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DHETERO_SANITIZE=address,undefined \
      -DHETERO_BUILD_BENCH=OFF
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan -j"$jobs" --output-on-failure
