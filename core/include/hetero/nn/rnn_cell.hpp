// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/rnn_cell.hpp
/// hetero::nn::RNNCell, LSTMCell and GRUCell — one time step of the recurrent layers, as
/// torch 1.13's torch.nn.RNNCell / LSTMCell / GRUCell: the same equations as nn::RNN, LSTM
/// and GRU (<hetero/nn/rnn.hpp>; the same code computes a step), the same gate orders,
/// parameter names (weight_ih [gates * hidden, input_size], weight_hh [gates * hidden,
/// hidden], bias_ih and bias_hh [gates * hidden]), order and initialisation (every
/// parameter U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))), so a torch state_dict loads by
/// name. The caller runs the loop over time (D2L 9.5's from-scratch style, or a decoder that
/// feeds its own output back).
#include <cstdint>
#include <string>

#include <hetero/nn/module.hpp>
#include <hetero/tensor_options.hpp>

namespace hetero::nn {

/// The keyword arguments of torch.nn.RNNCell / LSTMCell / GRUCell after input_size and
/// hidden_size.
struct RNNCellOptions {
  /// Whether the cell has bias_ih and bias_hh.
  bool bias = true;
  /// RNNCell's activation, "tanh" or "relu"; LSTMCell and GRUCell take only "tanh".
  std::string nonlinearity = "tanh";
};

/// What LSTMCell returns, as torch's (h_1, c_1): both [N, hidden] ([hidden] unbatched).
struct LSTMCellOutput {
  Tensor h;  ///< the next hidden state
  Tensor c;  ///< the next cell state
};

/// The parameters, checks and step shared by the cells (torch's RNNCellBase).
class HETERO_API RNNCellBase : public Module {
 public:
  /// Features of the input.
  std::int64_t input_size() const noexcept { return input_size_; }
  /// Features of the hidden (and cell) state.
  std::int64_t hidden_size() const noexcept { return hidden_size_; }
  /// The constructor's options.
  const RNNCellOptions& options() const noexcept { return options_; }
  /// The next hidden state from a zero state: forward(input, {}) of RNNCell and GRUCell,
  /// forward(input, {}, {}).h of LSTMCell.
  Tensor forward(const Tensor& input) override;

 protected:
  /// `gates` blocks of hidden_size rows per weight (RNNCell 1, LSTMCell 4, GRUCell 3);
  /// `name` for messages. ValueError for input_size or hidden_size < 0 (0 is allowed, as
  /// torch: empty weights; hidden_size 0 gives an [N, 0] state) or an unknown nonlinearity
  /// (torch: "Unknown nonlinearity: gelu").
  RNNCellBase(const char* name, std::int64_t gates, std::int64_t input_size,
              std::int64_t hidden_size, RNNCellOptions options, TensorOptions tensor_options);
  /// One step: input [N, input_size] or [input_size] (unbatched), hx and cx (cx only for
  /// LSTMCell) of the input's rank, [N, hidden] or [hidden], or undefined for zeros. The
  /// result has the input's rank. ShapeError for an input of rank other than 1 or 2, a
  /// state of another rank than the input's, and torch's "input has inconsistent
  /// input_size: got 5 expected 3", "Input batch size 2 doesn't match hidden0 batch size 3"
  /// and "hidden0 has inconsistent hidden_size: got 5, expected 4" (hidden1: cx).
  /// DTypeError or DeviceMismatchError for an input of another dtype or device than the
  /// parameters'.
  LSTMCellOutput step(const Tensor& input, const Tensor& hx, const Tensor& cx);

 private:
  const char* name_;
  std::int64_t gates_, input_size_, hidden_size_;
  RNNCellOptions options_;
};

/// Elman RNN cell, as torch.nn.RNNCell: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (relu
/// with options.nonlinearity = "relu"). Float32 on the default device unless tensor_options
/// name another dtype or device.
class HETERO_API RNNCell : public RNNCellBase {
 public:
  /// ValueError as RNNCellBase's.
  RNNCell(std::int64_t input_size, std::int64_t hidden_size, RNNCellOptions options = {},
          TensorOptions tensor_options = {});
  using RNNCellBase::forward;
  /// h' [N, hidden] ([hidden] unbatched) from `hx` (zeros when undefined). Errors as
  /// RNNCellBase::step.
  Tensor forward(const Tensor& input, const Tensor& hx);
};

/// LSTM cell, as torch.nn.LSTMCell: gates i, f, g, o along weight_ih's and weight_hh's
/// 4 * hidden rows; c' = f * c + i * g, h' = o * tanh(c').
class HETERO_API LSTMCell : public RNNCellBase {
 public:
  /// ValueError as RNNCellBase's, and for a nonlinearity other than "tanh".
  LSTMCell(std::int64_t input_size, std::int64_t hidden_size, RNNCellOptions options = {},
           TensorOptions tensor_options = {});
  using RNNCellBase::forward;
  /// h' and c' from hx and cx (zeros when undefined; both or neither, as torch's hx tuple:
  /// ValueError for one alone). Errors as RNNCellBase::step.
  LSTMCellOutput forward(const Tensor& input, const Tensor& hx, const Tensor& cx);
};

/// GRU cell, as torch.nn.GRUCell: gates r, z, n along the 3 * hidden rows;
/// n = tanh(x W_in^T + b_in + r * (h W_hn^T + b_hn)), h' = (1 - z) * n + z * h.
class HETERO_API GRUCell : public RNNCellBase {
 public:
  /// ValueError as RNNCellBase's, and for a nonlinearity other than "tanh".
  GRUCell(std::int64_t input_size, std::int64_t hidden_size, RNNCellOptions options = {},
          TensorOptions tensor_options = {});
  using RNNCellBase::forward;
  /// h' from `hx` (zeros when undefined). Errors as RNNCellBase::step.
  Tensor forward(const Tensor& input, const Tensor& hx);
};

}  // namespace hetero::nn
