# hetero_discover_tests(<target> LABEL <label> [TEST_PREFIX <prefix>] [ENVIRONMENT <VAR=value>...])
#
# gtest_discover_tests with the properties every discovered test of <target> gets. (Its
# PROPERTIES list must come last: DISCOVERY_TIMEOUT, TEST_PREFIX and the other keywords of
# gtest_discover_tests end it, and whatever follows one of them, an ENVIRONMENT say, is
# silently not a property.) Each call is also recorded for hetero_add_discovery_check(),
# whose test fails when a discovered test lacks the environment it was declared with.
function(hetero_discover_tests target)
  cmake_parse_arguments(arg "" "LABEL;TEST_PREFIX" "ENVIRONMENT" ${ARGN})
  if(NOT arg_LABEL OR arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "hetero_discover_tests(${target}): needs LABEL; unexpected: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  # The environment is set from an include file that runs after the discovered tests are
  # added: gtest_discover_tests (CMake 3.25) splits every property value at ';', so a
  # PROPERTIES ENVIRONMENT of more than one variable would keep only the first.
  gtest_discover_tests(${target} TEST_PREFIX "${arg_TEST_PREFIX}" DISCOVERY_TIMEOUT 60
    TEST_LIST ${target}_DISCOVERED PROPERTIES LABELS ${arg_LABEL})
  if(arg_ENVIRONMENT)
    set(include_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_environment.cmake)
    file(WRITE ${include_file}
      "if(DEFINED ${target}_DISCOVERED)\n"
      "  set_tests_properties(\${${target}_DISCOVERED} PROPERTIES ENVIRONMENT \"${arg_ENVIRONMENT}\")\n"
      "endif()\n")
    set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${include_file})
  endif()
  string(REPLACE ";" "," environment_commas "${arg_ENVIRONMENT}")
  set_property(GLOBAL APPEND PROPERTY HETERO_DISCOVERED_TESTS
    "$<TARGET_FILE:${target}>|${arg_LABEL}|${environment_commas}")
endfunction()

# hetero_add_discovery_check(): the CTest test `tests.discovered_properties`, which lists
# the tests CTest will run (ctest --show-only=json-v1) and fails unless every target
# declared with hetero_discover_tests has discovered tests, each with its label and every
# VAR=value of its declared environment. Call once, after the last hetero_discover_tests.
function(hetero_add_discovery_check)
  get_property(declared GLOBAL PROPERTY HETERO_DISCOVERED_TESTS)
  set(file ${PROJECT_BINARY_DIR}/hetero_discovered_tests.cmake)
  string(REPLACE ";" "\n  " lines "${declared}")
  file(GENERATE OUTPUT ${file} CONTENT "set(HETERO_DECLARED\n  ${lines}\n)\n")
  add_test(NAME tests.discovered_properties
    COMMAND ${CMAKE_COMMAND} -DCTEST=${CMAKE_CTEST_COMMAND} -DBUILD_DIR=${PROJECT_BINARY_DIR}
            -DDECLARED=${file} -P ${PROJECT_SOURCE_DIR}/cmake/check_discovered_tests.cmake)
  set_tests_properties(tests.discovered_properties PROPERTIES LABELS core)
endfunction()
