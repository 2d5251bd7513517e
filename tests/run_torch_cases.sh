#!/usr/bin/env bash
# A test against PyTorch from cases torch computes: MAKER (a Python script run with Debian's
# python3-torch) writes random cases with torch's results as one safetensors file, then
# BINARY (a GoogleTest program) recomputes them with hetero on DEVICE and compares
# (tests/torch_conv, tests/torch_optim).
# usage: run_torch_cases.sh MAKER BINARY DEVICE [SEED] [CASES]
# Python with torch: tests/torch_python.sh.
set -euo pipefail
maker="$1" bin="$2" device="$3" seed="${4:-27}" cases="${5:-400}"
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/torch_python.sh" run_torch_cases
out="$(mktemp "${TMPDIR:-/tmp}/hetero_torch_cases.XXXXXX.safetensors")"
trap 'rm -f "$out"' EXIT
"$python" "$maker" "$out" "$seed" "$cases"
HETERO_TORCH_CASES="$out" HETERO_TEST_DEVICE="$device" "$bin"
