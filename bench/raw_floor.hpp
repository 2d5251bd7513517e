// SPDX-License-Identifier: Apache-2.0
#pragma once
// The raw floor of bench_large_ops' bandwidth-bound rows (issue #26: "a raw 2-thread floor,
// a plain vectorised loop, or memcpy for copies"): each row's job written as the plain loop
// a programmer would write, compiled at -O3 for AVX-512, AVX2 and baseline x86-64 (GCC's
// target_clones, picked at load time for this CPU) and split over bench::threads() OpenMP
// threads into a preallocated result. float16 conversions use F16C intrinsics where the
// CPU has them (GCC 12 does not vectorise _Float16 casts); copies are memcpy.
// Nothing here is hetero's code: the rows answer "how close to the machine is hetero?".
#include <functional>
#include <string>

namespace bench::raw {

/// The floor of bench_large_ops' row `op` ("add", "sum0", "to_float16", "add_f16", ...)
/// on a 4096 x 4096 row-major matrix of float32 (float16 for the "_f16" rows, int32 and
/// uint8 for "sum_i32" and "sum_u8", summed into int64), as a
/// closure that runs it once; an empty function where the row has no floor (exp, tanh,
/// sigmoid, softmax and argmax are compared with libtorch only). The closure owns its
/// operands and result. Thread-safe to create; each closure runs one call at a time.
std::function<void()> floor(const std::string& op);

/// Whether floor(op) is a closure, without making its operands (about 200 MiB).
bool has_floor(const std::string& op);

}  // namespace bench::raw
