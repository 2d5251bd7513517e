#!/usr/bin/env bash
# The package as its users get it: installs the build in $1 (default build/) to a
# temporary prefix, MOVES the prefix (relocatability), then, against the moved prefix
# and out of tree, as a third party would:
#   1. builds and runs the application example (examples/app), and, where hetero was
#      built with MPI, a small Hetero::distributed program under mpirun -np 2;
#   2. builds the template backend (sdk/template) and runs its conformance, then the
#      installed hetero-conformance against the built plugin file;
#   3. builds the OpenCL backend (plugins/opencl, CLBlast) and runs its conformance
#      suite on PoCL (one and two devices) and its tensor tests;
#   4. installs the OpenCL plugin into the moved prefix, shows hetero-smi there, and runs
#      the OpenCL tests again (they must test the build tree's plugin, not the installed one);
#   5. runs the differential test against PyTorch (tests/torch_diff) on opencl:0.
# Build trees go to build-package/; the prefix is removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
jobs="${HETERO_JOBS:-2}"
out="$PWD/build-package"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi

echo "== install to $tmp/staged, then move to $tmp/moved"
cmake --install "$build" --prefix "$tmp/staged" >/dev/null
mv "$tmp/staged" "$tmp/moved"
prefix="$tmp/moved"

configure() {  # configure <source> <name>
  # A build folder left from another source folder (a moved project) is started afresh.
  if [ -f "$out/$2/CMakeCache.txt" ] &&
     ! grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$(cd "$1" && pwd)" "$out/$2/CMakeCache.txt"; then
    rm -rf "${out:?}/$2"
  fi
  cmake -S "$1" -B "$out/$2" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_PREFIX_PATH="$prefix" \
        "${launcher[@]}" >/dev/null
  cmake --build "$out/$2" -j"$jobs"
}

echo "== HeteroConfigVersion: SameMajorVersion refuses another major"
mkdir -p "$tmp/version_check"
cat > "$tmp/version_check/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(version_check LANGUAGES NONE)
find_package(Hetero 1.0 CONFIG QUIET)
if(Hetero_FOUND)
  message(FATAL_ERROR "find_package(Hetero 1.0) accepted version ${Hetero_VERSION}")
endif()
find_package(Hetero 0.1 CONFIG REQUIRED COMPONENTS sdk)
find_package(Hetero 0.1 CONFIG QUIET COMPONENTS no_such_component)
if(Hetero_FOUND)
  message(FATAL_ERROR "an unknown component was accepted")
endif()
message(STATUS "version_check: Hetero ${Hetero_VERSION} at ${Hetero_DIR}")
CMAKE
cmake -S "$tmp/version_check" -B "$tmp/version_check/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" | grep version_check

# layer_check NAME TARGET INCLUDE FORBIDDEN MESSAGE: a file that links only TARGET and
# includes INCLUDE must not see the header FORBIDDEN (the #error fires otherwise).
layer_check() {
  mkdir -p "$tmp/$1"
  cat > "$tmp/$1/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project($1 LANGUAGES CXX)
find_package(Hetero 0.1 CONFIG REQUIRED COMPONENTS sdk)
add_library($1 OBJECT $1.cpp)
target_link_libraries($1 PRIVATE $2)
CMAKE
  printf '#include <%s>\n#if __has_include(<%s>)\n#error "%s"\n#endif\n' "$3" "$4" "$5" \
    > "$tmp/$1/$1.cpp"
  configure "$tmp/$1" "$1"
}

echo "== the installed layers: Hetero::sdk reaches the SDK and base headers, not the core's"
layer_check sdk_layer Hetero::sdk hetero/sdk/sdk.hpp hetero/tensor.hpp \
  "Hetero::sdk sees the core's headers"
echo "== the installed layers: Hetero::core does not hand the SDK's headers to applications"
layer_check core_layer Hetero::core hetero/hetero.hpp hetero/sdk/backend.hpp \
  "Hetero::core hands the SDK's headers to applications"

echo "== sonames: 0.MINOR while the major is 0 (docs/versioning.md)"
version="$(pkg-config --with-path="$prefix/lib/pkgconfig" --modversion hetero)"
want_soname="libhetero_core.so.${version%%.*}"
[ "${version%%.*}" = 0 ] && want_soname="libhetero_core.so.0.$(echo "$version" | cut -d. -f2)"
got_soname="$(readelf -d "$prefix/lib/libhetero_core.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')"
[ "$got_soname" = "$want_soname" ] ||
  { echo "test_package: libhetero_core's soname is '$got_soname', expected '$want_soname'" >&2; exit 1; }

echo "== what the install gives to learn from (issue #47 item 4)"
for f in share/doc/hetero/README.md share/doc/hetero/sdk.md share/doc/hetero/from_libtorch.md \
         share/doc/hetero/semantics.md share/doc/hetero/versioning.md \
         share/hetero/examples/app/main.cpp share/hetero/template/CMakeLists.txt; do
  [ -f "$prefix/$f" ] || { echo "test_package: $f is not installed" >&2; exit 1; }
