#!/usr/bin/env bash
# Checks hetero on a machine with an NVIDIA GPU, from a build with the cuda plugin:
#   - the `cuda` and `conformance.cuda` test labels, then the rest of the suite (it must
#     pass with a GPU visible too);
#   - every example on cuda:0: chapter_gpu, train_digits (trained on cuda:0, reloaded on
#     cpu), model_parallel (cuda:0 + cpu), lenet_fashion_mnist and resnet18_fashion_mnist
#     (short runs; char_transformer too where fortunes is) (where Fashion-MNIST is, or
#     GPU_CHECK_FASHION_MNIST names its IDX files), train_digits_ddp (mpirun -np 2; Open
#     MPI is packed along where the GPU machine has none);
#   - the differential test against PyTorch on cuda:0 (tests/torch_diff);
#   - the GPU benchmarks briefly: bench_gpu --quick and --gemm, bench_conv_gpu beside
#     bench/torch_conv_gpu.py (PyTorch's cuDNN), bench_exercises on cuda:0;
#   - compute-sanitizer memcheck on test_cuda_gpu and chapter_gpu, where installed.
# Every step's exit code is checked (a program that prints the right answer and then
# crashes at exit fails). Prints one closing line "gpu_check: N passed, N failed" and exits
# non-zero when any step failed. Without a GPU it says so and exits 0.
#
# Usage:
#   tools/gpu_check.sh [BUILD_DIR]            # default: build
#   tools/gpu_check.sh --pack FILE [BUILD_DIR]
#       (on the build machine) packs BUILD_DIR without objects, stripped of debug info,
#       with the non-system libraries its programs need (OpenBLAS, fmt, Benchmark, ...),
#       for a GPU machine that lacks them (see docs/gpu-machine.md).
#   tools/gpu_check.sh --from-pack FILE
#       (on the GPU machine, in a checkout of the same commit) unpacks FILE at the build
#       tree's original absolute path (linking the original source path to this checkout
#       when it does not exist), puts the packed libraries and the CUDA libraries on
#       LD_LIBRARY_PATH, and runs the check.
# Environment: GPU_CHECK_LOG_DIR (default: BUILD_DIR/gpu_check) keeps each step's output;
# GPU_CHECK_FASHION_MNIST (default: /usr/share/datasets/fashion-mnist) the IDX files.
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"

