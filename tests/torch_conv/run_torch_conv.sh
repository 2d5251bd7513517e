#!/usr/bin/env bash
# conv2d and the pools against PyTorch on one device: make_cases.py writes torch's results for
# random cases, test_torch_conv recomputes them with hetero and compares.
# usage: run_torch_conv.sh TEST_BINARY DEVICE [SEED] [CASES]
# Python with torch: tests/torch_python.sh.
set -euo pipefail
bin="$1" device="$2" seed="${3:-27}" cases="${4:-400}"
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/../torch_python.sh" run_torch_conv
out="$(mktemp "${TMPDIR:-/tmp}/hetero_torch_conv.XXXXXX.safetensors")"
trap 'rm -f "$out"' EXIT
"$python" "$here/make_cases.py" "$out" "$seed" "$cases"
HETERO_TORCH_CONV_CASES="$out" HETERO_TEST_DEVICE="$device" "$bin"