done
if [ -f "$build/docs/html/index.html" ]; then  # the API reference, where Doxygen built it
  [ -f "$prefix/share/doc/hetero/html/index.html" ] ||
    { echo "test_package: the API reference is not installed" >&2; exit 1; }
fi

echo "== the installed examples/app against the moved prefix"
configure "$prefix/share/hetero/examples/app" app
"$out/app/hetero_app"

echo "== examples/app through pkg-config (hetero.pc, relocatable) instead of CMake"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
[ "$(pkg-config --modversion hetero)" = "$(pkg-config --modversion hetero-sdk)" ]
mkdir -p "$out/app_pkgconfig"
# No -std here: the .pc files' Cflags carry -std=c++20 (g++ 12 defaults to C++17).
# shellcheck disable=SC2046  # the flags are words
g++ "$prefix/share/hetero/examples/app/main.cpp" -o "$out/app_pkgconfig/hetero_app" \
  $(pkg-config --cflags --libs hetero) -Wl,-rpath,"$(pkg-config --variable=libdir hetero)"
"$out/app_pkgconfig/hetero_app"
# shellcheck disable=SC2046
printf '#include <hetero/sdk/sdk.hpp>\nint main() { return 0; }\n' |
  g++ -x c++ - -fsyntax-only $(pkg-config --cflags hetero-sdk)
[ -d "$(pkg-config --variable=plugindir hetero-sdk)" ]

if [ -e "$prefix/lib/cmake/Hetero/HeteroDistributedTargets.cmake" ]; then
  echo "== Hetero::distributed from the moved prefix, under mpirun -np 2"
  mkdir -p "$tmp/ddp"
  cat > "$tmp/ddp/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(ddp_consumer LANGUAGES CXX)
find_package(Hetero 0.1 CONFIG REQUIRED COMPONENTS distributed)
add_executable(ddp_consumer main.cpp)
target_compile_features(ddp_consumer PRIVATE cxx_std_20)
target_link_libraries(ddp_consumer PRIVATE Hetero::distributed)
CMAKE
  cat > "$tmp/ddp/main.cpp" <<'CPP'
#include <cstdio>
#include <hetero/distributed.hpp>
#include <hetero/hetero.hpp>
int main() {
  namespace dist = hetero::distributed;
  dist::init_process_group();
  hetero::Tensor t = hetero::full({3}, dist::rank() + 1.0);
  dist::all_reduce(t);
  const float expected = dist::world_size() * (dist::world_size() + 1) / 2.0f;
  std::printf("rank %d: %g (expected %g)\n", dist::rank(), t.to_vector<float>()[0], expected);
  return t.to_vector<float>()[2] == expected ? 0 : 1;
}
CPP
  configure "$tmp/ddp" ddp
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -np 2 "$out/ddp/ddp_consumer"
fi

echo "== the installed sdk/template: out-of-tree plugin + conformance kit"
configure "$prefix/share/hetero/template" template
ctest --test-dir "$out/template" --output-on-failure

echo "== the installed hetero-conformance against the prebuilt template plugin"
"$prefix/bin/hetero-conformance" --plugin "$out/template/lib/hetero/plugins/libhetero-template.so" \
  --filter '*Gather*:*IndexSelect*:*RandomIsTheSdkStream*:*UnaryOps*'

echo "== plugins/opencl: out-of-tree plugin on CLBlast, conformance on PoCL"
configure plugins/opencl opencl
ctest --test-dir "$out/opencl" -j"$jobs" --output-on-failure

echo "== plugins export only the two entry points"
for so in "$out/template/lib/hetero/plugins/libhetero-template.so" "$out/opencl/lib/hetero/plugins/libhetero-opencl.so"; do
  exported="$(nm -D --defined-only "$so" | awk '$2 == "T" {print $3}' | sort | tr '\n' ' ')"
  [ "$exported" = "hetero_plugin_create hetero_plugin_info " ] || { echo "$so exports: $exported" >&2; exit 1; }
done

echo "== the OpenCL plugin installed into the moved prefix: hetero-smi finds it"
cmake --install "$out/opencl" --prefix "$prefix" >/dev/null
export POCL_CACHE_DIR="$out/opencl/pocl-cache"
"$prefix/bin/hetero-smi"
"$prefix/bin/hetero-smi" --json > "$out/hetero-smi.json"
grep -q '"name": "opencl"' "$out/hetero-smi.json" || { echo "hetero-smi --json lists no opencl plugin" >&2; exit 1; }

echo "== the tests again with an opencl plugin installed: they still test this build's file"
ctest --test-dir "$out/opencl" -j"$jobs" --output-on-failure

echo "== the differential test against PyTorch on opencl:0 (PoCL; docs/semantics.md)"
HETERO_BACKENDS=cpu,opencl HETERO_PLUGIN_PATH="$out/opencl/lib/hetero/plugins" \
  tests/torch_diff/run_torch_diff.sh "$build/bin/torch_diff" opencl:0
echo "test_package: all passed"
