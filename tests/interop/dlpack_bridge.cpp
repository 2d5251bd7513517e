// SPDX-License-Identifier: Apache-2.0
// C entry points over hetero's DLPack interop, for dlpack_roundtrip.py (ctypes): hetero
// tensors handed to PyTorch and NumPy, theirs handed to hetero, with no copy.
#include <dlpack/dlpack.h>

#include <cstdint>

#include <hetero/hetero.hpp>

extern "C" {

// [0, 1.5, 3, ...] (n float32 values) from hetero, as a DLPack tensor the caller owns.
DLManagedTensor* bridge_export_arange(std::int64_t n) {
  return hetero::to_dlpack(hetero::arange(0, n, 1, hetero::DType::float32) * 1.5);
}

// Every other element of a [2, n] float64 hetero tensor's second row: a strided view with
// a byte offset.
DLManagedTensor* bridge_export_strided(std::int64_t n) {
  const hetero::Tensor m = hetero::arange(0, 2 * n, 1, hetero::DType::float64).reshape({2, n});
  return hetero::to_dlpack(m[1].narrow(0, 1, n - 1).t());
}

// The sum of a DLPack tensor's elements as hetero computes it (hetero takes ownership).
double bridge_import_sum(DLManagedTensor* managed) {
  const hetero::Tensor t = hetero::from_dlpack(managed);
  return hetero::sum(t.to(hetero::DType::float64)).item<double>();
}

// Writes `value` into every element of a DLPack tensor through hetero: the producer sees
// it (the memory is shared). Returns its element count.
std::int64_t bridge_import_fill(DLManagedTensor* managed, double value) {
  hetero::Tensor t = hetero::from_dlpack(managed);
  t.copy_(hetero::full(t.shape(), value, t.dtype()));
  hetero::synchronize(t.device());
  return t.numel();
}
}
