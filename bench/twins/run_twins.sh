#!/usr/bin/env bash
# Step time of each issue-#46 example against its libtorch twin, each framework in its own
# process, alternated for ROUNDS rounds; prints each run's figure, then the medians and the
# ratio (libtorch time / hetero time: > 1 means hetero is faster).
# usage: bench/twins/run_twins.sh BUILD_DIR [ROUNDS]    (needs the twins: libtorch-dev)
set -euo pipefail
build="${1:?usage: run_twins.sh BUILD_DIR [ROUNDS]}"; rounds="${2:-3}"
bin="$build/bin"
for b in resnet18_fashion_mnist resnet18_libtorch char_transformer char_transformer_libtorch; do
  [ -x "$bin/$b" ] || { echo "run_twins: $bin/$b is missing (the twins need libtorch-dev)" >&2; exit 2; }
done
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
# ResNet-18: one epoch of 6400 images at batch 128 (50 steps); the epoch's seconds per step.
resnet_args=(--epochs 1 --limit 6400 --test-limit 1000 --batch-size 128)
# Transformer: 200 steps of the README's configuration; seconds per step at step 200.
char_args=(--steps 200 --eval-every 200 --eval-batches 2)
declare -a rh rt ch ct
for ((r = 1; r <= rounds; ++r)); do
  s=$("$bin/resnet18_fashion_mnist" "${resnet_args[@]}" --device cpu --quiet |
      awk '/^epoch/ {for (i = 1; i <= NF; ++i) if ($i == "s") print $(i-1) / 50}')
  rh+=("$s"); echo "round $r  resnet18 hetero    $s s/step"
  s=$("$bin/resnet18_libtorch" "${resnet_args[@]}" |
      awk '/^epoch/ {for (i = 1; i <= NF; ++i) if ($i == "s") print $(i-1) / 50}')
  rt+=("$s"); echo "round $r  resnet18 libtorch  $s s/step"
  s=$("$bin/char_transformer" "${char_args[@]}" --device cpu --quiet --sample 0 |
      awk '/^step/ {print $(NF-1) / 200}' | tail -1)
  ch+=("$s"); echo "round $r  char     hetero    $s s/step"
  s=$("$bin/char_transformer_libtorch" "${char_args[@]}" | awk '/^step/ {print $(NF-1) / 200}' | tail -1)
  ct+=("$s"); echo "round $r  char     libtorch  $s s/step"
done
for pair in "resnet18 rh rt" "char_transformer ch ct"; do
  set -- $pair
  declare -n h="$2" t="$3"
  mh=$(printf '%s\n' "${h[@]}" | median); mt=$(printf '%s\n' "${t[@]}" | median)
  printf '%-17s hetero %.4f s/step (%s)  libtorch %.4f s/step (%s)  libtorch/hetero %.2f\n' \
    "$1" "$mh" "$(echo "${h[@]}" | tr ' ' ',')" "$mt" "$(echo "${t[@]}" | tr ' ' ',')" \
    "$(echo "$mt / $mh" | bc -l)"
  unset -n h t
done
