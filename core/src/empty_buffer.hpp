// SPDX-License-Identifier: Apache-2.0
#pragma once
// EmptyBuffer: the storage of every tensor without elements (Note [Empty tensors]).
#include <hetero/sdk/buffer.hpp>

namespace hetero::detail {

// Note [Empty tensors]
// The core decides everything about tensors with no elements before dispatch, so that no
// backend has to: a zero-byte tensor gets an EmptyBuffer, made here, not by the backend
// (Backend::allocate and allocate_pinned_host are never asked for 0 bytes); no kernel,
// copy or GEMM is dispatched on an operand with no elements (the ops return early); a
// reduction over no elements writes its identity itself (sum and norm 0, mean NaN; max,
// min and argmax throw ShapeError); and a matmul with an empty inner dimension (k == 0)
// is a fill with 0, never a GEMM. The SDK states the other side: backend.hpp's contract.
class EmptyBuffer final : public Buffer {
 public:
  explicit EmptyBuffer(int device) noexcept : device_(device) {}
  std::size_t size() const noexcept override { return 0; }
  int device() const noexcept override { return device_; }
  void* handle() const noexcept override { return nullptr; }

 private:
  int device_;
};

}  // namespace hetero::detail
