#pragma once
// The CPU kernels (host loops over StridedView). Preconditions were checked by the core.
#include <cstdint>

#include <hetero/error.hpp>
#include <hetero/sdk/kernel_args.hpp>
#include <hetero/sdk/buffer.hpp>

#include "strided_loop.hpp"

namespace hetero::cpu {

/// Typed element pointer of a view's buffer (host memory on this backend).
template <class T>
T* data_of(const StridedView& v) {
  return v.buffer ? static_cast<T*>(v.buffer->handle()) : nullptr;
}

/// Calls f(T{}) with T the storage type of `t` (bool is stored as uint8_t).
template <class F>
decltype(auto) dispatch(DType t, F&& f) {
  switch (t) {
    case DType::float32: return f(float{});
    case DType::float64: return f(double{});
    case DType::int32: return f(std::int32_t{});
    case DType::int64: return f(std::int64_t{});
    case DType::bool_: return f(std::uint8_t{});
  }
  throw DTypeError("cpu backend: unknown dtype " + std::to_string(static_cast<int>(t)));
}

namespace kernels {
void fill(const StridedView& out, Scalar value);
/// copy_strided and cast: element conversion between any two dtypes.
void convert(const StridedView& src, const StridedView& dst);
void unary(UnaryOp op, const StridedView& in, const StridedView& out);
void binary(BinaryOp op, const StridedView& a, const StridedView& b, const StridedView& out);
void reduce(ReduceOp op, const StridedView& in, const StridedView& out);
void random(RandomDistribution dist, const StridedView& out, std::uint64_t seed, std::uint64_t offset);
}  // namespace kernels

}  // namespace hetero::cpu
