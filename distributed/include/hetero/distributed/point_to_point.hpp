// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file distributed/point_to_point.hpp
/// send and recv between two ranks of the process group, as torch.distributed.send/recv.
/// Both block (on the group's communication thread, under the group's timeout) and run in
/// order with the rank's collectives: as with blocking MPI, two ranks that first send to
/// each other large tensors deadlock, and a recv posted before a collective its sender
/// calls first waits. The receiver's tensor must have the sender's dtype and element count:
/// a message that does not fit is received and dropped, and recv throws (the tensor is
/// left unwritten), instead of MPI's silent truncation. Point-to-point calls take no part
/// in the consistency check. Tags are 0 to 16383 (those above are hetero's own).
#include <hetero/export.hpp>
#include <hetero/tensor.hpp>

namespace hetero::distributed {

/// recv's `src` for "from any rank".
inline constexpr int any_source = -1;

/// Sends `t` (any device, dtype, layout) to rank `dst` with `tag`, as
/// torch.distributed.send; returns once MPI has taken the data (for large tensors, once
/// `dst` receives it). DistributedError when `dst` is not another rank of the group, the
/// tag is out of range, the group is unusable or the timeout passes.
HETERO_API void send(const Tensor& t, int dst, int tag = 0);

/// Receives into `t` the tensor rank `src` (any_source: whichever sends first) sent with
/// `tag`, as torch.distributed.recv; returns the sender's rank. DTypeError / ShapeError
/// when the sent tensor's dtype or element count differ from `t`'s (the message is
/// consumed, `t` unchanged); DistributedError as send.
HETERO_API int recv(Tensor& t, int src = any_source, int tag = 0);

}  // namespace hetero::distributed
