#!/usr/bin/env bash
# Resuming char_transformer from a checkpoint gives the parameters of an uninterrupted run,
# bit for bit (model, AdamW state, schedule and data stream): 20 steps in one run vs a run
# stopped after 10 (--stop-after) and resumed; the two checkpoints must be the same bytes.
# usage: check_resume.sh BINARY [extra options]
set -euo pipefail
bin="$1"; shift
dir="$(mktemp -d "${TMPDIR:-/tmp}/hetero_char_resume.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
common=(--batch-size 4 --context 16 --d-model 16 --heads 2 --layers 1 --warmup 4 --eval-every 10
        --eval-batches 2 --sample 0 --quiet "$@")
"$bin" "${common[@]}" --steps 20 --checkpoint "$dir/straight.safetensors"
"$bin" "${common[@]}" --steps 20 --stop-after 10 --checkpoint "$dir/resumed.safetensors"
"$bin" "${common[@]}" --steps 20 --checkpoint "$dir/resumed.safetensors" --resume
cmp "$dir/straight.safetensors" "$dir/resumed.safetensors"
cmp "$dir/straight.safetensors.optimizer" "$dir/resumed.safetensors.optimizer"
cmp "$dir/straight.safetensors.schedule" "$dir/resumed.safetensors.schedule"
echo "check_resume: the resumed run's parameters equal the uninterrupted run's"
