// SPDX-License-Identifier: Apache-2.0
#pragma once
// Helpers of the distributed tests: the devices to run on and per-rank data.
#include <cstdint>
#include <vector>

#include <hetero/hetero.hpp>

namespace hetero::test {

// cpu:0, cpu:1 when there are two virtual cpu devices, and the first GPU when there is one.
inline std::vector<Device> collective_devices() {
  std::vector<Device> out{Device::cpu()};
  if (device_count("cpu") > 1) out.emplace_back("cpu:1");
  if (num_gpus() > 0) out.push_back(try_gpu());
  return out;
}

// Every dtype hetero has.
inline std::vector<DType> all_dtypes() {
  return {DType::float32, DType::float64,  DType::int32, DType::int64, DType::bool_,
          DType::float16, DType::bfloat16, DType::uint8, DType::int8};
}

// A tensor of `values` (exactly representable in `t`) converted to dtype `t` on `d`.
inline Tensor make(const std::vector<double>& values, const Shape& shape, DType t,
                   const Device& d) {
  return from_vector(values, shape, TensorOptions(d).dtype(t));
}

}  // namespace hetero::test
