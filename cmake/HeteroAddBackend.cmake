# hetero_add_backend(NAME SOURCES src... [LINK_LIBRARIES lib...] [VERSION x.y.z]
#                    [NO_CONFORMANCE] [NO_INSTALL])
#
# Builds a backend plugin `libhetero-<NAME>.so` as a MODULE library: hidden visibility
# (only the two entry points that HETERO_PLUGIN() defines are exported), linked with
# --no-undefined, the info record's name and version passed as HETERO_PLUGIN_NAME and
# HETERO_PLUGIN_VERSION (VERSION defaults to PROJECT_VERSION). It is placed in
# ${HETERO_PLUGIN_OUTPUT_DIR} (default: <build>/lib/hetero/plugins) and installed into
# ${CMAKE_INSTALL_LIBDIR}/hetero/plugins, where a core installed in the same prefix
# discovers it.
#
# Unless NO_CONFORMANCE, and when the conformance kit is available (target
# Hetero::conformance: in-tree, or find_package(Hetero COMPONENTS conformance)), also
# builds `conformance_<NAME>` running the whole kit against this plugin and registers it
# as the CTest `conformance.<NAME>`, labelled `conformance.<NAME>`, and calls enable_testing()
# in the caller's directory.
#
# Works in hetero's own tree and after find_package(Hetero COMPONENTS sdk) (installed
# with the package; see sdk/README.md).
include_guard(GLOBAL)

function(_hetero_add_backend NAME)
  cmake_parse_arguments(ARG "NO_CONFORMANCE;NO_INSTALL" "VERSION" "SOURCES;LINK_LIBRARIES" ${ARGN})
  include(GNUInstallDirs)  # here, not at include time: the caller has enabled CXX by now
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "hetero_add_backend(${NAME}): SOURCES is required")
  endif()
  if(DEFINED HETERO_RANDOM123_INCLUDE_DIR AND NOT HETERO_RANDOM123_INCLUDE_DIR)
    message(FATAL_ERROR "hetero_add_backend(${NAME}): the SDK's counter_rng.hpp needs Random123 "
                        "(Random123/philox.h): apt install librandom123-dev")
  endif()
  if(NOT NAME MATCHES "^[a-z][a-z0-9_]*$")
    message(FATAL_ERROR "hetero_add_backend(${NAME}): a backend name is lower-case letters, "
                        "digits and '_', starting with a letter (it is the device type in 'NAME:0')")
  endif()
  if(NOT ARG_VERSION)
    set(ARG_VERSION "${PROJECT_VERSION}")
  endif()
  if(NOT ARG_VERSION)
    set(ARG_VERSION "0.0.0")
  endif()
  set(out_dir "${HETERO_PLUGIN_OUTPUT_DIR}")
  if(NOT out_dir)
    set(out_dir "${CMAKE_BINARY_DIR}/${CMAKE_INSTALL_LIBDIR}/hetero/plugins")
  endif()

  set(target hetero-${NAME})
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE Hetero::sdk ${ARG_LINK_LIBRARIES})
  target_compile_definitions(${target} PRIVATE
    HETERO_PLUGIN_NAME="${NAME}" HETERO_PLUGIN_VERSION="${ARG_VERSION}")
  target_compile_features(${target} PRIVATE cxx_std_20)
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    CXX_VISIBILITY_PRESET hidden
    CUDA_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY "${out_dir}")
  target_link_options(${target} PRIVATE "-Wl,--no-undefined")
  if(NOT ARG_NO_INSTALL)
    install(TARGETS ${target} LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}/hetero/plugins")
  endif()

  if(TARGET Hetero::conformance AND NOT ARG_NO_CONFORMANCE)
    if(NOT HETERO_CONFORMANCE_MAIN)
      message(FATAL_ERROR "hetero_add_backend(${NAME}): HETERO_CONFORMANCE_MAIN is not set "
                          "(use find_package(Hetero COMPONENTS conformance))")
    endif()
    set(test_exe conformance_${NAME})
    add_executable(${test_exe} "${HETERO_CONFORMANCE_MAIN}")
    target_compile_definitions(${test_exe} PRIVATE
      HETERO_CONFORMANCE_BACKEND="${NAME}"
      HETERO_CONFORMANCE_PLUGIN="$<TARGET_FILE:${target}>")
    target_link_libraries(${test_exe} PRIVATE
      "$<LINK_LIBRARY:WHOLE_ARCHIVE,Hetero::conformance>" Hetero::core)
    add_dependencies(${test_exe} ${target})
    add_test(NAME conformance.${NAME} COMMAND ${test_exe})
    set_tests_properties(conformance.${NAME} PROPERTIES
      LABELS "conformance.${NAME}"
      # Exactly the plugin just built, even where one of that name is installed.
      ENVIRONMENT "HETERO_BACKENDS=${NAME};HETERO_PLUGIN_DISCOVERY=0")
  endif()
endfunction()

# A macro so that enable_testing() acts in the caller's scope (it sets a directory
# variable, which a function would keep to itself).
macro(hetero_add_backend)
  _hetero_add_backend(${ARGV})
  set(_hetero_add_backend_args ${ARGV})
  if(TARGET Hetero::conformance AND NOT "NO_CONFORMANCE" IN_LIST _hetero_add_backend_args)
    enable_testing()
  endif()
  unset(_hetero_add_backend_args)
endmacro()
