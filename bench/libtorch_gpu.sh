#!/usr/bin/env bash
# Builds and runs bench/libtorch_gpu.cpp against the CUDA-enabled libtorch inside an
# installed PyTorch wheel (`python3 -c "import torch"` must work and see a GPU). Debian's
# libtorch-dev is CPU-only, so this is not part of the CMake build. Compiler: $CUDAHOSTCXX,
# else c++. Usage: bench/libtorch_gpu.sh [OUT_DIR]   (the binary goes to OUT_DIR, default /tmp)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-/tmp}"
tp="$(python3 -c 'import torch, os; print(os.path.dirname(torch.__file__))' 2>/dev/null)" || {
  echo "libtorch_gpu: PyTorch is not importable; nothing to measure"
  exit 0
}
cxx="${CUDAHOSTCXX:-c++}"
"$cxx" -O2 -std=c++17 -D_GLIBCXX_USE_CXX11_ABI=1 -I"$tp/include" -I"$tp/include/torch/csrc/api/include" \
  bench/libtorch_gpu.cpp -o "$out/libtorch_gpu" -L"$tp/lib" -Wl,--no-as-needed -ltorch_cuda -Wl,--as-needed \
  -ltorch -ltorch_cpu -lc10 -lc10_cuda -Wl,-rpath,"$tp/lib"
"$out/libtorch_gpu"
