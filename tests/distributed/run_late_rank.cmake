# cmake -DMPIEXEC=... -DPROGRAM=... -DGUARD=mpirun_guard.sh -DWORK_DIR=... -P run_late_rank.cmake
# Runs late_rank on 3 ranks with a 1 s collective timeout, "late" then "never" (see
# late_rank.cpp); the start-up timeout is left at its default. WORK_DIR (default: the
# current directory) holds the ranks' marker files, one fresh directory per mode.
set(ENV{HETERO_DISTRIBUTED_TIMEOUT} 1)
unset(ENV{HETERO_DISTRIBUTED_INIT_TIMEOUT})
if(NOT WORK_DIR)
  set(WORK_DIR ${CMAKE_CURRENT_BINARY_DIR})
endif()
foreach(mode late never)
  set(markers ${WORK_DIR}/late_rank_markers.${mode})
  file(REMOVE_RECURSE ${markers})
  file(MAKE_DIRECTORY ${markers})
  # mpirun_guard.sh: 124 when ranks were still running at the deadline (a hang), 125 when
  # every rank had exited and mpirun hung in its own finalize (an Open MPI 4.1 launcher
  # bug, seen after ranks exit without MPI_Finalize: the ranks' output is checked as usual).
  execute_process(
    COMMAND bash ${GUARD} 60 ${MPIEXEC} --oversubscribe -np 3 ${PROGRAM} ${mode} ${markers}
    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc
    TIMEOUT 120)
  message(STATUS "${mode}: mpirun exit: ${rc}\n--- stdout\n${out}--- stderr\n${err}")
  if(rc MATCHES "timeout" OR rc EQUAL 124)
    message(FATAL_ERROR "${mode}: the job hung")
  endif()
  if(rc EQUAL 125)
    message(WARNING "${mode}: mpirun hung after every rank had exited (Open MPI's launcher); checking the ranks' output")
  endif()
  # A rank crashed when mpirun says one exited on SIGSEGV, SIGABRT or SIGBUS, or a
  # backtrace names the program. (mpirun may end a rank left waiting for the others with
  # SIGTERM: not a crash. Open MPI 4.1's mpiexec itself has crashed once in its own
  # PMIx_server_finalize after ranks exited without MPI_Finalize: a launcher bug, its
  # backtrace names mpiexec, not the program.)
  get_filename_component(program_name ${PROGRAM} NAME)
  if(err MATCHES "exited on signal (11|6|7)|${program_name}\\(|${program_name}\\[|core dumped")
    message(FATAL_ERROR "${mode}: a rank crashed")
  endif()
  # Issue #48: every rank started, rank 0 two seconds after the others, past their 1 s
  # collective timeout.
  foreach(r 0 1 2)
    if(NOT out MATCHES "rank ${r} of 3: started")
      message(FATAL_ERROR "${mode}: rank ${r} did not start (a late peer failed the start-up)")
    endif()
  endforeach()
  foreach(r 1 2)
    if(NOT out MATCHES "rank ${r} of 3: all_reduce timed out")
      message(FATAL_ERROR "${mode}: rank ${r} did not time out")
    endif()
    # Issue #29 item 9: the timeout names the rank that did not arrive.
    if(NOT out MATCHES "rank ${r} of 3: all_reduce timed out: [^\n]*: rank 0 has not reached it")
      message(FATAL_ERROR "${mode}: rank ${r}'s timeout does not name rank 0 as missing")
    endif()
  endforeach()
  if(mode STREQUAL "late")
    if(NOT rc EQUAL 0 AND NOT rc EQUAL 125)  # 125: every rank gone; their lines say how
      message(FATAL_ERROR "late: mpirun exited ${rc}: the late rank's job must end cleanly")
    endif()
    foreach(r 1 2)
      if(NOT out MATCHES "rank ${r} of 3: the second all_reduce failed: rank ${r} of 3: all_reduce: the process group is unusable")
        message(FATAL_ERROR "late: rank ${r}: the queued second all_reduce did not fail")
      endif()
    endforeach()
    if(NOT out MATCHES "rank 0 of 3: the second all_reduce returned 3")
      message(FATAL_ERROR "late: rank 0: the second all_reduce did not complete")
    endif()
    foreach(r 1 2)  # issue #29 item 3: no write after the error
      if(NOT out MATCHES "rank ${r} of 3: the tensor after the late completion: unchanged")
        message(FATAL_ERROR "late: rank ${r}: the abandoned all_reduce wrote the tensor after its error")
      endif()
    endforeach()
    foreach(r 0 1 2)
      if(NOT out MATCHES "rank ${r} of 3: new group all_reduce 3")
        message(FATAL_ERROR "late: rank ${r}: the new group did not work")
      endif()
    endforeach()
  else()
    foreach(r 1 2)
      if(NOT out MATCHES "rank ${r} of 3: new group refused: init_process_group: the communication thread")
        message(FATAL_ERROR "never: rank ${r}: a new group was not refused")
      endif()
    endforeach()
  endif()
endforeach()
