#!/usr/bin/env bash
# The differential test against PyTorch on one device (issue #24): torch_diff writes the seeded
# cases run through hetero, torch_oracle.py recomputes them with torch and compares.
# usage: run_torch_diff.sh TORCH_DIFF_BINARY DEVICE [SEED] [CASES]
# Python with torch: tests/torch_python.sh.
set -euo pipefail
bin="$1" device="$2" seed="${3:-24}" cases="${4:-10000}"
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/../torch_python.sh" run_torch_diff
out="$(mktemp "${TMPDIR:-/tmp}/hetero_torch_diff.XXXXXX.jsonl")"
trap 'rm -f "$out"' EXIT
"$bin" --seed "$seed" --cases "$cases" --device "$device" --out "$out"
"$python" "$here/torch_oracle.py" "$out"
