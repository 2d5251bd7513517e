#!/usr/bin/env bash
# hetero-conformance's exit codes (issue #47 item 2): 0 passed, 1 a test failed, 2 usage
# error, 3 the plugin did not load, 4 no test ran unless --allow-empty; and --quick.
# usage: tools/conformance_exit_codes.sh HETERO_CONFORMANCE CPU_PLUGIN
set -u
tool="$1"; plugin="$2"; failed=0
expect() {  # expect CODE ARGS...
  local want="$1"; shift
  "$tool" "$@" >/tmp/hetero_conformance_exit.$$ 2>&1
  local got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: hetero-conformance $* exited $got, expected $want"; tail -5 /tmp/hetero_conformance_exit.$$
    failed=1
  else
    echo "ok: hetero-conformance $* -> $got"
  fi
}
expect 2                                  # --plugin missing
expect 2 --plugin "$plugin" --no-such-flag-of-the-tool=1 --filter
expect 3 --plugin /nonexistent/libhetero-nothing.so
expect 4 --plugin "$plugin" --filter 'NoSuchTest*'
expect 0 --plugin "$plugin" --filter 'NoSuchTest*' --allow-empty
expect 0 --plugin "$plugin" --filter '*RandomIsTheSdkStream*'
expect 0 --plugin "$plugin" --list
expect 0 --help
"$tool" --plugin "$plugin" --filter 'NoSuchTest*' 2>&1 | grep -q "no test ran (0 skipped, [0-9]* filtered out)" ||
  { echo "FAIL: the empty run does not say why"; failed=1; }
# --quick keeps a group's other tests and combines with --filter: of the reductions only the
# exhaustive ReductionsMatchReference is left out.
"$tool" --plugin "$plugin" --quick --filter '*Gemm*:*Reductions*:*Extrema*' 2>&1 |
  grep -q 'PASSED  \] 3 tests' || { echo "FAIL: --quick with --filter"; failed=1; }
rm -f /tmp/hetero_conformance_exit.$$
exit "$failed"
