// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/init.hpp
/// hetero::nn::init — parameter initialisation in place, as torch.nn.init (torch 1.13's
/// formulas): each fills `t` on its device without recording gradients and returns it.
/// Random values come from `generator`, or the device's default generator (manual_seed)
/// when null; the draws are hetero's (Philox), so the values are not torch's, the
/// distributions are. Floating tensors only (DTypeError otherwise).
#include <string>

#include <hetero/export.hpp>
#include <hetero/generator.hpp>
#include <hetero/tensor.hpp>

namespace hetero::nn::init {

/// The recommended gain for `nonlinearity`, as torch.nn.init.calculate_gain: 1 for
/// "linear", "conv*", "sigmoid"; 5/3 "tanh"; sqrt(2) "relu"; sqrt(2 / (1 + param^2))
/// "leaky_relu" (param defaults to 0.01); 3/4 "selu". ValueError for another name.
HETERO_API double calculate_gain(const std::string& nonlinearity, double param = 0.01);
/// U(a, b): t.uniform_(a, b, generator) under NoGradGuard, as torch.nn.init.uniform_ (so a
/// parameter is written); ValueError for a > b, or a, b or b - a beyond t's dtype (as torch).
HETERO_API Tensor& uniform_(Tensor& t, double a = 0, double b = 1, Generator* generator = nullptr);
/// N(mean, std^2): t.normal_(mean, std, generator) under NoGradGuard, as
/// torch.nn.init.normal_; ValueError for std < 0 or NaN (as torch).
HETERO_API Tensor& normal_(Tensor& t, double mean = 0, double std = 1,
                           Generator* generator = nullptr);
/// Every element `value`, without recording a gradient, as torch.nn.init.constant_ (its
/// no-grad fill_): any dtype, a floating value truncated into an integer tensor and any
/// nonzero value true in a bool one. DTypeError for a value beyond the dtype's range
/// (torch's "value cannot be converted to type int8_t without overflow").
/// @{
HETERO_API Tensor& constant_(Tensor& t, double value);
HETERO_API Tensor& zeros_(Tensor& t);
HETERO_API Tensor& ones_(Tensor& t);
/// @}
/// U(-a, a), a = gain sqrt(6 / (fan_in + fan_out)) (Glorot and Bengio 2010). fan_in =
/// size(1) * receptive field, fan_out = size(0) * receptive field (the product of the
/// dimensions after the first two); ValueError for fewer than 2 dimensions (as torch).
HETERO_API Tensor& xavier_uniform_(Tensor& t, double gain = 1, Generator* generator = nullptr);
/// N(0, std^2), std = gain sqrt(2 / (fan_in + fan_out)).
HETERO_API Tensor& xavier_normal_(Tensor& t, double gain = 1, Generator* generator = nullptr);
/// U(-bound, bound), bound = gain sqrt(3 / fan) (He et al. 2015), gain =
/// calculate_gain(nonlinearity, a), fan = fan_in ("fan_in") or fan_out ("fan_out").
/// ValueError for another mode or fewer than 2 dimensions.
HETERO_API Tensor& kaiming_uniform_(Tensor& t, double a = 0, const std::string& mode = "fan_in",
                                    const std::string& nonlinearity = "leaky_relu",
                                    Generator* generator = nullptr);
/// N(0, std^2), std = gain / sqrt(fan); arguments as kaiming_uniform_.
HETERO_API Tensor& kaiming_normal_(Tensor& t, double a = 0, const std::string& mode = "fan_in",
                                   const std::string& nonlinearity = "leaky_relu",
                                   Generator* generator = nullptr);

}  // namespace hetero::nn::init
