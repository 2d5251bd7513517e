// SPDX-License-Identifier: Apache-2.0
#pragma once
// The digits model of train_digits and train_digits_ddp: an 8x8 image -> 10 class scores.
#include <hetero/nn.hpp>

namespace digits {

/// Sequential{Flatten, Linear(64, 128), ReLU, Linear(128, 10)}, on cpu.
inline hetero::nn::Sequential make_mlp() {
  using namespace hetero::nn;
  return Sequential{Flatten(), Linear(64, 128), ReLU(), Linear(128, 10)};
}

}  // namespace digits
