# The API reference (issue #47 item 4): Doxygen over the installed headers into
# build/docs/html (target `docs`, part of the default build when Doxygen is found,
# -DHETERO_BUILD_DOCS=OFF to skip), installed under share/doc/hetero/html; the CTest
# docs.undocumented fails on a public declaration without a doc comment that
# docs/undocumented_baseline.txt does not list (tools/check_undocumented.py).
option(HETERO_BUILD_DOCS "Build the API reference with Doxygen when it is found" ON)
if(NOT HETERO_BUILD_DOCS)
  return()
endif()
find_package(Doxygen QUIET)
if(NOT DOXYGEN_FOUND)
  message(STATUS "hetero: Doxygen not found: no API reference (apt install doxygen)")
  return()
endif()
set(HETERO_DOCS_DIR "${PROJECT_BINARY_DIR}/docs")
configure_file(docs/Doxyfile.in "${HETERO_DOCS_DIR}/Doxyfile" @ONLY)
file(GLOB_RECURSE _hetero_public_headers CONFIGURE_DEPENDS
     core/include/*.hpp base/include/*.hpp sdk/include/*.hpp distributed/include/*.hpp
     conformance/include/*.hpp)
add_custom_command(
  OUTPUT "${HETERO_DOCS_DIR}/html/index.html"
  COMMAND "${DOXYGEN_EXECUTABLE}" "${HETERO_DOCS_DIR}/Doxyfile"
  DEPENDS ${_hetero_public_headers} "${HETERO_DOCS_DIR}/Doxyfile"
  COMMENT "API reference (Doxygen) in ${HETERO_DOCS_DIR}/html"
  VERBATIM)
add_custom_target(docs ALL DEPENDS "${HETERO_DOCS_DIR}/html/index.html")
install(DIRECTORY "${HETERO_DOCS_DIR}/html/" DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/hetero/html)
if(HETERO_BUILD_TESTS)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_FOUND)
    add_test(NAME docs.undocumented
      COMMAND "${Python3_EXECUTABLE}" "${PROJECT_SOURCE_DIR}/tools/check_undocumented.py"
              "${HETERO_DOCS_DIR}/warnings.txt" "${PROJECT_SOURCE_DIR}/docs/undocumented_baseline.txt")
    # Label `toolchain` too: it runs the build machine's Python on the build's Doxygen
    # warnings, so it belongs to the machine that builds (a packed build on a GPU machine
    # found no such Python on 2026-12-01 and reported "Not Run").
    set_tests_properties(docs.undocumented PROPERTIES LABELS "core;toolchain")
  endif()
endif()
