// SPDX-License-Identifier: Apache-2.0
#include <hetero/conformance/tensor_upload.hpp>

#include <hetero/conformance/conformance.hpp>
#include <hetero/factories.hpp>

namespace hetero::conformance {

Tensor upload(const std::vector<double>& values, const Shape& shape, DType dtype,
              const Device& device) {
  const std::vector<unsigned char> bytes = pack(dtype, values);
  // from_host in the source dtype writes the bytes as they are: no conversion on the device.
  return from_host(bytes.data(), values.size(), dtype, shape, TensorOptions(device));
}

std::string describe_result(std::string_view what, const Tensor& result) {
  return describe_case(what, result.dtype(), result.device().str(), result.shape());
}

}  // namespace hetero::conformance
