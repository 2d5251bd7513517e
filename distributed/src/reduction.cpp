// SPDX-License-Identifier: Apache-2.0
#include "reduction.hpp"

#include <cmath>
#include <string>

#include <hetero/error.hpp>

namespace hetero::distributed::detail {
namespace {

template <class T, bool Max>
void nan_extremum(const T* in, T* inout, int n) {
  for (int i = 0; i < n; ++i) {
    const T a = in[i], b = inout[i];
    if (std::isnan(a) || std::isnan(b))
      inout[i] = std::isnan(a) ? a : b;
    else
      inout[i] = Max ? (a > b ? a : b) : (a < b ? a : b);
  }
}

template <bool Max>
void nan_extremum_op(void* in, void* inout, int* len, MPI_Datatype* type) {
  if (*type == MPI_DOUBLE)
    nan_extremum<double, Max>(static_cast<const double*>(in), static_cast<double*>(inout), *len);
  else
    nan_extremum<float, Max>(static_cast<const float*>(in), static_cast<float*>(inout), *len);
}

}  // namespace

void NanReductions::create() {
  MPI_Op_create(&nan_extremum_op<true>, /*commute=*/1, &max);
  MPI_Op_create(&nan_extremum_op<false>, /*commute=*/1, &min);
}

void NanReductions::free() noexcept {
  if (max != MPI_OP_NULL) MPI_Op_free(&max);
  if (min != MPI_OP_NULL) MPI_Op_free(&min);
}

DType reduction_dtype(DType t) noexcept { return is_half(t) ? DType::float32 : t; }

MPI_Datatype mpi_datatype(DType t) noexcept {
  switch (t) {
    case DType::float32:
      return MPI_FLOAT;
    case DType::float64:
      return MPI_DOUBLE;
    case DType::int32:
      return MPI_INT32_T;
    case DType::int64:
      return MPI_INT64_T;
    case DType::bool_:
      return MPI_UINT8_T;
    case DType::float16:
    case DType::bfloat16:
      return MPI_UINT16_T;
    case DType::uint8:
      return MPI_UINT8_T;
    case DType::int8:
      return MPI_INT8_T;
  }
  return MPI_DATATYPE_NULL;
}

MPI_Op mpi_op(ReduceOp op, DType wire, const NanReductions& nan_ops, const char* what) {
  const bool floating = is_floating_point(wire), boolean = wire == DType::bool_;
  switch (op) {
    case ReduceOp::avg:
      if (!floating)
        throw DTypeError(std::string(what) + ": ReduceOp::avg needs a floating dtype, not " +
                         std::string(dtype_name(wire)) + " (reduce with sum and divide)");
      return MPI_SUM;
    case ReduceOp::sum:
      return boolean ? MPI_MAX : MPI_SUM;
    case ReduceOp::product:
      return boolean ? MPI_MIN : MPI_PROD;
    case ReduceOp::max:
      return floating ? nan_ops.max : MPI_MAX;
    case ReduceOp::min:
      return floating ? nan_ops.min : MPI_MIN;
  }
  return MPI_OP_NULL;
}

namespace {
// p[i] /= n for i < count, 32 bytes of elements per vector operation (GCC's vector
// extension: AVX or two SSE operations; -O2 left the loop scalar, and at 4 cycles per
// division avg of 1.2 MB took 250 us, twice the all-reduce itself: issue #50 item 7). Each
// quotient is IEEE's x / n, as torch's div_ by the world size: bit for bit the scalar loop's.
// A world size that is a power of two multiplies by its reciprocal instead: 1/n is exact,
// so x * (1/n) and x / n are the same real number rounded once, the same float.
template <class T>
void divide(T* p, std::size_t count, int world_size) noexcept {
  // 32 bytes of T at any alignment, which may alias T.
  using Vec [[gnu::vector_size(32), gnu::aligned(alignof(T)), gnu::may_alias]] = T;
  constexpr std::size_t lanes = sizeof(Vec) / sizeof(T);
  const T n = static_cast<T>(world_size), inverse = T(1) / n;
  const std::size_t whole = count - count % lanes;
  if ((world_size & (world_size - 1)) == 0) {
    for (std::size_t i = 0; i < whole; i += lanes) *reinterpret_cast<Vec*>(p + i) *= inverse;
  } else {
    for (std::size_t i = 0; i < whole; i += lanes) *reinterpret_cast<Vec*>(p + i) /= n;
  }
  for (std::size_t i = whole; i < count; ++i) p[i] /= n;
}
}  // namespace

void divide_by_world_size(void* data, std::size_t count, DType wire, int world_size) noexcept {
  if (wire == DType::float64)
    divide(static_cast<double*>(data), count, world_size);
  else
    divide(static_cast<float*>(data), count, world_size);
}

const char* reduce_op_name(ReduceOp op) noexcept {
  switch (op) {
    case ReduceOp::sum:
      return "sum";
    case ReduceOp::avg:
      return "avg";
    case ReduceOp::product:
      return "product";
    case ReduceOp::max:
      return "max";
    case ReduceOp::min:
      return "min";
  }
  return "?";
}

}  // namespace hetero::distributed::detail
