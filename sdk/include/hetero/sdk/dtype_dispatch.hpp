// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file dtype_dispatch.hpp
/// Helpers for backend kernels: run a generic lambda with the C++ storage type of a
/// DType, and get a typed pointer from a view whose Buffer::handle() is an address
/// (host memory on cpu, a device pointer on cuda).
#include <cstdint>
#include <string>

#include <hetero/error.hpp>
#include <hetero/sdk/buffer.hpp>
#include <hetero/sdk/half.hpp>
#include <hetero/sdk/kernel_args.hpp>

namespace hetero {

/// Calls f(T{}) with T the storage type of `t`: float, double, int32_t, int64_t, bool (one
/// byte holding 0 or 1), uint8_t, int8_t, Half for float16 and BFloat16 for bfloat16
/// (half.hpp). Throws DTypeError for a dtype without a storage type (a value outside the
/// enum; the core never passes a dtype newer than the plugin's interface minor).
template <class F>
decltype(auto) dispatch_dtype(DType t, F&& f) {
  switch (t) {
    case DType::float32:
      return f(float{});
    case DType::float64:
      return f(double{});
    case DType::int32:
      return f(std::int32_t{});
    case DType::int64:
      return f(std::int64_t{});
    case DType::bool_:
      return f(bool{});
    case DType::float16:
      return f(Half{});
    case DType::bfloat16:
      return f(BFloat16{});
    case DType::uint8:
      return f(std::uint8_t{});
    case DType::int8:
      return f(std::int8_t{});
  }
  throw DTypeError("unsupported dtype " + std::to_string(static_cast<int>(t)));
}

/// The view's buffer address as T* (the view's offset not applied); nullptr for an
/// empty view without a buffer. Only for backends whose handle() is an address.
template <class T>
T* data_of(const StridedView& v) {
  return v.buffer ? static_cast<T*>(v.buffer->handle()) : nullptr;
}

}  // namespace hetero
