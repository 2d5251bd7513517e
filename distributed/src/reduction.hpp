// SPDX-License-Identifier: Apache-2.0
#pragma once
// How a ReduceOp and a dtype become MPI arguments: the wire dtype (float16/bfloat16 are
// reduced in float32), the MPI datatype and the MPI_Op.
#include <mpi.h>

#include <cstddef>

#include <hetero/distributed/collectives.hpp>
#include <hetero/dtype.hpp>

namespace hetero::distributed::detail {

// The MPI_Ops max and min that propagate NaN (MPI_MAX and MPI_MIN do not, for either
// argument order), for float and double; made after MPI_Init, freed before MPI_Finalize.
struct NanReductions {
  MPI_Op max = MPI_OP_NULL, min = MPI_OP_NULL;
  void create();
  void free() noexcept;
};

// The dtype a reduction of `t` runs in: float32 for float16 and bfloat16, else `t`.
DType reduction_dtype(DType t) noexcept;
// The MPI datatype of one element of `t` (float16/bfloat16 as 16-bit integers: moved,
// never reduced).
MPI_Datatype mpi_datatype(DType t) noexcept;
// The MPI_Op of `op` on elements of `wire` (a reduction_dtype()); avg is MPI_SUM, divided
// afterwards by divide_by_world_size(). DTypeError for avg of integers or bool.
MPI_Op mpi_op(ReduceOp op, DType wire, const NanReductions& nan_ops, const char* what);
// Divides `count` elements of `wire` (float32 or float64) at `data` by `world_size`.
void divide_by_world_size(void* data, std::size_t count, DType wire, int world_size) noexcept;
// "sum", "avg", ...
const char* reduce_op_name(ReduceOp op) noexcept;

}  // namespace hetero::distributed::detail
