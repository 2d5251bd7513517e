// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file export.hpp
/// HETERO_API marks declarations with default visibility so that their symbols and
/// type_info are shared between libhetero_core.so and plugins built with hidden
/// visibility (exceptions thrown in a plugin are caught by type in the core).

/// Default visibility for a public declaration (see the file comment).
#define HETERO_API __attribute__((visibility("default")))
