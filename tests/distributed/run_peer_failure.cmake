# cmake -DMPIEXEC=... -DPROGRAM=... -DTIMEOUT=<seconds> -DGUARD=mpirun_guard.sh -P run_peer_failure.cmake
# Runs peer_failure on 3 ranks with rank 1 killed, after a first collective and then before
# init_process_group; passes when ranks 0 and 2 each report a DistributedError within the
# timeout plus a margin, and a second call fails at once. mpirun's own exit status is not
# checked: a killed rank makes it non-zero.
math(EXPR limit "${TIMEOUT} + 30")
# The start-up has the same bound (issue #48: its own, 300 s by default).
set(ENV{HETERO_DISTRIBUTED_INIT_TIMEOUT} ${TIMEOUT})
foreach(mode after_collective before_init)
  # mpirun_guard.sh: 124 when ranks were still running at the deadline (a hang); 125 when
  # only mpirun itself had not ended (its launcher's finalize, after a rank was killed).
  execute_process(
    COMMAND bash ${GUARD} 150 ${MPIEXEC} --oversubscribe --enable-recovery -np 3 ${PROGRAM} ${mode}
    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc
    TIMEOUT 180)
  message(STATUS "${mode}: mpirun exit: ${rc}\n--- stdout\n${out}--- stderr\n${err}")
  if(rc MATCHES "timeout" OR rc EQUAL 124)
    message(FATAL_ERROR "${mode}: the job hung")
  endif()
  if(mode STREQUAL "before_init")
    set(then "init again: init_process_group: ")
    # Issue #48: the start-up's error names its own bound.
    foreach(r 0 2)
      if(NOT out MATCHES "rank ${r} of 3 caught DistributedError[^\n]*HETERO_DISTRIBUTED_INIT_TIMEOUT")
        message(FATAL_ERROR "${mode}: rank ${r}'s start-up error does not name HETERO_DISTRIBUTED_INIT_TIMEOUT")
      endif()
    endforeach()
  else()
    set(then "barrier: the process group is unusable")
  endif()
  foreach(r 0 2)
    if(NOT out MATCHES "rank ${r} of 3 caught DistributedError after ([0-9.]+) s: rank ${r} of 3: ")
      message(FATAL_ERROR "${mode}: rank ${r} did not report a DistributedError for the dead peer")
    endif()
    # Issue #29 item 9: the timeout of the collective names the killed rank.
    if(mode STREQUAL "after_collective" AND NOT out MATCHES "rank ${r} of 3 caught DistributedError[^\n]*rank 1 has not reached it")
      message(FATAL_ERROR "${mode}: rank ${r}'s timeout does not name rank 1 as missing")
    endif()
    if(CMAKE_MATCH_1 GREATER limit)
      message(FATAL_ERROR "${mode}: rank ${r} took ${CMAKE_MATCH_1} s (timeout ${TIMEOUT} s)")
    endif()
    if(NOT out MATCHES "rank ${r} of 3 then: rank ${r} of 3: ${then}")
      message(FATAL_ERROR "${mode}: rank ${r}: the failed group was used again without an error")
    endif()
    # Issue #50 item 1: the Work queued behind the failed one completes (failed) too.
    if(mode STREQUAL "after_collective" AND NOT out MATCHES "rank ${r} of 3 queued: rank ${r} of 3: ")
      message(FATAL_ERROR "${mode}: rank ${r}: the queued Work did not fail once the group broke")
    endif()
  endforeach()
endforeach()
