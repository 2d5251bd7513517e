// SPDX-License-Identifier: Apache-2.0
#include <hetero/nn/init.hpp>

#include <cmath>
#include <utility>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "../op_helpers.hpp"

namespace hetero::nn::init {

namespace {

void check_floating(const Tensor& t, const char* who) {
  if (!t.defined()) throw ValueError(std::string(who) + ": undefined tensor");
  if (!is_floating_point(t.dtype()))
    throw DTypeError(std::string(who) + ": expected a floating tensor, got " +
                     std::string(dtype_name(t.dtype())));
}

// torch.nn.init._calculate_fan_in_and_fan_out.
std::pair<double, double> fans(const Tensor& t, const char* who) {
  if (t.dim() < 2)
    throw ValueError(std::string(who) +
                     ": Fan in and fan out can not be computed for tensor with fewer than 2 "
                     "dimensions (as torch)");
  double receptive = 1;
  for (std::int64_t d = 2; d < t.dim(); ++d) receptive *= static_cast<double>(t.size(d));
  return {static_cast<double>(t.size(1)) * receptive, static_cast<double>(t.size(0)) * receptive};
}

double kaiming_std(const Tensor& t, double a, const std::string& mode,
                   const std::string& nonlinearity, const char* who) {
  if (mode != "fan_in" && mode != "fan_out")
    throw ValueError(std::string(who) + ": Mode " + mode +
                     " not supported, please use one of fan_in, fan_out (as torch)");
  const auto [fan_in, fan_out] = fans(t, who);
  const double fan = mode == "fan_in" ? fan_in : fan_out;
  return calculate_gain(nonlinearity, a) / std::sqrt(fan);
}

}  // namespace

double calculate_gain(const std::string& nonlinearity, double param) {
  if (nonlinearity == "linear" || nonlinearity == "sigmoid" || nonlinearity.rfind("conv", 0) == 0)
    return 1;
  if (nonlinearity == "tanh") return 5.0 / 3;
  if (nonlinearity == "relu") return std::sqrt(2.0);
  if (nonlinearity == "leaky_relu") return std::sqrt(2.0 / (1 + param * param));
  if (nonlinearity == "selu") return 3.0 / 4;
  throw ValueError("calculate_gain: Unsupported nonlinearity " + nonlinearity + " (as torch)");
}

Tensor& uniform_(Tensor& t, double a, double b, Generator* generator) {
  check_floating(t, "uniform_");
  NoGradGuard no_grad;
  return t.uniform_(a, b, generator);
}

Tensor& normal_(Tensor& t, double mean, double std, Generator* generator) {
  check_floating(t, "normal_");
  NoGradGuard no_grad;
  return t.normal_(mean, std, generator);
}

Tensor& constant_(Tensor& t, double value) {
  // torch's no-grad fill_: any dtype, a floating value into integers truncated, into bool
  // nonzero; a value beyond the dtype's range raises (named here, not as fill_).
  detail::impl_of(t, "constant_");
  detail::check_value_fits("constant_", value, t.dtype());
  NoGradGuard no_grad;
  t.fill_(value);
  return t;
}

Tensor& zeros_(Tensor& t) { return constant_(t, 0); }
Tensor& ones_(Tensor& t) { return constant_(t, 1); }

Tensor& xavier_uniform_(Tensor& t, double gain, Generator* generator) {
  check_floating(t, "xavier_uniform_");
  const auto [fan_in, fan_out] = fans(t, "xavier_uniform_");
  if (t.numel() == 0) return t;  // fans of 0 give 0 / 0 (torch: ZeroDivisionError)
  const double a = gain * std::sqrt(6.0 / (fan_in + fan_out));
  return uniform_(t, -a, a, generator);
}

Tensor& xavier_normal_(Tensor& t, double gain, Generator* generator) {
  check_floating(t, "xavier_normal_");
  const auto [fan_in, fan_out] = fans(t, "xavier_normal_");
  if (t.numel() == 0) return t;  // fans of 0 give 0 / 0 (torch: ZeroDivisionError)
  return normal_(t, 0, gain * std::sqrt(2.0 / (fan_in + fan_out)), generator);
}

Tensor& kaiming_uniform_(Tensor& t, double a, const std::string& mode,
                         const std::string& nonlinearity, Generator* generator) {
  check_floating(t, "kaiming_uniform_");
  if (t.numel() == 0) return t;  // torch: "Initializing zero-element tensors is a no-op"
  const double bound = std::sqrt(3.0) * kaiming_std(t, a, mode, nonlinearity, "kaiming_uniform_");
  return uniform_(t, -bound, bound, generator);
}

Tensor& kaiming_normal_(Tensor& t, double a, const std::string& mode,
                        const std::string& nonlinearity, Generator* generator) {
  check_floating(t, "kaiming_normal_");
  if (t.numel() == 0) return t;  // a fan of 0 gives an infinite std; nothing to fill
  return normal_(t, 0, kaiming_std(t, a, mode, nonlinearity, "kaiming_normal_"), generator);
}

}  // namespace hetero::nn::init
