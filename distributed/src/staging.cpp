// SPDX-License-Identifier: Apache-2.0
#include "staging.hpp"

#include <hetero/autograd.hpp>
#include <hetero/devices.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>

namespace hetero::distributed::detail {

Tensor host_buffer(DType dtype, const Shape& shape, const Device& for_device) {
  const TensorOptions options = TensorOptions(Device::cpu()).dtype(dtype);
  if (!for_device.is_cpu()) {
    try {
      return empty(shape, options.pinned_memory(true));
    } catch (const DeviceUnavailableError&) {
      // No backend offers pinned memory: pageable staging, still correct.
    }
  }
  return empty(shape, options);
}

Tensor Staging::buffer(Slot slot, DType dtype, const Shape& shape, const Device& for_device) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  const bool want_pinned = !for_device.is_cpu();
  Tensor& cached = cache_[{slot, dtype, want_pinned}];
  if (!cached.defined() || cached.numel() < n) {
    cached = Tensor();  // free the smaller one first
    cached = host_buffer(dtype, {n}, for_device);
  }
  return cached.narrow(0, 0, n).view(shape);
}

bool is_host_operand(const Tensor& t, DType wire) {
  return t.device().is_cpu() && t.dtype() == wire && t.is_contiguous();
}

Tensor host_operand(Staging* staging, Slot slot, const Tensor& t, DType wire, bool fill) {
  if (is_host_operand(t, wire)) return t;
  Tensor host = staging ? staging->buffer(slot, wire, t.shape(), t.device())
                        : host_buffer(wire, t.shape(), t.device());
  if (fill) host.copy_(t);
  return host;
}

void write_back(const Tensor& host, Tensor& t) {
  if (host.is_same(t)) {  // MPI wrote into t itself: count the write as copy_ would
    increment_version(t);
    return;
  }
  t.copy_(host);
  synchronize(t.device());
}

}  // namespace hetero::distributed::detail
