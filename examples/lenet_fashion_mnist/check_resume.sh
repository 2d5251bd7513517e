#!/usr/bin/env bash
# Resuming LeNet from a checkpoint gives the parameters of an uninterrupted run, bit for bit:
# two epochs in one run vs one epoch, then --resume for the second; the two checkpoints must
# be the same bytes. usage: check_resume.sh LENET_BINARY [extra options]
set -euo pipefail
bin="$1"; shift
dir="$(mktemp -d "${TMPDIR:-/tmp}/hetero_lenet_resume.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
common=(--limit 1024 --test-limit 256 --batch-size 128 --quiet "$@")
"$bin" "${common[@]}" --epochs 2 --checkpoint "$dir/straight.safetensors"
"$bin" "${common[@]}" --epochs 1 --checkpoint "$dir/resumed.safetensors"
"$bin" "${common[@]}" --epochs 2 --checkpoint "$dir/resumed.safetensors" --resume
cmp "$dir/straight.safetensors" "$dir/resumed.safetensors"
cmp "$dir/straight.safetensors.optimizer" "$dir/resumed.safetensors.optimizer"
echo "check_resume: the resumed run's parameters equal the uninterrupted run's"
