# hetero_add_backend(NAME SOURCES src... [LINK_LIBRARIES lib...] [VERSION x.y.z])
#
# Builds a backend plugin `libhetero-<NAME>.so` as a MODULE library: hidden visibility
# (only the entry symbols of HETERO_PLUGIN are exported), linked with --no-undefined,
# placed in lib/hetero/plugins. When the conformance kit is available (target
# Hetero::conformance), registers the CTest `conformance.<NAME>` running the whole kit
# against this plugin, labelled `conformance.<NAME>`.
function(hetero_add_backend NAME)
  cmake_parse_arguments(ARG "" "VERSION" "SOURCES;LINK_LIBRARIES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "hetero_add_backend(${NAME}): SOURCES is required")
  endif()
  if(NOT ARG_VERSION)
    set(ARG_VERSION "${PROJECT_VERSION}")
  endif()
  set(target hetero-${NAME})
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE Hetero::sdk ${ARG_LINK_LIBRARIES})
  target_compile_definitions(${target} PRIVATE
    HETERO_PLUGIN_NAME="${NAME}" HETERO_PLUGIN_VERSION="${ARG_VERSION}")
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    CXX_VISIBILITY_PRESET hidden
    CUDA_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY "${HETERO_PLUGIN_OUTPUT_DIR}")
  target_link_options(${target} PRIVATE "-Wl,--no-undefined")

  if(TARGET Hetero::conformance)
    set(test_exe conformance_${NAME})
    add_executable(${test_exe} ${HETERO_CONFORMANCE_MAIN})
    target_compile_definitions(${test_exe} PRIVATE
      HETERO_CONFORMANCE_BACKEND="${NAME}"
      HETERO_CONFORMANCE_PLUGIN="$<TARGET_FILE:${target}>")
    target_link_libraries(${test_exe} PRIVATE
      "$<LINK_LIBRARY:WHOLE_ARCHIVE,Hetero::conformance>" Hetero::core GTest::gtest)
    add_dependencies(${test_exe} ${target})
    add_test(NAME conformance.${NAME} COMMAND ${test_exe})
    set_tests_properties(conformance.${NAME} PROPERTIES
      LABELS "conformance.${NAME}" ENVIRONMENT "HETERO_BACKENDS=${NAME}")
  endif()
endfunction()
