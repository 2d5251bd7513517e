// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file internal_assert.hpp
/// HETERO_INTERNAL_ASSERT(condition, message): checks what holds unless hetero or a plugin
/// has a bug, as c10's TORCH_INTERNAL_ASSERT (a caller's mistake instead throws a typed
/// Error naming the bad input, as TORCH_CHECK). On failure it throws hetero::InternalError
/// "internal assertion failed at FILE:LINE: CONDITION: MESSAGE (a bug in hetero or a
/// plugin; please report it)". Always checked, also with NDEBUG; `message` is evaluated
/// only on failure and is anything std::string's operator+ accepts.
#include <string>

#include <hetero/error.hpp>

namespace hetero::detail {

/// The failure path of HETERO_INTERNAL_ASSERT, out of line and cold so that a check costs
/// its caller a compare and a branch (and does not stop the caller from being inlined).
template <class MakeMessage>
[[noreturn, gnu::cold, gnu::noinline]] void internal_assert_failed(const char* file, int line,
                                                                   const char* condition,
                                                                   MakeMessage&& make_message) {
  throw InternalError(std::string("internal assertion failed at ") + file + ":" +
                      std::to_string(line) + ": " + condition + ": " + make_message() +
                      " (a bug in hetero or a plugin; please report it)");
}

}  // namespace hetero::detail

/// Throws InternalError unless `condition` holds (see the file comment).
#define HETERO_INTERNAL_ASSERT(condition, message)                                        \
  do {                                                                                    \
    if (!(condition)) [[unlikely]]                                                        \
      ::hetero::detail::internal_assert_failed(__FILE__, __LINE__, #condition,            \
                                               [&]() -> std::string { return message; }); \
  } while (false)
