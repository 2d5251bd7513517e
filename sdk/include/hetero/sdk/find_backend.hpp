// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file sdk/find_backend.hpp
/// find_backend: a loaded backend's Backend object, for backend authors' tests and the
/// conformance kit; applications use tensors instead. Declared on the SDK side but
/// defined in libhetero_core.so: programs that call it link Hetero::core, and a plugin
/// never does (it is loaded by the core, not the other way round).
#include <memory>
#include <string>

#include <hetero/export.hpp>
#include <hetero/sdk/backend.hpp>

namespace hetero {

/// The loaded backend named `name` ("cpu", "cuda"), or nullptr; loads the plugins first
/// (as backend_status()). The handle keeps the plugin library loaded while it lives.
/// Buffers it allocates must be destroyed before the handle is released.
HETERO_API std::shared_ptr<Backend> find_backend(const std::string& name);

}  // namespace hetero