pack() {
  local out="$1" build="${2:-build}"
  build="$(cd "$build" && pwd)" || exit 2
  [ -f "$build/CMakeCache.txt" ] || { echo "gpu_check: $build is not a build tree" >&2; exit 2; }
  # Debian's libtorch is CPU-only, the GPU machine has none, and it would pull ~180 MB of
  # libraries into the pack (the device tool carries at most 64 MiB).
  if ldd "$build"/bin/* 2>/dev/null | grep 'libtorch_cpu' >/dev/null; then  # not -q: pipefail
    echo "gpu_check: $build links the libtorch benchmark peers; pack a build without them:" >&2
    echo "  cmake -S . -B build-gpu -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DHETERO_BENCH_LIBTORCH=OFF -DHETERO_CPU_ONEDNN=OFF" >&2
    echo "  cmake --build build-gpu -j2 && tools/gpu_check.sh --pack $out build-gpu" >&2
    exit 2
  fi
  local stage
  stage="$(mktemp -d)"
  trap 'rm -rf "$stage"' RETURN
  mkdir -p "$stage/tree" "$stage/libs"
  # The tree without objects, static archives and the API reference (9 MB of HTML);
  # binaries without debug info.
  (cd "$build" && find . \( -type f -o -type l \) ! -name '*.o' ! -name '*.a' ! -path './CMakeFiles/*' ! -path './Testing/*' ! -path './docs/html/*' \
      ! -name '*.ninja' ! -name '.ninja_*' -print0 | tar --null -T - -cf -) | tar -xf - -C "$stage/tree"
  find "$stage/tree" -type f \( -perm -u+x -o -name '*.so*' \) -print0 |
    while IFS= read -r -d '' f; do
      head -c 4 "$f" | grep -q ELF && strip --strip-debug "$f" 2>/dev/null
    done
  # Libraries outside glibc, libstdc++ and CUDA that the programs and plugins load.
  find "$stage/tree" -type f \( -perm -u+x -o -name '*.so*' \) -print0 |
    xargs -0 ldd 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
    grep -Ev '/(libc|libm|libdl|librt|libpthread|ld-linux[^/]*|libstdc\+\+|libgcc_s|libcuda[^/]*|libcublas[^/]*|libcudart[^/]*)\.so' |
    grep -v "^$build" | while read -r lib; do cp -L "$lib" "$stage/libs/"; done
  pack_open_mpi "$stage"
  printf 'build=%s\nsource=%s\ncommit=%s\n' "$build" "$here" "$(git -C "$here" rev-parse HEAD 2>/dev/null)" \
    >"$stage/manifest"
  mkdir -p "$(dirname "$out")"
  tar -czf "$out" -C "$stage" manifest tree libs $( [ -d "$stage/ompi" ] && echo ompi)
  echo "gpu_check: packed $build into $out ($(du -h "$out" | cut -f1); libraries: $(ls "$stage/libs" | tr '\n' ' '))"
  if [ "$(stat -c %s "$out")" -gt $((64 * 1024 * 1024)) ]; then
    echo "gpu_check: warning: $out is over 64 MiB, more than the device tool carries" >&2
  fi
}

# Open MPI for the distributed tests, where this machine has Debian's: mpirun (orterun),
# its components, PMIx's, help texts and configuration, and the libraries they load; the
# GPU machine has no MPI. from_pack points Open MPI and PMIx at the copy.
pack_open_mpi() {
  local stage="$1" arch=/usr/lib/x86_64-linux-gnu
  command -v orterun >/dev/null && [ -d "$arch/openmpi/lib/openmpi3" ] || return 0
  mkdir -p "$stage/ompi/bin" "$stage/ompi/lib" "$stage/ompi/share" "$stage/ompi/etc"
  cp -L "$(command -v orterun)" "$stage/ompi/bin/orterun"
  cp -L "$(command -v orted)" "$stage/ompi/bin/orted"
  cp -rL "$arch/openmpi/lib/openmpi3" "$stage/ompi/lib/openmpi3"
  cp -rL "$arch/pmix2/lib/pmix" "$stage/ompi/lib/pmix"
  cp -rL /usr/share/openmpi "$stage/ompi/share/openmpi"
  cp -rL /etc/openmpi/. "$stage/ompi/etc/"
  find "$stage/ompi" -type f \( -name '*.so*' -o -perm -u+x \) -print0 | xargs -0 ldd 2>/dev/null |
    awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
    grep -Ev '/(libc|libm|libdl|librt|libpthread|ld-linux[^/]*|libstdc\+\+|libgcc_s|libcuda[^/]*)\.so' |
    while read -r lib; do [ -e "$stage/libs/$(basename "$lib")" ] || cp -L "$lib" "$stage/libs/"; done
}

# Points Open MPI (OPAL_*) and PMIx at the unpacked copy, and puts its mpirun where the
# build's tests name it (MPIEXEC_EXECUTABLE).
use_packed_open_mpi() {
  local root="$1" build="$2" ompi="$1/ompi"
  [ -d "$ompi" ] || return 0
  export OPAL_PREFIX="$ompi" OPAL_BINDIR="$ompi/bin" OPAL_LIBDIR="$ompi/lib" OPAL_PKGLIBDIR="$ompi/lib/openmpi3"
  export OPAL_DATADIR="$ompi/share" OPAL_PKGDATADIR="$ompi/share/openmpi" OPAL_SYSCONFDIR="$ompi/etc"
  export OMPI_MCA_mca_base_component_path="$ompi/lib/openmpi3"
  export PMIX_MCA_mca_base_component_path="$ompi/lib/pmix" PMIX_MCA_pcompress_base_silence_warning=1
  export PATH="$ompi/bin:$PATH"
  local mpiexec
  mpiexec="$(sed -n 's/^MPIEXEC_EXECUTABLE:FILEPATH=//p' "$build/CMakeCache.txt")"
  if [ -n "$mpiexec" ] && [ ! -e "$mpiexec" ]; then
    mkdir -p "$(dirname "$mpiexec")" && ln -s "$ompi/bin/orterun" "$mpiexec"
  fi
  echo "gpu_check: Open MPI from the pack ($ompi), mpirun at ${mpiexec:-PATH}"
}

from_pack() {
  local file="$1" root
  root="$(mktemp -d)"
  tar -xzf "$file" -C "$root" || { echo "gpu_check: cannot unpack $file" >&2; exit 2; }
  local build source
  build="$(sed -n 's/^build=//p' "$root/manifest")"
  source="$(sed -n 's/^source=//p' "$root/manifest")"
  # The tree's CTest files and RUNPATHs name the original absolute paths: recreate them.
  if [ ! -e "$source" ]; then
    mkdir -p "$(dirname "$source")" && ln -s "$here" "$source"
  fi
  # The CMake and CTest programs the tree's tests name (CMAKE_COMMAND, CMAKE_CTEST_COMMAND).
  local tool
  for tool in $(sed -n 's/^CMAKE_\(CTEST_\)\{0,1\}COMMAND:INTERNAL=//p' "$root/tree/CMakeCache.txt"); do
    if [ ! -e "$tool" ] && command -v "$(basename "$tool")" >/dev/null; then
      mkdir -p "$(dirname "$tool")" && ln -s "$(command -v "$(basename "$tool")")" "$tool"
    fi
  done
  if [ ! -e "$build" ]; then
    mkdir -p "$(dirname "$build")" && mv "$root/tree" "$build"
  else
    cp -a "$root/tree/." "$build/"
  fi
  local cuda_lib=""
  for d in /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda/lib64; do
    [ -d "$d" ] && cuda_lib="$cuda_lib:$d"
  done
  # cuDNN for the cuda plugin's convolution: where the loader finds none, a PyTorch wheel's
  # (nvidia/cudnn/lib) serves, as on the GPU machine of PLATFORM.md.
  if ! ldconfig -p 2>/dev/null | grep -q 'libcudnn\.so\.9' && [ ! -e /usr/local/cuda/lib64/libcudnn.so.9 ]; then
    local cudnn_dir
    cudnn_dir="$(python3 -c 'import os, nvidia.cudnn as m; print(os.path.join(list(m.__path__)[0], "lib"))' 2>/dev/null)"
    if [ -n "$cudnn_dir" ] && [ -e "$cudnn_dir/libcudnn.so.9" ]; then
      cuda_lib="$cuda_lib:$cudnn_dir"
      echo "gpu_check: cuDNN from $cudnn_dir"
    fi
  fi
  export LD_LIBRARY_PATH="$root/libs$cuda_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  echo "gpu_check: unpacked $file at $build (source $source, libraries in $root/libs)"
  use_packed_open_mpi "$root" "$build"
  GPU_CHECK_FROM_PACK=1 check "$build"
}

passed=0
failed=0
failures=()
logs=""

# step NAME COMMAND...: runs the command, logs its output, counts its exit code.
step() {
  local name="$1"
  shift
  local log="$logs/$(echo "$name" | tr -c 'A-Za-z0-9_.-' '_').log"
  local start=$SECONDS
  "$@" >"$log" 2>&1
  local rc=$?
  if [ $rc -eq 0 ]; then
    passed=$((passed + 1))
    printf '  %-58s ok      (%ss)\n' "$name" $((SECONDS - start))
  else
    failed=$((failed + 1))
    failures+=("$name (exit $rc)")
    printf '  %-58s FAILED  exit %s, log %s\n' "$name" "$rc" "$log"
    tail -n 15 "$log" | sed 's/^/      /'
  fi
}

# expect_output PATTERN COMMAND...: the command exits 0 and prints a line matching PATTERN.
expect_output() {
  local pattern="$1"
  shift
  local out rc
  out="$("$@" 2>&1)"
  rc=$?
  printf '%s\n' "$out"
  [ $rc -eq 0 ] || return $rc
  printf '%s\n' "$out" | grep -Eq "$pattern" || { echo "gpu_check: output lacks /$pattern/"; return 1; }
}

check() {
  local build="$1"
  local bin="$build/bin"
  logs="${GPU_CHECK_LOG_DIR:-$build/gpu_check}"
  mkdir -p "$logs"
  [ -x "$bin/hetero-smi" ] || { echo "gpu_check: $bin/hetero-smi not found: build first" >&2; exit 2; }
  if [ ! -e "$build/lib/hetero/plugins/libhetero-cuda.so" ]; then
    echo "gpu_check: this build has no cuda plugin (CUDA Toolkit not found at configure time)"
    echo "gpu_check: 0 passed, 0 failed"
    exit 0
  fi
  local gpus listing
  if ! listing="$("$bin/hetero-smi" --json 2>&1)"; then
    echo "gpu_check: hetero-smi cannot run: $listing" >&2
    echo "gpu_check: 0 passed, 1 failed"
    exit 1
  fi
  gpus="$(printf '%s\n' "$listing" | grep -o '"gpus": *[0-9]*' | grep -o '[0-9]*$')"
  if [ -z "$gpus" ] || [ "$gpus" -eq 0 ]; then
    echo "gpu_check: no GPU on this machine (hetero-smi sees none); nothing to check"
    "$bin/hetero-smi" --plugins 2>&1 | sed 's/^/  /'
    echo "gpu_check: 0 passed, 0 failed"
    exit 0
  fi
  echo "gpu_check: $gpus GPU(s); logs in $logs"
  "$bin/hetero-smi" | sed 's/^/  /'
  local ctest=(ctest --test-dir "$build" --output-on-failure --timeout 300 -j "$(nproc)")
  step "ctest -L cuda" "${ctest[@]}" -L '^cuda$'
  step "ctest -L conformance.cuda" "${ctest[@]}" -L '^conformance\.cuda$'
  # The `parity` label needs python3-torch, which the GPU machine may lack (its cases run on
  # cuda:0 below either way).
  # Left out where this machine cannot run them, each said: `toolchain` (tests that run the
  # compiler) for a packed build, `dataset` (Fashion-MNIST) where Debian's
  # dataset-fashion-mnist is not installed, and `fortunes` (the Transformer example's text)
  # where Debian's fortunes is not.
  local rest='cuda|conformance\.cuda'
  /usr/bin/python3 -c 'import torch' >/dev/null 2>&1 || rest="$rest|parity"
  if [ -n "${GPU_CHECK_FROM_PACK:-}" ]; then
    rest="$rest|toolchain"
    echo "  (a packed build: the tests labelled toolchain, which run the compiler, are left out)"
  fi
  if [ ! -e /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    rest="$rest|dataset"
    echo "  (no /usr/share/datasets/fashion-mnist: the tests labelled dataset are left out)"
  fi
  if [ ! -d /usr/share/games/fortunes ]; then
    rest="$rest|fortunes"
    echo "  (no /usr/share/games/fortunes: the tests labelled fortunes are left out)"
  fi
  step "ctest (the rest of the suite)" "${ctest[@]}" -LE "^($rest)\$"
  step "chapter_gpu (try_gpu() = cuda:0)" expect_output "^cuda:0, cpu, \[cuda:0" "$bin/chapter_gpu"
  step "chapter_gpu --devices cuda:0,cpu" "$bin/chapter_gpu" --devices cuda:0,cpu
  local params="$logs/digits_mlp.safetensors"
  step "train_digits on cuda:0, reloaded on cpu" expect_output "reloaded on cpu: test accuracy .* same" \
    "$bin/train_digits" --params "$params" --reload-device cpu
  step "train_digits --item-per-step on cuda:0" "$bin/train_digits" --epochs 2 --min-accuracy 0 \
    --params "$logs/digits_item.safetensors" --item-per-step
  step "model_parallel on cuda:0 + cpu" expect_output "back.2.bias on cpu, grad on cpu" \
    "$bin/model_parallel" --devices cuda:0,cpu
  # D2L's LeNet on cuda:0 (convolution composed from the cuda kernels): its loss must drop
  # within the epoch, as ctest's example.lenet_fashion_mnist_short checks on cpu (on
  # 2026-11-26 cuda:0 gave cpu's losses and accuracies to the printed 4 digits).
  # GPU_CHECK_FASHION_MNIST names a directory of the four IDX files (a subset will do).
  local fmnist="${GPU_CHECK_FASHION_MNIST:-/usr/share/datasets/fashion-mnist}"
  if [ -x "$bin/lenet_fashion_mnist" ] && [ -e "$fmnist/train-images-idx3-ubyte.gz" ]; then
    step "lenet_fashion_mnist on cuda:0 (4096 samples, 1 epoch)" "$bin/lenet_fashion_mnist" \
      --device cuda:0 --data "$fmnist" --epochs 1 --limit 4096 --test-limit 1000 --expect-loss-drop --quiet
    # Issue #46's ResNet-18 (BatchNorm, residual blocks, DataLoader with pinned memory):
    # one short epoch whose loss must fall, and its resume check.
    if [ -x "$bin/resnet18_fashion_mnist" ]; then
      step "resnet18_fashion_mnist on cuda:0 (2048 samples, 1 epoch)" "$bin/resnet18_fashion_mnist" \
        --device cuda:0 --data "$fmnist" --epochs 1 --limit 2048 --test-limit 500 --expect-loss-drop --quiet
      step "resnet18_fashion_mnist resume on cuda:0" "$here/examples/resnet18_fashion_mnist/check_resume.sh" \
        "$bin/resnet18_fashion_mnist" --device cuda:0 --data "$fmnist"
    fi
  else
    echo "  (no Fashion-MNIST at $fmnist: lenet_fashion_mnist and resnet18_fashion_mnist on cuda:0 skipped)"
  fi
  # Issue #46's Transformer (attention, LayerNorm, AdamW, multinomial) where fortunes is.
  if [ -x "$bin/char_transformer" ] && [ -d /usr/share/games/fortunes ]; then
    step "char_transformer on cuda:0 (60 short steps)" "$bin/char_transformer" --device cuda:0 \
      --steps 60 --batch-size 8 --context 32 --d-model 32 --heads 2 --layers 1 --warmup 10 \
      --eval-every 20 --eval-batches 4 --sample 40 --expect-loss-drop --quiet
  else
    echo "  (no fortunes at /usr/share/games/fortunes: char_transformer on cuda:0 skipped)"
  fi
  step "hetero-smi --json" "$bin/hetero-smi" --json
  # The differential test against PyTorch on cuda:0 (docs/semantics.md): the cases run here;
  # torch recomputes them here when this machine has python3-torch, else the file stays in
  # the logs for tests/torch_diff/torch_oracle.py on a machine that has it.
  if [ -x "$bin/torch_diff" ]; then
    step "torch_diff on cuda:0 (10,000 cases)" "$bin/torch_diff" --device cuda:0 \
      --out "$logs/torch_diff_cuda.jsonl"
    if /usr/bin/python3 -c 'import torch' >/dev/null 2>&1; then
      step "torch_oracle.py on the cuda:0 cases" /usr/bin/python3 \
        "$(dirname "$0")/../tests/torch_diff/torch_oracle.py" "$logs/torch_diff_cuda.jsonl"
    else
      echo "  (no python3-torch here: run tests/torch_diff/torch_oracle.py on $logs/torch_diff_cuda.jsonl)"
    fi
  fi
  if [ -x "$bin/train_digits_ddp" ] && command -v orterun >/dev/null 2>&1; then
    # Two processes sharing cuda:0: gradients staged through pinned memory.
    local mpi=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 orterun --oversubscribe)
    step "train_digits_ddp on cuda:0 (mpirun -np 2)" expect_output "bit-identical" \
      "${mpi[@]}" -np 2 "$bin/train_digits_ddp"
    [ -x "$bin/bench_distributed" ] && step "bench_distributed --device cuda:0 (mpirun -np 2)" \
      "${mpi[@]}" -np 2 "$bin/bench_distributed" --rounds 5 --device cuda:0
  else
    echo "  (no train_digits_ddp or mpirun: distributed examples skipped)"
  fi
  [ -x "$bin/bench_gpu" ] && step "bench_gpu --quick" "$bin/bench_gpu" --quick
  # The GEMM rows at full repetitions (--quick's 3 are too few for a 3% target at n = 256)
  # with the cost of one call split into its parts: a few seconds.
  [ -x "$bin/bench_gpu" ] && step "bench_gpu --gemm" "$bin/bench_gpu" --gemm
  # Convolution on cuda:0 (cuDNN, issue #49) beside PyTorch's in its own process.
  if [ -x "$bin/bench_conv_gpu" ]; then
    step "bench_conv_gpu" bash -c 'set -o pipefail; "$0" | tee "$1"' "$bin/bench_conv_gpu" \
      "$logs/conv_gpu.txt"
    if python3 -c 'import torch; assert torch.cuda.is_available()' >/dev/null 2>&1; then
      step "torch_conv_gpu.py --device cuda:0" bash -c 'set -o pipefail; python3 "$0" --hetero "$1" | tee "$2"' \
        "$here/bench/torch_conv_gpu.py" "$logs/conv_gpu.txt" "$logs/torch_conv_gpu.txt"
      sed 's/^/    /' "$logs/torch_conv_gpu.txt"
    fi
  fi
  # bench_large_ops' rows (issue #26) on cuda:0 beside PyTorch's, run in its own process
  # where a CUDA PyTorch is importable; the tables stay in the logs for bench/report.py.
  if [ -x "$bin/bench_large_ops" ]; then
    step "bench_large_ops --device cuda:0" bash -c 'set -o pipefail; "$0" --device cuda:0 --paired 10 | tee "$1"' \
      "$bin/bench_large_ops" "$logs/large_ops_gpu.txt"
    if python3 -c 'import torch; assert torch.cuda.is_available()' >/dev/null 2>&1; then
      step "torch_large_ops.py --device cuda:0" bash -c 'set -o pipefail; python3 "$0" --device cuda:0 --rounds 10 | tee "$1"' \
        "$here/bench/torch_large_ops.py" "$logs/torch_large_ops_gpu.txt"
      python3 "$here/bench/report.py" --join-large-ops "$logs/large_ops_gpu.txt" "$logs/torch_large_ops_gpu.txt" |
        sed 's/^/    /'
    else
      echo "  (no CUDA PyTorch for python3: bench/torch_large_ops.py skipped)"
    fi
  fi
  [ -x "$bin/bench_exercises" ] && step "bench_exercises on cuda:0" "$bin/bench_exercises" \
    --benchmark_filter=cuda --benchmark_min_time=0.05
  [ -x "$bin/bench_small_ops" ] && step "bench_small_ops" "$bin/bench_small_ops" --benchmark_min_time=0.01
  if command -v compute-sanitizer >/dev/null 2>&1; then
    # Without the out-of-memory test: the cudaMalloc failures it provokes on purpose are
    # reported as API errors.
    step "compute-sanitizer memcheck test_cuda_gpu" compute-sanitizer --tool memcheck --error-exitcode 99 \
      "$bin/test_cuda_gpu" --gtest_filter=-*OutOfMemory*
    step "compute-sanitizer memcheck chapter_gpu" compute-sanitizer --tool memcheck --error-exitcode 99 \
      "$bin/chapter_gpu"
  else
    echo "  (compute-sanitizer not found: memcheck skipped)"
  fi
  if [ $failed -gt 0 ]; then
    echo "gpu_check: failed: ${failures[*]}"
  fi
  echo "gpu_check: $passed passed, $failed failed"
  # The run's row for docs/bench/gpu_status.md (issue #47 item 7), to add to the table in the
  # checkout: tools/gpu_status_since.sh then counts the cuda commits from this one.
  local device commit
  device="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)"
  commit="$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  printf '| %s | %s | %s | %d / %d | %s |\n' "$(date -u +%F)" "${device:-a GPU}" "$commit" \
    "$passed" "$((passed + failed))" \
    "$([ $failed -eq 0 ] && echo "every step passed" || echo "failed: ${failures[*]}")" |
    tee "$logs/gpu_status_row.md" | sed 's/^/gpu_check: gpu_status.md row: /'
  [ $failed -eq 0 ]
  exit $?
}

case "${1:-}" in
  --pack)
    [ $# -ge 2 ] || { echo "usage: $0 --pack FILE [BUILD_DIR]" >&2; exit 2; }
    pack "$2" "${3:-build}"
    ;;
  --from-pack)
    [ $# -eq 2 ] || { echo "usage: $0 --from-pack FILE" >&2; exit 2; }
    from_pack "$2"
    ;;
  -h | --help)
    sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'
    ;;
  *)
    build="${1:-build}"
    [ -d "$build" ] || { echo "gpu_check: no build directory '$build'" >&2; exit 2; }
    check "$(cd "$build" && pwd)"
    ;;
esac
