// SPDX-License-Identifier: Apache-2.0
#pragma once
// Host memory for collectives: MPI reads and writes contiguous host elements, so an
// operand that is not a contiguous cpu tensor of the wire dtype goes through a staging
// buffer, pinned for operands on other devices (copies at DMA speed).
#include <map>
#include <tuple>

#include <hetero/tensor.hpp>

namespace hetero::distributed::detail {

// Which operand of a collective a staging buffer holds: the input and output of one MPI
// call, and the stacked list of all_gather and reduce_scatter (the three never overlap).
enum class Slot { input, output, packed };

// Staging buffers of one process group, reused across collectives (one per slot, dtype
// and pinnedness, grown on demand). Not thread-safe.
class Staging {
 public:
  // A contiguous cpu tensor of `shape` and `dtype`, pinned when `for_device` is not cpu
  // and a loaded backend offers pinned memory; its contents are undefined.
  Tensor buffer(Slot slot, DType dtype, const Shape& shape, const Device& for_device);
  // Frees the buffers.
  void clear() noexcept { cache_.clear(); }

 private:
  std::map<std::tuple<Slot, DType, bool>, Tensor> cache_;
};

// A new contiguous cpu tensor of `shape` and `dtype`, pinned when `for_device` is not cpu
// and a loaded backend offers pinned memory; its contents are undefined.
Tensor host_buffer(DType dtype, const Shape& shape, const Device& for_device);

// `t`'s elements as a contiguous cpu tensor of dtype `wire`: `t` itself when it is one,
// else a staging buffer (`staging`'s, or a new one when null: an asynchronous collective
// owns its buffers), into which `t` is copied (and converted) when `fill`.
Tensor host_operand(Staging* staging, Slot slot, const Tensor& t, DType wire, bool fill);

// Copies `host` (from host_operand) back into `t` unless it is `t` itself (then counts
// the write MPI made, increment_version), and waits for the copy: the collective's result
// is in `t` when this returns. Either way t's version moves (Note [Saved tensor versions]).
void write_back(const Tensor& host, Tensor& t);

// True when `t` is a contiguous cpu tensor of dtype `wire`: MPI can use its memory.
bool is_host_operand(const Tensor& t, DType wire);

}  // namespace hetero::distributed::detail
