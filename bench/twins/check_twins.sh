#!/usr/bin/env bash
# An issue-#46 example and its libtorch twin, given the same --twin-files (hetero's initial
# weights and data order), train alike: every loss the two transcripts print agrees within
# TOL (ResNet-18: the epoch's mean loss and its first and last steps' losses; the
# Transformer: the train and validation loss at each evaluation). And the test can fail: the
# twin run on its own weights and order must differ from hetero by more than TOL somewhere.
# usage: check_twins.sh resnet18|char_transformer BIN_DIR TOL [options for both programs]
set -euo pipefail
model="$1" bin="$2" tol="$3"; shift 3
dir="$(mktemp -d "${TMPDIR:-/tmp}/hetero_twins.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
case "$model" in
  resnet18) hetero=(resnet18_fashion_mnist --device cpu --quiet) twin=resnet18_libtorch ;;
  char_transformer) hetero=(char_transformer --device cpu --quiet --sample 0)
                    twin=char_transformer_libtorch ;;
  *) echo "check_twins: unknown model $model" >&2; exit 2 ;;
esac
# The losses of a transcript, one per line: the number after "loss", "steps" or "last".
losses() { grep -oE '(loss|steps|last) [0-9]+\.[0-9]+' | awk '{print $2}'; }
"$bin/${hetero[0]}" "${hetero[@]:1}" "$@" --twin-files "$dir/files" | tee "$dir/hetero.txt"
"$bin/$twin" "$@" --twin-files "$dir/files" | tee "$dir/twin.txt"
"$bin/$twin" "$@" > "$dir/alone.txt"
losses < "$dir/hetero.txt" > "$dir/hetero.losses"
losses < "$dir/twin.txt" > "$dir/twin.losses"
losses < "$dir/alone.txt" > "$dir/alone.losses"
# Largest difference between two loss lists (they must be equally long and not empty).
largest() {
  paste "$1" "$2" | awk -v n1="$(wc -l < "$1")" -v n2="$(wc -l < "$2")" '
    BEGIN { if (n1 != n2 || n1 == 0) { print "mismatch"; exit } }
    { d = $1 - $2; if (d < 0) d = -d; if (d > m) m = d } END { if (n1 == n2 && n1 > 0) print m + 0 }'
}
same=$(largest "$dir/hetero.losses" "$dir/twin.losses")
apart=$(largest "$dir/hetero.losses" "$dir/alone.losses")
echo "check_twins: $(wc -l < "$dir/hetero.losses") losses; largest difference from the twin" \
     "on hetero's files $same, on its own weights and order $apart (bound $tol)"
[ "$same" != mismatch ] && [ "$apart" != mismatch ] || { echo "check_twins: transcripts differ in shape" >&2; exit 1; }
awk -v s="$same" -v a="$apart" -v t="$tol" 'BEGIN { exit !(s <= t && a > t) }' ||
  { echo "check_twins: FAILED" >&2; exit 1; }
