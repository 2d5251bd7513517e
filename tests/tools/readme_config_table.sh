#!/bin/sh
# README's configuration table is hetero-smi --env --markdown, byte for byte (the table
# lives in base/include/hetero/config.hpp; regenerate README's block when it changes).
# usage: readme_config_table.sh HETERO_SMI README
set -eu
smi="$1" readme="$2"
want="$(mktemp)" got="$(mktemp)"
trap 'rm -f "$want" "$got"' EXIT
env -u HETERO_LOG "$smi" --env --markdown > "$want"
sed -n '/^<!-- config-table/,/^<!-- \/config-table -->/p' "$readme" | sed '1d;$d' > "$got"
if ! diff -u "$got" "$want"; then
  echo "README's configuration table differs from hetero-smi --env --markdown (above: - README, + table)"
  exit 1
fi
echo "README's configuration table matches"
