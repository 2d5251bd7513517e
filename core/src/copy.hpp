// SPDX-License-Identifier: Apache-2.0
#pragma once
// The copy ladder (one function for every direction, Note [Copy ladder]):
//  1. same backend            -> Backend::copy_device_to_device (peer copy or the
//                                backend's own staging between its devices);
//  2. source host-addressable -> destination backend's copy_host_to_device;
//  3. destination host-addressable -> source backend's copy_device_to_host;
//  4. otherwise               -> staged through a host buffer (two copies).
#include <cstddef>
#include <vector>

#include "storage.hpp"

namespace hetero::detail {

/// Copies `bytes` bytes from src (at byte offset) to dst (at byte offset), choosing the
/// rung of the ladder. Returns after the copy is ordered on dst's stream (and, for
/// host-staged rungs, completed).
void copy_bytes(const Storage& src, std::size_t src_offset, const Storage& dst,
                std::size_t dst_offset, std::size_t bytes);

/// Copies `bytes` bytes from `src` at byte offset into host memory and waits.
void read_bytes(const Storage& src, std::size_t src_offset, void* dst, std::size_t bytes);

/// Copies host memory into `dst` at byte offset; returns when `src` may be reused.
void write_bytes(const void* src, const Storage& dst, std::size_t dst_offset, std::size_t bytes);

}  // namespace hetero::detail
