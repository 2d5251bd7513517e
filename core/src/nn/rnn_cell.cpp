// SPDX-License-Identifier: Apache-2.0
// RNNCell, LSTMCell and GRUCell as torch 1.13's (torch/nn/modules/rnn.py, RNNCellBase and
// aten/src/ATen/native/RNN.cpp's check_rnn_cell_forward_*): the checks, then one step of
// rnn_step.hpp's cell, the code nn::RNN, LSTM and GRU run at every time step.
#include <hetero/nn/rnn_cell.hpp>

#include <cmath>
#include <string>
#include <utility>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/nn/init.hpp>
#include <hetero/ops.hpp>

#include "rnn_step.hpp"

namespace hetero::nn {

RNNCellBase::RNNCellBase(const char* name, std::int64_t gates, std::int64_t input_size,
                         std::int64_t hidden_size, RNNCellOptions options,
                         TensorOptions tensor_options)
    : name_(name),
      gates_(gates),
      input_size_(input_size),
      hidden_size_(hidden_size),
      options_(std::move(options)) {
  const std::string who(name);
  detail::check_recurrent(who, gates, input_size, hidden_size, options_.nonlinearity,
                          /*cell=*/true);
  const TensorOptions o = tensor_options.dtype(tensor_options.dtype_or(DType::float32));
  const std::int64_t H = hidden_size;
  const double bound = H > 0 ? 1 / std::sqrt(static_cast<double>(H)) : 0.0;  // as torch
  // torch's order and initialisation (RNNCellBase.reset_parameters): all U(-bound, bound).
  init::uniform_(register_parameter("weight_ih", empty({gates * H, input_size}, o)), -bound, bound);
  init::uniform_(register_parameter("weight_hh", empty({gates * H, H}, o)), -bound, bound);
  if (options_.bias) {
    init::uniform_(register_parameter("bias_ih", empty({gates * H}, o)), -bound, bound);
    init::uniform_(register_parameter("bias_hh", empty({gates * H}, o)), -bound, bound);
  }
}

Tensor RNNCellBase::forward(const Tensor& input) { return step(input, {}, {}).h; }

LSTMCellOutput RNNCellBase::step(const Tensor& input, const Tensor& hx, const Tensor& cx) {
  const std::string who(name_);
  if (!input.defined()) throw ValueError(who + ": undefined input");
  if (input.dim() != 1 && input.dim() != 2)
    throw ShapeError(who + ": Expected input to be 1-D or 2-D but received " +
                     std::to_string(input.dim()) + "-D tensor (as torch)");
  const bool batched = input.dim() == 2;
  const Tensor x = batched ? input : input.unsqueeze(0);
  const std::int64_t N = x.size(0), H = hidden_size_;
  if (x.size(1) != input_size_)
    throw ShapeError(who + ": input has inconsistent input_size: got " + std::to_string(x.size(1)) +
                     " expected " + std::to_string(input_size_) + " (as torch)");
  const auto state = [&](const Tensor& s, int k) {
    if (!s.defined()) return zeros({N, H}, TensorOptions(x.device()).dtype(x.dtype()));
    const std::string what = "hidden" + std::to_string(k);
    if (s.dim() != input.dim())
      throw ShapeError(who + ": for " + (batched ? "batched 2-D" : "unbatched 1-D") + " input, " +
                       what + " should also be " + std::to_string(input.dim()) + "-D but got " +
                       std::to_string(s.dim()) + "-D tensor");
    const Tensor t = batched ? s : s.unsqueeze(0);
    if (t.size(0) != N)
      throw ShapeError(who + ": Input batch size " + std::to_string(N) + " doesn't match " + what +
                       " batch size " + std::to_string(t.size(0)) + " (as torch)");
    if (t.size(1) != H)
      throw ShapeError(who + ": " + what + " has inconsistent hidden_size: got " +
                       std::to_string(t.size(1)) + ", expected " + std::to_string(H) +
                       " (as torch)");
    return t;
  };
  const Tensor h = state(hx, 0);
  const bool lstm = gates_ == 4;
  const Tensor c = lstm ? state(cx, 1) : Tensor();
  Tensor gi = matmul(x, parameter("weight_ih").t());
  Tensor gh = matmul(h, parameter("weight_hh").t());
  if (options_.bias) {
    gi = gi + parameter("bias_ih");
    gh = gh + parameter("bias_hh");
  }
  const detail::CellKind kind = detail::cell_kind(gates_, options_.nonlinearity);
  detail::CellState next = detail::cell_step(kind, gi, gh, h, c, H);
  if (!batched) {
    next.h = next.h.squeeze(0);
    if (lstm) next.c = next.c.squeeze(0);
  }
  return {std::move(next.h), std::move(next.c)};
}

RNNCell::RNNCell(std::int64_t input_size, std::int64_t hidden_size, RNNCellOptions options,
                 TensorOptions tensor_options)
    : RNNCellBase("RNNCell", 1, input_size, hidden_size, std::move(options), tensor_options) {}

Tensor RNNCell::forward(const Tensor& input, const Tensor& hx) { return step(input, hx, {}).h; }

LSTMCell::LSTMCell(std::int64_t input_size, std::int64_t hidden_size, RNNCellOptions options,
                   TensorOptions tensor_options)
    : RNNCellBase("LSTMCell", 4, input_size, hidden_size, std::move(options), tensor_options) {}

LSTMCellOutput LSTMCell::forward(const Tensor& input, const Tensor& hx, const Tensor& cx) {
  if (hx.defined() != cx.defined())
    throw ValueError("LSTMCell: hx and cx are given together (torch's hx tuple) or not at all");
  return step(input, hx, cx);
}

GRUCell::GRUCell(std::int64_t input_size, std::int64_t hidden_size, RNNCellOptions options,
                 TensorOptions tensor_options)
    : RNNCellBase("GRUCell", 3, input_size, hidden_size, std::move(options), tensor_options) {}

Tensor GRUCell::forward(const Tensor& input, const Tensor& hx) { return step(input, hx, {}).h; }

}  // namespace hetero::nn
