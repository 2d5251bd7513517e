// SPDX-License-Identifier: Apache-2.0
#pragma once
// Host tables sized by an output (pad's index, interpolate's taps): growing one that no
// memory holds is a typed error.
#include <new>
#include <stdexcept>

#include <hetero/error.hpp>

namespace hetero::detail {

/// Runs `grow` (a host table's resize or reserve, sized by an output the caller computed);
/// where the host cannot hold it (bad_alloc, length_error), throws OutOfMemoryError(what()),
/// so that an output no memory holds is a typed error, not a crash or a table that grows
/// until the machine runs out.
template <class Grow, class What>
void grow_host_table(Grow&& grow, What&& what) {
  try {
    grow();
  } catch (const std::bad_alloc&) {
    throw OutOfMemoryError(what());
  } catch (const std::length_error&) {
    throw OutOfMemoryError(what());
  }
}

}  // namespace hetero::detail
