// SPDX-License-Identifier: Apache-2.0
// hetero from Python without copies (issue #47 item 6): a few C entry points over hetero's
// DLPack interop (<hetero/interop.hpp>), loaded by example.py with ctypes. Tensors come in
// as the DLManagedTensor of a producer's capsule (PyTorch, NumPy), which hetero then owns,
// and go out as one the caller owns (to wrap in a "dltensor" capsule).
#include <dlpack/dlpack.h>

#include <cstdint>
#include <exception>
#include <string>

#include <hetero/hetero.hpp>

namespace {
thread_local std::string last_error;  // hetero_last_error(): why a call returned null / -1
}  // namespace

extern "C" {

// The message of the last failed call on this thread ("" when none).
const char* hetero_last_error() { return last_error.c_str(); }

// softmax over the last dimension of `input` (any float dtype, any strides), computed by
// hetero on the producer's memory, returned as a new tensor the caller owns. Takes
// ownership of `input`. Null on error (hetero_last_error says why).
DLManagedTensor* hetero_softmax_last_dim(DLManagedTensor* input) {
  try {
    const hetero::Tensor x = hetero::from_dlpack(input);
    return hetero::to_dlpack(hetero::softmax(x, -1));
  } catch (const std::exception& e) {
    last_error = e.what();
    return nullptr;
  }
}

// Multiplies every element of `input` by `factor` in place, through hetero: the producer's
// array changes (the memory is shared). Takes ownership of `input`. 0, or -1 on error.
int hetero_scale_in_place(DLManagedTensor* input, double factor) {
  try {
    hetero::Tensor x = hetero::from_dlpack(input);
    x.copy_(x * factor);
    hetero::synchronize(x.device());  // the write is done before Python reads the array
    return 0;
  } catch (const std::exception& e) {
    last_error = e.what();
    return -1;
  }
}
}
