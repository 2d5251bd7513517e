#!/usr/bin/env bash
# Checks that every C++ and CUDA source (tracked, or new and not ignored) is formatted as .clang-format says
# (clang-format 14, Debian 12's `clang-format` package); exits 1 naming the files that
# are not. --fix formats them in place instead.
#   tools/check_format.sh [--fix]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check_format: clang-format not found (apt install clang-format)" >&2; exit 2; }
mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.cpp' '*.hpp' '*.cu' '*.cuh' '*.h')
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
# Batches of files per clang-format process, two processes at a time (one process per file
# took a minute of CI for 481 files); the files are named in its "error:" lines.
status=0
log="$(printf '%s\0' "${files[@]}" |
       xargs -0 -n 50 -P "${HETERO_JOBS:-2}" clang-format --dry-run --Werror 2>&1 >/dev/null)" ||
  status=$?
mapfile -t bad < <(printf '%s\n' "$log" | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*/\1/p' | sort -u)
if [ "$status" -ne 0 ] && [ ${#bad[@]} -eq 0 ]; then
  printf '%s\n' "$log" >&2
  echo "check_format: clang-format failed (status $status)" >&2
  exit 2
fi
if [ ${#bad[@]} -gt 0 ]; then
  echo "check_format: ${#bad[@]} file(s) not formatted (tools/check_format.sh --fix):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check_format: ${#files[@]} files formatted"
