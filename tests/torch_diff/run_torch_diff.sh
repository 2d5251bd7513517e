#!/usr/bin/env bash
# The differential test against PyTorch on one device (issue #24): torch_diff writes the seeded
# cases run through hetero, torch_oracle.py recomputes them with torch and compares.
# usage: run_torch_diff.sh TORCH_DIFF_BINARY DEVICE [SEED] [CASES]
# Python: the first of /usr/bin/python3 and PATH's python3 that imports torch (Debian's
# python3-torch, installed by tools/install_deps.sh); without one the test fails, naming it.
set -euo pipefail
bin="$1" device="$2" seed="${3:-24}" cases="${4:-10000}"
here="$(cd "$(dirname "$0")" && pwd)"
python=""
for candidate in /usr/bin/python3 python3; do
  if "$candidate" -c 'import torch' >/dev/null 2>&1; then python="$candidate"; break; fi
done
if [ -z "$python" ]; then
  echo "run_torch_diff: no Python 3 with torch: install python3-torch (tools/install_deps.sh)" >&2
  exit 1
fi
out="$(mktemp "${TMPDIR:-/tmp}/hetero_torch_diff.XXXXXX.jsonl")"
trap 'rm -f "$out"' EXIT
"$bin" --seed "$seed" --cases "$cases" --device "$device" --out "$out"
"$python" "$here/torch_oracle.py" "$out"
