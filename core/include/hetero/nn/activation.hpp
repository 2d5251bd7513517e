#pragma once
/// @file nn/activation.hpp
/// Parameter-free activation layers.
#include <hetero/nn/module.hpp>

namespace hetero::nn {

/// max(x, 0) elementwise, as torch.nn.ReLU. Any shape.
class HETERO_API ReLU : public Module {
 public:
  Tensor forward(const Tensor& x) override;
};

}  // namespace hetero::nn
