#!/usr/bin/env bash
# Resuming ResNet-18 from a checkpoint gives the parameters, BatchNorm statistics, optimiser
# and schedule state of an uninterrupted run, bit for bit: two epochs in one run vs one epoch
# (--stop-after 1 of the same two-epoch schedule), then --resume for the second; the files
# must be the same bytes. usage: check_resume.sh RESNET_BINARY [extra options]
set -euo pipefail
bin="$1"; shift
dir="$(mktemp -d "${TMPDIR:-/tmp}/hetero_resnet_resume.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
common=(--limit 384 --test-limit 200 --batch-size 64 --epochs 2 --augment --quiet "$@")
"$bin" "${common[@]}" --checkpoint "$dir/straight.safetensors"
"$bin" "${common[@]}" --stop-after 1 --checkpoint "$dir/resumed.safetensors"
"$bin" "${common[@]}" --checkpoint "$dir/resumed.safetensors" --resume
for suffix in "" .optimizer .schedule; do
  cmp "$dir/straight.safetensors$suffix" "$dir/resumed.safetensors$suffix"
done
echo "check_resume: the resumed run's parameters and state equal the uninterrupted run's"
