#!/usr/bin/env bash
# Builds the libFuzzer target of the safetensors reader with clang and runs it for
# HETERO_FUZZ_SECONDS (default 30) from the malformed corpus. Skipped, with a message,
# where clang++ is absent. Usage: tools/run_fuzz.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build-fuzz}"
if ! command -v clang++ >/dev/null; then
  echo "run_fuzz: clang++ not found; fuzz target not built"
  exit 0
fi
cmake -S tests/fuzz -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build"
corpus="$build/corpus"
mkdir -p "$corpus"
cp tests/serialize/malformed/*.safetensors "$corpus/"
"$build/fuzz_safetensors" "$corpus" -max_total_time="${HETERO_FUZZ_SECONDS:-30}" -rss_limit_mb=2048 \
  -max_len=4096 -print_final_stats=1 2>&1 | tail -n 12
