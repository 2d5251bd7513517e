# Sourced by the tests that ask PyTorch (run_torch_diff.sh, run_torch_conv.sh): sets `python`
# to the first of /usr/bin/python3 and PATH's python3 that imports torch (Debian's
# python3-torch, installed by tools/install_deps.sh); without one, fails naming the package.
# usage: . torch_python.sh CALLER_NAME
python=""
for candidate in /usr/bin/python3 python3; do
  if "$candidate" -c 'import torch' >/dev/null 2>&1; then python="$candidate"; break; fi
done
if [ -z "$python" ]; then
  echo "$1: no Python 3 with torch: install python3-torch (tools/install_deps.sh)" >&2
  exit 1
fi
