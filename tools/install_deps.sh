#!/usr/bin/env bash
# Installs what hetero needs to build and test on Debian 12 (skips apt when all present).
# --main installs only what configuring the tree and building the main job (the core, the
# cpu plugin, chapter_gpu) need: README's first command (issue #47 item 1; the tests' oracle
# python3-torch, MPI, clang, PoCL and the data sets come with the full set). Debian's
# oneDNN CMake package requires OpenCL's (its GPU runtime is OpenCL; libdnnl-dev only
# recommends ocl-icd-opencl-dev, and apt here installs no recommends): without it, a fresh
# machine's configure failed in dnnl-config.cmake (found in a debootstrap'ed Debian 12).
# --bench adds the benchmarks' peers and plots: libtorch-dev (about 1 GB) and
# python3-matplotlib (bench/run works without them, with fewer columns and no plots).
set -euo pipefail
main=(g++ cmake ninja-build pkg-config ccache git
      libboost-dev libopenblas-dev libhwy-dev libsleef-dev librandom123-dev libdlpack-dev libgtest-dev libgmock-dev libbenchmark-dev
      libcli11-dev libfmt-dev nlohmann-json3-dev libfp16-dev zlib1g-dev libdnnl-dev
      ocl-icd-opencl-dev)
case "${1:-}" in
  --main) pkgs=("${main[@]}") ;;
  --bench|"")
    bench=()
    [ "${1:-}" = "--bench" ] && bench=(libtorch-dev python3-matplotlib)
    pkgs=("${bench[@]}" "${main[@]}" dataset-fashion-mnist fortunes
          libopenmpi-dev openmpi-bin
          python3-numpy python3-torch clang clang-format libclang-rt-dev doxygen
          libclblast-dev opencl-headers pocl-opencl-icd) ;;
  *) echo "usage: tools/install_deps.sh [--main | --bench]" >&2; exit 2 ;;
esac
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: all ${#pkgs[@]} packages present"
  exit 0
fi
echo "install_deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
