#!/usr/bin/env bash
# What has changed in the CUDA plugin's code since a GPU last ran it (issue #47 item 7): the
# commit of docs/bench/gpu_status.md's last row (what tools/gpu_check.sh last ran on a lent
# GPU), and every commit since that touched plugins/cuda or the SDK's headers, which have
# therefore only been compiled. No GPU needed; README says how to read it.
#   tools/gpu_status_since.sh [REPO_DIR [TABLE]]     (TABLE: default docs/bench/gpu_status.md)
# Exit 0 with the list (empty when nothing changed); 1 when the table's last commit cannot
# be read or is not in the history (the table is wrong); 77 without git history (a source
# tarball, a shallow clone): nothing to compare.
set -euo pipefail
table="$(realpath "${2:-$(dirname "$0")/../docs/bench/gpu_status.md}")"
cd "${1:-$(dirname "$0")/..}"
git rev-parse --git-dir >/dev/null 2>&1 || { echo "gpu_status_since: not a git checkout"; exit 77; }
[ "$(git rev-parse --is-shallow-repository)" = false ] ||
  { echo "gpu_status_since: a shallow clone has not the history"; exit 77; }
# The last table row: | date | device | commit | steps | result |; its commit column's first
# hexadecimal word.
row="$(grep '^| 20' "$table" | tail -1)"
commit="$(echo "$row" | awk -F'|' '{print $4}' | grep -oE '\b[0-9a-f]{7,40}\b' | head -1 || true)"
date="$(echo "$row" | awk -F'|' '{gsub(/^ +| +$/, "", $2); print $2}')"
if [ -z "$commit" ] || ! git cat-file -e "$commit^{commit}" 2>/dev/null; then
  echo "gpu_status_since: $table's last row names no commit of this history: '$row'" >&2
  exit 1
fi
changed="$(git log --oneline --no-decorate "$commit"..HEAD -- plugins/cuda sdk/include)"
count=$(printf '%s' "$changed" | grep -c . || true)
echo "last GPU run: $commit ($date, $table)"
if [ "$count" -eq 0 ]; then
  echo "plugins/cuda and sdk/include: unchanged since that run"
else
  echo "plugins/cuda and sdk/include: $count commit(s) since, compiled but not run on a GPU:"
  echo "$changed" | cut -c1-160
fi
