// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file relocate_storage.hpp
/// hetero::relocate_storage — moves a tensor's storage to new memory, for code that handed
/// the old memory to a foreign library which may still write it.
#include <memory>

#include <hetero/export.hpp>
#include <hetero/tensor.hpp>

namespace hetero {

/// Gives the storage of `t` (shared by every view of it) new memory on the same device
/// holding the same bytes, and returns the owner of the old memory, which stays allocated
/// while the owner lives. For a library that passed `t`'s memory to foreign code (an MPI
/// collective) and stopped waiting for it (a timeout): keep the owner with the abandoned
/// call, and no tensor sees what that call writes later (hetero::distributed does so,
/// issue #29 item 3). Waits for the device's queued work first and counts a write
/// (tensor_version). A pinned cpu storage gets ordinary cpu memory. Returns nullptr, and
/// changes nothing, for a tensor without elements. Throws Error for an undefined tensor,
/// OutOfMemoryError when the new memory cannot be had (`t` unchanged). Not thread-safe
/// against other use of `t`'s storage.
HETERO_API std::shared_ptr<void> relocate_storage(const Tensor& t);

}  // namespace hetero
