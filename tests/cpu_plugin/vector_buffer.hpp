// SPDX-License-Identifier: Apache-2.0
#pragma once
// A host vector as the Buffer the cpu kernels read and write through
// StridedView::buffer->handle(), for the kernel tests of tests/cpu_plugin.
#include <cstddef>
#include <vector>

#include <hetero/sdk/buffer.hpp>

namespace hetero::test {

/// Wraps `v` (not owned; it must outlive the buffer and keep its size). Not thread-safe.
template <class T>
class VectorBuffer final : public Buffer {
 public:
  explicit VectorBuffer(std::vector<T>& v) : v_(v) {}
  std::size_t size() const noexcept override { return v_.size() * sizeof(T); }
  int device() const noexcept override { return 0; }
  void* handle() const noexcept override { return v_.data(); }
  void* host_pointer() const noexcept override { return v_.data(); }

 private:
  std::vector<T>& v_;
};

}  // namespace hetero::test
