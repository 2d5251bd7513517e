#!/usr/bin/env bash
# A backend author's broken kernel is named by the kit's first failure alone (issue #47
# item 2). The plugin `brokenadd` is the SDK's template backend whose float32 add drops the
# second operand of its last element (tests/CMakeLists.txt). The first failure must name the
# op, dtype, device and shape, and give the first differing element with both values and the
# operands there; every file:line a failure points to must exist on this machine.
# usage: tests/tools/conformance_broken_kernel.sh HETERO_CONFORMANCE BROKENADD_PLUGIN
set -u
tool="$1"; plugin="$2"; failed=0
out=$(mktemp); trap 'rm -f "$out"' EXIT
"$tool" --plugin "$plugin" --quick >"$out" 2>&1
rc=$?
fail() { echo "FAIL: $*"; failed=1; }
[ "$rc" -eq 1 ] || fail "hetero-conformance exited $rc, expected 1 (a test failed)"
# The first failure: from the first "file:line: Failure" to the first "[  FAILED  ]".
first=$(awk '/: Failure$/ {on=1} on {print} /^\[  FAILED  \]/ && on {exit}' "$out")
echo "--- the first failure:"; echo "$first" | cut -c1-300
for want in "add float32 on brokenadd:0, shape \[37\]" \
            "1 of 37 elements differ; first: \[36\]: got [-0-9.e]+, expected [-0-9.e]+" \
            ", a = [-0-9.e]+, b = [-0-9.e]+"; do
  echo "$first" | grep -Eq "$want" || fail "the first failure lacks /$want/"
done
# Every location printed exists here (the kit's sources, or their installed copy).
grep -Eo '^[^ ]+\.cpp:[0-9]+: (Failure|Skipped)$' "$out" | cut -d: -f1 | sort -u |
  while read -r f; do [ -f "$f" ] || { echo "FAIL: the location $f does not exist"; exit 1; }; done ||
  failed=1
[ "$(grep -c ': Failure$' "$out")" -ge 1 ] || fail "no failure was printed"
exit "$failed"
