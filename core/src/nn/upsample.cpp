// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/upsample.hpp>

#include <utility>

namespace hetero::nn {

Upsample::Upsample(UpsampleOptions options) : options_(std::move(options)) {}

Tensor Upsample::forward(const Tensor& x) { return interpolate(x, options_); }

}  // namespace hetero::nn
