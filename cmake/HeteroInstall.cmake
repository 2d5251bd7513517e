# `cmake --install` layout (relocatable: nothing below records the prefix):
#   include/hetero-{base,sdk,core,conformance,distributed}/hetero/...
#                                          headers, one root per layer (each target adds its own)
#   lib/libhetero_core.so*                 Hetero::core
#   lib/libhetero_conformance.a            Hetero::conformance
#   lib/libhetero_distributed.so*          Hetero::distributed (where MPI was found)
#   lib/hetero/plugins/libhetero-*.so      backends (installed by hetero_add_backend)
#   bin/hetero-smi                         RUNPATH $ORIGIN/../lib
#   bin/hetero-conformance                 the conformance kit for a prebuilt plugin
#   lib/cmake/Hetero/                      HeteroConfig.cmake, HeteroConfigVersion.cmake,
#                                          exported targets, HeteroAddBackend.cmake
#   share/hetero/conformance_main.cpp      main() of conformance executables
#   share/hetero/conformance/src/          the kit's sources (its failures point there)
#   share/hetero/examples/app/             an application built against this install
#   share/hetero/template/                 the SDK's template backend, built the same way
#   share/doc/hetero/                      README, the SDK guide, from_libtorch, semantics,
#                                          versioning, licence and notices
#   lib/pkgconfig/hetero.pc, hetero-sdk.pc the same for pkg-config users
include(CMakePackageConfigHelpers)

set(HETERO_CMAKE_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/Hetero")
set(HETERO_INSTALL_PLUGIN_DIR "${CMAKE_INSTALL_LIBDIR}/${HETERO_PLUGIN_SUBDIR}")
set(HETERO_INSTALL_CONFORMANCE_MAIN "${CMAKE_INSTALL_DATADIR}/hetero/conformance_main.cpp")

# The plugin interface version, read from the header that defines it.
file(STRINGS "${PROJECT_SOURCE_DIR}/sdk/include/hetero/sdk/interface_version.hpp" _iface
     REGEX "^#define HETERO_INTERFACE_VERSION_(MAJOR|MINOR) [0-9]+")
string(REGEX REPLACE ".*MAJOR ([0-9]+).*MINOR ([0-9]+).*" "\\1.\\2" HETERO_INTERFACE_VERSION "${_iface}")

install(TARGETS hetero_core hetero_sdk hetero_base EXPORT HeteroTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# One include root per layer, so that the installed targets keep the layering of the tree:
# Hetero::sdk sees hetero-sdk/ and hetero-base/ only, never the core's headers.
install(DIRECTORY base/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hetero-base)
install(DIRECTORY sdk/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hetero-sdk)
install(DIRECTORY core/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hetero-core)
install(FILES ${PROJECT_BINARY_DIR}/core/include/hetero/version.hpp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hetero-core/hetero)
install(FILES LICENSE THIRD_PARTY_NOTICES.md DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/hetero)
# Something to learn from in the install (issue #47 item 4): the guides, an application and
# the template backend, both of which build against this prefix (tools/test_package.sh
# builds these installed copies).
install(FILES README.md docs/from_libtorch.md docs/semantics.md docs/versioning.md
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/hetero)
install(FILES sdk/README.md DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/hetero RENAME sdk.md)
install(DIRECTORY examples/app/ DESTINATION ${CMAKE_INSTALL_DATADIR}/hetero/examples/app)
install(DIRECTORY sdk/template/ DESTINATION ${CMAKE_INSTALL_DATADIR}/hetero/template)
install(EXPORT HeteroTargets NAMESPACE Hetero:: DESTINATION ${HETERO_CMAKE_INSTALL_DIR})

if(TARGET hetero_conformance)
  install(TARGETS hetero_conformance EXPORT HeteroConformanceTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(DIRECTORY conformance/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hetero-conformance)
  install(FILES conformance/src/conformance_main.cpp DESTINATION ${CMAKE_INSTALL_DATADIR}/hetero)
  # The kit's sources, where its failure messages point (issue #47 item 2: a location that
  # exists on the user's machine; conformance/src/runner.cpp, kit_sources and located).
  install(DIRECTORY conformance/src/ DESTINATION ${CMAKE_INSTALL_DATADIR}/hetero/conformance/src)
  install(EXPORT HeteroConformanceTargets NAMESPACE Hetero:: DESTINATION ${HETERO_CMAKE_INSTALL_DIR})
endif()

if(TARGET hetero_distributed)
  install(TARGETS hetero_distributed EXPORT HeteroDistributedTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(DIRECTORY distributed/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hetero-distributed)
  install(EXPORT HeteroDistributedTargets NAMESPACE Hetero:: DESTINATION ${HETERO_CMAKE_INSTALL_DIR})
endif()

install(TARGETS hetero-smi RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
set_target_properties(hetero-smi PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
if(TARGET hetero-conformance)
  install(TARGETS hetero-conformance RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  set_target_properties(hetero-conformance PROPERTIES
    INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
endif()

configure_package_config_file(cmake/HeteroConfig.cmake.in
  "${PROJECT_BINARY_DIR}/HeteroConfig.cmake"
  INSTALL_DESTINATION ${HETERO_CMAKE_INSTALL_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR HETERO_INSTALL_PLUGIN_DIR HETERO_INSTALL_CONFORMANCE_MAIN)
# 0.x releases are all "major 0": SameMajorVersion accepts any 0.y, as semver allows
# breaking changes there; the plugin ABI has its own version check at load time.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/HeteroConfigVersion.cmake"
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
# pkg-config files beside the CMake package, relocatable through ${pcfiledir}.
file(RELATIVE_PATH HETERO_PC_PREFIX_FROM_PCDIR "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
string(REGEX REPLACE "/$" "" HETERO_PC_PREFIX_FROM_PCDIR "${HETERO_PC_PREFIX_FROM_PCDIR}")
foreach(_pc hetero hetero-sdk)
  configure_file(cmake/${_pc}.pc.in "${PROJECT_BINARY_DIR}/pkgconfig/${_pc}.pc" @ONLY)
  install(FILES "${PROJECT_BINARY_DIR}/pkgconfig/${_pc}.pc"
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()

install(FILES
  "${PROJECT_BINARY_DIR}/HeteroConfig.cmake"
  "${PROJECT_BINARY_DIR}/HeteroConfigVersion.cmake"
  cmake/HeteroAddBackend.cmake
  DESTINATION ${HETERO_CMAKE_INSTALL_DIR})
