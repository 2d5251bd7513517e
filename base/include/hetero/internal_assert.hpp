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

#define HETERO_INTERNAL_ASSERT(condition, message)                                            \
  do {                                                                                        \
    if (!(condition)) [[unlikely]]                                                            \
      throw ::hetero::InternalError(std::string("internal assertion failed at ") + __FILE__ + \
                                    ":" + std::to_string(__LINE__) + ": " #condition ": " +   \
                                    (message) +                                               \
                                    " (a bug in hetero or a plugin; please report it)");      \
  } while (false)
