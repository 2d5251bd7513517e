// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file plugin.hpp
/// The plugin ABI: the extern "C" info record read before anything else, the interface
/// version, and HETERO_PLUGIN(), which defines the two exported entry points.
#include <cstdint>
#include <string>

#include <hetero/sdk/backend.hpp>
#include <hetero/sdk/interface_version.hpp>

/// The text of x after macro expansion (HETERO_STRINGIFY(HETERO_INTERFACE_VERSION_MINOR)
/// is "14"); HETERO_STRINGIFY_ is its unexpanded step.
/// @{
#define HETERO_STRINGIFY_(x) #x
#define HETERO_STRINGIFY(x) HETERO_STRINGIFY_(x)
/// @}

/// Compiler identity, e.g. "GCC 12.2.0" or "Clang 14.0.6".
#if defined(__clang__)
#define HETERO_COMPILER_ID                                         \
  "Clang " HETERO_STRINGIFY(__clang_major__) "." HETERO_STRINGIFY( \
      __clang_minor__) "." HETERO_STRINGIFY(__clang_patchlevel__)
#elif defined(__GNUC__)
#define HETERO_COMPILER_ID                                                                     \
  "GCC " HETERO_STRINGIFY(__GNUC__) "." HETERO_STRINGIFY(__GNUC_MINOR__) "." HETERO_STRINGIFY( \
      __GNUC_PATCHLEVEL__)
#else
#define HETERO_COMPILER_ID "unknown compiler"
#endif

/// C++ standard-library identity: family and ABI variant. Plugins must match the core
/// exactly, since std::string, std::unique_ptr and exceptions cross the boundary.
#if defined(_LIBCPP_VERSION)
#define HETERO_CXX_STDLIB_ID "libc++ abi " HETERO_STRINGIFY(_LIBCPP_ABI_VERSION)
#elif defined(__GLIBCXX__)
#if _GLIBCXX_USE_CXX11_ABI
#define HETERO_CXX_STDLIB_ID "libstdc++ cxx11-abi"
#else
#define HETERO_CXX_STDLIB_ID "libstdc++ pre-cxx11-abi"
#endif
#else
#define HETERO_CXX_STDLIB_ID "unknown standard library"
#endif

extern "C" {
/// The info record every plugin exports (through hetero_plugin_info()). Field order is
/// fixed forever: struct_size and the interface version come first so any core can read
/// them from any plugin. Strings are NUL-terminated, static, owned by the plugin.
struct HeteroPluginInfo {
  std::uint32_t struct_size;      ///< sizeof(HeteroPluginInfo) of the plugin's build
  std::uint32_t interface_major;  ///< HETERO_INTERFACE_VERSION_MAJOR of the plugin's build
  std::uint32_t interface_minor;  ///< HETERO_TARGET_INTERFACE_MINOR of the plugin's build
  const char* name;               ///< backend name, e.g. "cpu"; equals Backend::name()
  const char* version;            ///< plugin version, e.g. "0.1.0"
  const char* compiler;           ///< HETERO_COMPILER_ID of the plugin's build
  const char* cxx_stdlib;         ///< HETERO_CXX_STDLIB_ID of the plugin's build
  const char* vendor_libraries;   ///< e.g. "OpenBLAS 0.3.21"; may be empty
};
}

/// Name of the exported info function: `const HeteroPluginInfo* hetero_plugin_info()`.
#define HETERO_PLUGIN_INFO_SYMBOL "hetero_plugin_info"
/// Name of the exported factory: `hetero::Backend* hetero_plugin_create()`; the caller
/// owns the result; may throw a hetero::Error (reported as the load failure's reason).
#define HETERO_PLUGIN_CREATE_SYMBOL "hetero_plugin_create"

/// C linkage and default visibility, for the two entry points (HETERO_PLUGIN defines them).
#define HETERO_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))

/// Defines the plugin's two entry points. Use once per plugin, at namespace scope:
///   HETERO_PLUGIN(MyBackend, "mine", "1.0.0", my_vendor_versions())
/// `vendor_expr` is evaluated once, on the first info query, and must yield something
/// convertible to std::string.
#define HETERO_PLUGIN(BackendType, name_literal, version_literal, vendor_expr) \
  HETERO_PLUGIN_EXPORT const HeteroPluginInfo* hetero_plugin_info() {          \
    static const std::string vendor_libraries = (vendor_expr);                 \
    static const HeteroPluginInfo info{sizeof(HeteroPluginInfo),               \
                                       HETERO_INTERFACE_VERSION_MAJOR,         \
                                       HETERO_TARGET_INTERFACE_MINOR,          \
                                       name_literal,                           \
                                       version_literal,                        \
                                       HETERO_COMPILER_ID,                     \
                                       HETERO_CXX_STDLIB_ID,                   \
                                       vendor_libraries.c_str()};              \
    return &info;                                                              \
  }                                                                            \
  HETERO_PLUGIN_EXPORT ::hetero::Backend* hetero_plugin_create() { return new BackendType(); }
