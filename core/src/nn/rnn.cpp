// SPDX-License-Identifier: Apache-2.0
// RNN, LSTM and GRU as torch 1.13's CPU path (aten/src/ATen/native/RNN.cpp): per layer and
// direction, the input projection x W_ih^T + b_ih, then per step the hidden projection
// h W_hh^T + b_hh and the cell (rnn_step.hpp, shared with the cells), whose expressions follow
// torch's (GRU's h' = (h - n) * z + n, LSTM's c' = f * c + i * g) so that the rounding is
// alike; an LSTM with proj_size then projects h' by W_hr (torch's LSTMP).
#include <hetero/nn/rnn.hpp>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/nn/dropout.hpp>
#include <hetero/nn/init.hpp>
#include <hetero/ops.hpp>

#include "../op_helpers.hpp"
#include "rnn_step.hpp"

namespace hetero::nn {

namespace {

std::string suffix(std::int64_t layer, bool reverse) {
  return "_l" + std::to_string(layer) + (reverse ? "_reverse" : "");
}

}  // namespace

RNNBase::RNNBase(const char* name, std::int64_t gates, std::int64_t input_size,
                 std::int64_t hidden_size, RNNOptions options, TensorOptions tensor_options)
    : name_(name),
      gates_(gates),
      input_size_(input_size),
      hidden_size_(hidden_size),
      options_(std::move(options)) {
  const std::string who(name);
  if (gates != 4 && options_.proj_size != 0)
    throw ValueError(who + ": proj_size argument is only supported for LSTM, not RNN or GRU " +
                     "(as torch)");
  detail::check_recurrent(who, gates, input_size, hidden_size, options_.nonlinearity,
                          /*cell=*/false);
  if (options_.num_layers < 1)
    throw ValueError(who + ": num_layers must be at least 1, got " +
                     std::to_string(options_.num_layers));
  if (!(options_.dropout >= 0 && options_.dropout <= 1))
    throw ValueError(who + ": dropout should be a number in range [0, 1] representing the " +
                     "probability of an element being zeroed, got " +
                     detail::format_double(options_.dropout) + " (as torch)");
  if (options_.proj_size < 0)
    throw ValueError(who + ": proj_size should be a positive integer or zero to disable " +
                     "projections, got " + std::to_string(options_.proj_size) + " (as torch)");
  if (options_.proj_size >= hidden_size)
    throw ValueError(who + ": proj_size has to be smaller than hidden_size, got proj_size " +
                     std::to_string(options_.proj_size) + " and hidden_size " +
                     std::to_string(hidden_size) + " (as torch)");
  const TensorOptions o = tensor_options.dtype(tensor_options.dtype_or(DType::float32));
  const std::int64_t D = options_.bidirectional ? 2 : 1, H = hidden_size;
  const std::int64_t P = options_.proj_size, out = P > 0 ? P : H;  // h's features
  const double bound = 1 / std::sqrt(static_cast<double>(H));
  // torch's order: per layer, per direction, w_ih, w_hh, b_ih, b_hh, w_hr; all
  // U(-bound, bound).
  for (std::int64_t layer = 0; layer < options_.num_layers; ++layer)
    for (std::int64_t d = 0; d < D; ++d) {
      const std::string s = suffix(layer, d == 1);
      const std::int64_t in = layer == 0 ? input_size : out * D;
      init::uniform_(register_parameter("weight_ih" + s, empty({gates * H, in}, o)), -bound, bound);
      init::uniform_(register_parameter("weight_hh" + s, empty({gates * H, out}, o)), -bound,
                     bound);
      if (options_.bias) {
        init::uniform_(register_parameter("bias_ih" + s, empty({gates * H}, o)), -bound, bound);
        init::uniform_(register_parameter("bias_hh" + s, empty({gates * H}, o)), -bound, bound);
      }
      if (P > 0)
        init::uniform_(register_parameter("weight_hr" + s, empty({P, H}, o)), -bound, bound);
    }
}

Tensor RNNBase::forward(const Tensor& input) { return run(input, {}, {}).output; }

RNNOutput RNNBase::run(const Tensor& input, const Tensor& h0, const Tensor& c0) {
  const std::string who(name_);
  const bool lstm = gates_ == 4;
  const detail::CellKind kind = detail::cell_kind(gates_, options_.nonlinearity);
  if (!input.defined()) throw ValueError(who + ": undefined input");
  const bool batched = input.dim() == 3;
  if (input.dim() != 2 && !batched)
    throw ShapeError(who + ": input must have 2 (unbatched) or 3 dimensions, got " +
                     std::to_string(input.dim()) + " (as torch)");
  // [L, N, features] throughout, as torch's.
  const Tensor x = !batched               ? input.unsqueeze(1)
                   : options_.batch_first ? input.transpose(0, 1)
                                          : input;
  const std::int64_t L = x.size(0), N = x.size(1), H = hidden_size_;
  const std::int64_t D = options_.bidirectional ? 2 : 1, layers = options_.num_layers;
  if (L == 0) throw ShapeError(who + ": expected sequence length to be larger than 0 (as torch)");
  if (x.size(2) != input_size_)
    throw ShapeError(who + ": input.size(-1) must be equal to input_size. Expected " +
                     std::to_string(input_size_) + ", got " + std::to_string(x.size(2)) +
                     " (as torch)");
  if (lstm && h0.defined() != c0.defined())
    throw ValueError(who + ": h0 and c0 are given together (torch's hx tuple) or not at all");
  const std::int64_t P = options_.proj_size;
  const auto initial = [&](const Tensor& s, const char* what, std::int64_t features) {
    const Shape state{layers * D, N, features};
    if (!s.defined()) return zeros(state, TensorOptions(x.device()).dtype(x.dtype()));
    if (s.dim() != input.dim())
      throw ShapeError(who + ": for " + (batched ? "batched 3-D" : "unbatched 2-D") + " input, " +
                       what + " should also be " + std::to_string(input.dim()) + "-D but got " +
                       std::to_string(s.dim()) + "-D tensor (as torch)");
    Tensor t = batched ? s : s.unsqueeze(1);
    if (t.shape() != state)
      throw ShapeError(who + ": expected " + what + " of shape " +
                       detail::shape_str(batched ? state : Shape{layers * D, features}) + ", got " +
                       detail::shape_str(s.shape()) + " (as torch)");
    return t;
  };
  const Tensor h_all = initial(h0, "h0", P > 0 ? P : H);  // with proj_size, h is projected
  const Tensor c_all = lstm ? initial(c0, "c0", H) : Tensor();

  std::vector<Tensor> h_n, c_n;
  Tensor layer_in = x;
  for (std::int64_t layer = 0; layer < layers; ++layer) {
    std::vector<Tensor> directions;
    for (std::int64_t d = 0; d < D; ++d) {
      // The parameters looked up once per layer and direction, not per step.
      const std::string s = suffix(layer, d == 1);
      const Tensor w_hh_t = parameter("weight_hh" + s).t();
      const bool bias = options_.bias;
      const Tensor b_hh = bias ? parameter("bias_hh" + s) : Tensor();
      const Tensor w_hr_t = P > 0 ? parameter("weight_hr" + s).t() : Tensor();
      Tensor xw = matmul(layer_in, parameter("weight_ih" + s).t());  // [L, N, gates * H]
      if (bias) xw = xw + parameter("bias_ih" + s);
      Tensor h = h_all[layer * D + d];
      Tensor c = lstm ? c_all[layer * D + d] : Tensor();
      std::vector<Tensor> outs(static_cast<std::size_t>(L));
      for (std::int64_t step = 0; step < L; ++step) {
        const std::int64_t t = d == 0 ? step : L - 1 - step;
        Tensor gh = matmul(h, w_hh_t);
        if (bias) gh = gh + b_hh;
        detail::CellState next = detail::cell_step(kind, xw[t], gh, h, c, H);
        h = P > 0 ? matmul(next.h, w_hr_t) : std::move(next.h);
        c = std::move(next.c);
        outs[static_cast<std::size_t>(t)] = h;
      }
      directions.push_back(stack(outs, 0));
      h_n.push_back(h);
      if (lstm) c_n.push_back(c);
    }
    layer_in = D == 2 ? cat(directions, 2) : directions[0];
    if (options_.dropout > 0 && is_training() && layer + 1 < layers)
      layer_in = dropout(layer_in, options_.dropout, true);
  }
  const auto out_layout = [&](const Tensor& t) {
    return !batched ? t.squeeze(1) : options_.batch_first ? t.transpose(0, 1) : t;
  };
  const auto state_layout = [&](const std::vector<Tensor>& s) {
    const Tensor t = stack(s, 0);
    return batched ? t : t.squeeze(1);
  };
  RNNOutput r{out_layout(layer_in), state_layout(h_n), Tensor()};
  if (lstm) r.c_n = state_layout(c_n);
  return r;
}

RNN::RNN(std::int64_t input_size, std::int64_t hidden_size, RNNOptions options,
         TensorOptions tensor_options)
    : RNNBase("RNN", 1, input_size, hidden_size, std::move(options), tensor_options) {}

RNNOutput RNN::forward(const Tensor& input, const Tensor& h0) { return run(input, h0, {}); }

LSTM::LSTM(std::int64_t input_size, std::int64_t hidden_size, RNNOptions options,
           TensorOptions tensor_options)
    : RNNBase("LSTM", 4, input_size, hidden_size, std::move(options), tensor_options) {}

RNNOutput LSTM::forward(const Tensor& input, const Tensor& h0, const Tensor& c0) {
  return run(input, h0, c0);
}

GRU::GRU(std::int64_t input_size, std::int64_t hidden_size, RNNOptions options,
         TensorOptions tensor_options)
    : RNNBase("GRU", 3, input_size, hidden_size, std::move(options), tensor_options) {}

RNNOutput GRU::forward(const Tensor& input, const Tensor& h0) { return run(input, h0, {}); }

}  // namespace hetero::nn
