#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# mpirun_guard.sh SECONDS COMMAND...: runs COMMAND (an mpirun) with a deadline and says why
# it did not end in time. Exit status: COMMAND's own when it ends within SECONDS; 124 when
# ranks (mpirun's child processes) were still running at the deadline -- a hang of the
# program under test; 125 when every rank had exited and mpirun itself had not: Open MPI
# 4.1's launcher can deadlock in PMIx_server_finalize after ranks exit without MPI_Finalize
# (seen about once in 15 runs of late_rank's "never" mode on a loaded 2-core machine: every
# rank exited, a zombie, and mpirun's main thread waiting in PMIx_server_finalize). Either
# way everything is killed.
set -u
limit="$1"
shift
"$@" &
job=$!
for ((tick = 0; tick < limit * 10; ++tick)); do
  if ! kill -0 "$job" 2>/dev/null; then
    wait "$job"
    exit $?
  fi
  sleep 0.1
done
# mpirun's live children, from /proc (no procps needed): after the name come the state and
# the parent. A rank that has exited stays a zombie (state Z) until mpirun reaps it, which a
# hung mpirun does not: zombies are not running ranks.
ranks=()
for stat in /proc/[0-9]*/stat; do
  line=$(cat "$stat" 2>/dev/null) || continue
  fields=(${line##*) })
  [ "${fields[1]:-}" = "$job" ] && [ "${fields[0]}" != Z ] && ranks+=("$(basename "$(dirname "$stat")")")
done
kill -9 "${ranks[@]}" "$job" 2>/dev/null
wait "$job" 2>/dev/null
if [ ${#ranks[@]} -eq 0 ]; then
  echo "mpirun_guard: mpirun had not ended ${limit} s after its start with every rank gone (Open MPI's launcher hung in its own finalize); killed it" >&2
  exit 125
fi
echo "mpirun_guard: ranks still running after ${limit} s (pids ${ranks[*]}); killed them" >&2
exit 124
