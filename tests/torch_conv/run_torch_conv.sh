#!/usr/bin/env bash
# conv2d and the pools against PyTorch on one device: make_cases.py writes torch's results for
# random cases, test_torch_conv recomputes them with hetero and compares.
# usage: run_torch_conv.sh TEST_BINARY DEVICE [SEED] [CASES]
# Python: the first of /usr/bin/python3 and PATH's python3 that imports torch (Debian's
# python3-torch, installed by tools/install_deps.sh); without one the test fails, naming it.
set -euo pipefail
bin="$1" device="$2" seed="${3:-27}" cases="${4:-400}"
here="$(cd "$(dirname "$0")" && pwd)"
python=""
for candidate in /usr/bin/python3 python3; do
  if "$candidate" -c 'import torch' >/dev/null 2>&1; then python="$candidate"; break; fi
done
if [ -z "$python" ]; then
  echo "run_torch_conv: no Python 3 with torch: install python3-torch (tools/install_deps.sh)" >&2
  exit 1
fi
out="$(mktemp "${TMPDIR:-/tmp}/hetero_torch_conv.XXXXXX.safetensors")"
trap 'rm -f "$out"' EXIT
"$python" "$here/make_cases.py" "$out" "$seed" "$cases"
HETERO_TORCH_CONV_CASES="$out" HETERO_TEST_DEVICE="$device" "$bin"
