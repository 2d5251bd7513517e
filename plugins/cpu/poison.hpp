// SPDX-License-Identifier: Apache-2.0
#pragma once
// Note [Poisoned buffers]: a kernel runs after its call returned (queued work), so when it
// fails the caller is gone. As a CUDA stream does, the failure is kept and raised, typed, at
// the next synchronising call on the device (WorkQueue); and, as a NaN does, it stays with
// the data: the buffer the kernel was writing is marked poisoned with the error. Reading a
// poisoned buffer back to the host raises that error (again, with the reason), and a kernel
// or copy reading one fails in turn and poisons its own output, so a result computed from
// a failed kernel's output never reads back as numbers. The mark belongs to the allocation
// (its id, never reused), not to the memory: the pool may hand the block to a new buffer,
// which starts clean; the mark goes when its buffer is destroyed. Marks are rare: while
// none exists, checking costs one atomic load.
//
// Errors keep their hetero type and gain the context of the failed kernel: std::bad_alloc
// becomes OutOfMemoryError, any other exception Error.
#include <cstdint>
#include <exception>
#include <string>

namespace hetero::cpu::poison {

/// A new allocation id (never 0, never reused). Thread-safe.
std::uint64_t next_id() noexcept;
/// Marks allocation `id` poisoned by `error` (the first mark stays); id 0 is ignored.
/// Thread-safe. May throw std::bad_alloc.
void mark(std::uint64_t id, std::exception_ptr error);
/// The error allocation `id` is poisoned by; nullptr when it is not. Thread-safe.
std::exception_ptr of(std::uint64_t id) noexcept;
/// Whether any allocation is poisoned now (one atomic load). Thread-safe.
bool any() noexcept;
/// Forgets allocation `id` (its buffer is destroyed). Thread-safe, never throws.
void forget(std::uint64_t id) noexcept;

/// `cause` rethrown as the same hetero error type with `context` before its message
/// (std::bad_alloc as OutOfMemoryError, other exceptions as Error).
std::exception_ptr with_context(std::exception_ptr cause, const std::string& context);

}  // namespace hetero::cpu::poison
