# cmake -DMPIEXEC=... -DPROGRAM=... -DTIMEOUT=<seconds> -P run_peer_failure.cmake
# Runs peer_failure on 3 ranks with rank 1 killed; passes when ranks 0 and 2 each report
# a DistributedError within the timeout plus a margin. mpirun's own exit status is not
# checked: a killed rank makes it non-zero.
execute_process(
  COMMAND ${MPIEXEC} --oversubscribe --enable-recovery -np 3 ${PROGRAM}
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc
  TIMEOUT 180)
message(STATUS "mpirun exit: ${rc}\n--- stdout\n${out}--- stderr\n${err}")
math(EXPR limit "${TIMEOUT} + 30")
foreach(r 0 2)
  if(NOT out MATCHES "rank ${r} of 3 caught DistributedError after ([0-9.]+) s: rank ${r} of 3: ")
    message(FATAL_ERROR "rank ${r} did not report a DistributedError for the dead peer")
  endif()
  if(CMAKE_MATCH_1 GREATER limit)
    message(FATAL_ERROR "rank ${r} took ${CMAKE_MATCH_1} s (timeout ${TIMEOUT} s)")
  endif()
  if(NOT out MATCHES "rank ${r} of 3 then: rank ${r} of 3: barrier: the process group is unusable")
    message(FATAL_ERROR "rank ${r}: the failed group was used again without an error")
  endif()
endforeach()
