// SPDX-License-Identifier: Apache-2.0
#include "raw_cuda.hpp"

#include <cuda_fp16.h>

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>

#include <stdexcept>
#include <string>

namespace hetero::bench_raw {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

__global__ void add_kernel(const float* a, const float* b, float* out, std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

__global__ void exp_kernel(const float* in, float* out, std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = expf(in[i]);
}

__global__ void to_half_kernel(const float* in, __half* out, std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __float2half_rn(in[i]);
}

unsigned blocks(std::int64_t n) { return static_cast<unsigned>((n + 255) / 256); }

struct RowStart {
  std::int64_t cols;
  __host__ __device__ std::int64_t operator()(std::int64_t r) const { return r * cols; }
};

auto row_offsets(std::int64_t cols, std::int64_t first) {
  return thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(first),
                                         RowStart{cols});
}

}  // namespace

void add(const float* a, const float* b, float* out, std::int64_t n) {
  add_kernel<<<blocks(n), 256>>>(a, b, out, n);
  check(cudaGetLastError(), "add launch");
}

void exp(const float* in, float* out, std::int64_t n) {
  exp_kernel<<<blocks(n), 256>>>(in, out, n);
  check(cudaGetLastError(), "exp launch");
}

void to_half(const float* in, std::uint16_t* out, std::int64_t n) {
  to_half_kernel<<<blocks(n), 256>>>(in, reinterpret_cast<__half*>(out), n);
  check(cudaGetLastError(), "to_half launch");
}

void add_allocating(const float* a, const float* b, std::int64_t n) {
  float* out = nullptr;
  check(cudaMallocAsync(&out, static_cast<std::size_t>(n) * sizeof(float), 0), "cudaMallocAsync");
  add(a, b, out, n);
  check(cudaFreeAsync(out, 0), "cudaFreeAsync");
}

std::size_t sum_temp_bytes(std::int64_t n) {
  std::size_t bytes = 0;
  check(cub::DeviceReduce::Sum(nullptr, bytes, static_cast<const float*>(nullptr),
                               static_cast<float*>(nullptr), n),
        "DeviceReduce::Sum");
  return bytes;
}

void sum(const float* in, float* out, std::int64_t n, void* temp, std::size_t temp_bytes) {
  check(cub::DeviceReduce::Sum(temp, temp_bytes, in, out, n), "DeviceReduce::Sum");
}

std::size_t row_sums_temp_bytes(std::int64_t rows, std::int64_t cols) {
  std::size_t bytes = 0;
  check(cub::DeviceSegmentedReduce::Sum(nullptr, bytes, static_cast<const float*>(nullptr),
                                        static_cast<float*>(nullptr), rows, row_offsets(cols, 0),
                                        row_offsets(cols, 1)),
        "DeviceSegmentedReduce::Sum");
  return bytes;
}

void row_sums(const float* in, float* out, std::int64_t rows, std::int64_t cols, void* temp,
              std::size_t temp_bytes) {
  check(cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, in, out, rows, row_offsets(cols, 0),
                                        row_offsets(cols, 1)),
        "DeviceSegmentedReduce::Sum");
}

}  // namespace hetero::bench_raw
