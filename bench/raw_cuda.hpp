// SPDX-License-Identifier: Apache-2.0
#pragma once
// Raw CUDA peers of hetero's GPU operations for bench_gpu (raw_cuda.cu): what a hand-written
// CUDA program would do, on the same device data and stream 0. Each returns after queuing
// its work (no synchronisation). Throws std::runtime_error on a CUDA error.
#include <cstddef>
#include <cstdint>

namespace hetero::bench_raw {

/// out[i] = a[i] + b[i], i < n (float32, one thread per element).
void add(const float* a, const float* b, float* out, std::int64_t n);
/// out[i] = expf(in[i]).
void exp(const float* in, float* out, std::int64_t n);
/// out[i] = in[i] rounded to float16 (round to nearest even), as raw bits.
void to_half(const float* in, std::uint16_t* out, std::int64_t n);
/// The same add with `out` from cudaMallocAsync and freed with cudaFreeAsync on stream 0 (what a
/// framework that allocates every result must at least pay).
void add_allocating(const float* a, const float* b, std::int64_t n);
/// *out = sum of in[0, n) with cub::DeviceReduce::Sum (float accumulation, as torch).
/// `temp` / `temp_bytes`: scratch from sum_temp_bytes(n).
void sum(const float* in, float* out, std::int64_t n, void* temp, std::size_t temp_bytes);
std::size_t sum_temp_bytes(std::int64_t n);
/// out[r] = sum of row r of a rows x cols row-major matrix (cub::DeviceSegmentedReduce::Sum).
void row_sums(const float* in, float* out, std::int64_t rows, std::int64_t cols, void* temp,
              std::size_t temp_bytes);
std::size_t row_sums_temp_bytes(std::int64_t rows, std::int64_t cols);

}  // namespace hetero::bench_raw
