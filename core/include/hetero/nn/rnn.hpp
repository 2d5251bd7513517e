// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn/rnn.hpp
/// hetero::nn::RNN, LSTM and GRU — multi-layer recurrent layers, as torch 1.13's
/// torch.nn.RNN / LSTM / GRU (D2L chapters 8 and 9): the same equations, gate orders,
/// parameter names (weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0, with `_reverse` for
/// the backward direction of a bidirectional layer; weight_hr_l0 for an LSTM with proj_size),
/// parameter order and initialisation (every parameter U(-1/sqrt(hidden_size),
/// 1/sqrt(hidden_size))), so a torch state_dict loads by name. Composed of matmul and
/// element-wise ops on the parameters' device, so the gradients are autograd's. One step
/// at a time: nn::RNNCell, LSTMCell and GRUCell (<hetero/nn/rnn_cell.hpp>). Batches of
/// sequences of different lengths: pass a PackedSequence (<hetero/nn/packed_sequence.hpp>),
/// as torch's.
#include <cstdint>
#include <string>

#include <hetero/nn/module.hpp>
#include <hetero/nn/packed_sequence.hpp>
#include <hetero/tensor_options.hpp>

namespace hetero::nn {

/// The keyword arguments of torch.nn.RNN / LSTM / GRU after input_size and hidden_size.
struct RNNOptions {
  /// Stacked layers; layer k > 0 takes layer k - 1's output (hidden_size features, twice
  /// that when bidirectional).
  std::int64_t num_layers = 1;
  /// Whether the layers have bias_ih and bias_hh.
  bool bias = true;
  /// Input and output as [N, L, features] instead of [L, N, features] (h_n keeps
  /// [layers * directions, N, hidden], as torch's).
  bool batch_first = false;
  /// Dropout probability on the output of every layer but the last, in training mode.
  double dropout = 0;
  /// A second pass over the sequence in reverse per layer, its output concatenated after
  /// the forward one's.
  bool bidirectional = false;
  /// RNN's h_t = act(x W_ih^T + b_ih + h W_hh^T + b_hh): "tanh" or "relu". LSTM and GRU
  /// take only "tanh" (their gates are fixed).
  std::string nonlinearity = "tanh";
  /// LSTM only: when > 0, each step's h = W_hr (o * tanh(c)) with weight_hr [proj_size,
  /// hidden] (Sak et al. 2014, torch's proj_size), so h, h_n, h0 and the output have
  /// proj_size features instead of hidden_size (c keeps hidden_size) and weight_hh is
  /// [4 * hidden, proj_size]. 0: no projection.
  std::int64_t proj_size = 0;
};

/// What a recurrent layer returns, as torch's (output, h_n) or (output, (h_n, c_n)).
struct RNNOutput {
  /// The last layer's h_t for every t: [L, N, D * hidden] ([N, L, D * hidden] with
  /// batch_first; [L, D * hidden] unbatched), D = 2 when bidirectional; the forward
  /// direction's features first. proj_size replaces hidden here and in h_n.
  Tensor output;
  /// Every layer's and direction's last hidden state: [num_layers * D, N, hidden]
  /// ([num_layers * D, hidden] unbatched), ordered layer 0 forward, layer 0 reverse, ...
  Tensor h_n;
  /// LSTM only (undefined otherwise): the last cell states, h_n's shape.
  Tensor c_n;
};

/// What a recurrent layer returns for a PackedSequence, as torch's (output, h_n) or
/// (output, (h_n, c_n)).
struct PackedRNNOutput {
  /// The last layer's h_t for every real step, packed as the input (same batch_sizes and
  /// indices): data [rows, D * hidden] (proj_size instead of hidden when set).
  PackedSequence output;
  /// Each sequence's own last hidden state per layer and direction, [num_layers * D, B,
  /// hidden], in the input's original column order (the reverse direction's is its state
  /// after step 0).
  Tensor h_n;
  /// LSTM only (undefined otherwise): the cell states at the same steps, h_n's shape.
  Tensor c_n;
};

/// The state and the shared forward pass of RNN, LSTM and GRU (torch's RNNBase).
class HETERO_API RNNBase : public Module {
 public:
  /// Features of the input.
  std::int64_t input_size() const noexcept { return input_size_; }
  /// Features of each hidden state.
  std::int64_t hidden_size() const noexcept { return hidden_size_; }
  /// The constructor's options.
  const RNNOptions& options() const noexcept { return options_; }
  /// forward(input) of the subclass: the output without the final states.
  Tensor forward(const Tensor& input) override;

 protected:
  /// `gates` blocks of hidden_size rows per weight (RNN 1, LSTM 4, GRU 3); `name` for
  /// messages. ValueError for input_size < 0 (0 is allowed, as torch), hidden_size < 1,
  /// num_layers < 1, dropout outside
  /// [0, 1], an unknown nonlinearity (torch: "Unknown nonlinearity 'gelu'"), a proj_size
  /// outside [0, hidden_size) or a non-zero one for RNN or GRU (torch's messages).
  RNNBase(const char* name, std::int64_t gates, std::int64_t input_size, std::int64_t hidden_size,
          RNNOptions options, TensorOptions tensor_options);
  /// The shared pass: input [L, N, input_size] (batch_first [N, L, ...]; 2-D unbatched),
  /// h0 and c0 (c0 only for LSTM) [num_layers * D, N, hidden] (2-D unbatched; h0 with
  /// proj_size features when it is set) or undefined for zeros. ShapeError for a sequence of length
  /// 0, an input whose last dimension is not input_size, an input of another rank, or states of
  /// another shape (torch's messages).
  RNNOutput run(const Tensor& input, const Tensor& h0, const Tensor& c0);
  /// The pass over a packed batch (torch's PackedSequence path): each sequence runs for its
  /// own length; h0 and c0 [num_layers * D, B, hidden] are in the input's original column
  /// order (permuted by sorted_indices, and h_n back, as torch's). ValueError for a malformed
  /// PackedSequence; ShapeError for data that is not [rows, input_size] or states of another
  /// shape; dtype and device errors as the padded pass.
  PackedRNNOutput run(const PackedSequence& input, const Tensor& h0, const Tensor& c0);

 private:
  const char* name_;
  std::int64_t gates_, input_size_, hidden_size_;
  RNNOptions options_;
};

/// Elman RNN, as torch.nn.RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)
/// (relu with options.nonlinearity = "relu"). weight_ih_l0 [hidden, input_size],
/// weight_hh_l0 [hidden, hidden], biases [hidden]; float32 on options' device unless
/// tensor_options name another.
class HETERO_API RNN : public RNNBase {
 public:
  /// ValueError as RNNBase's.
  RNN(std::int64_t input_size, std::int64_t hidden_size, RNNOptions options = {},
      TensorOptions tensor_options = {});
  using RNNBase::forward;
  /// output and h_n for `input` from `h0` (zeros when undefined); shapes in RNNOutput.
  /// Errors as RNNBase::run; DTypeError or DeviceMismatchError for an input of another
  /// dtype or device than the parameters'.
  RNNOutput forward(const Tensor& input, const Tensor& h0);
  /// The packed form: output packed as `input`, h_n per sequence. Errors as RNNBase::run.
  PackedRNNOutput forward(const PackedSequence& input, const Tensor& h0 = {});
};

/// Long short-term memory (Hochreiter & Schmidhuber 1997), as torch.nn.LSTM: gates
/// i, f, g, o in that order along the 4 * hidden rows of weight_ih / weight_hh;
/// c_t = f * c_{t-1} + i * g, h_t = o * tanh(c_t), with i, f, o sigmoids and g a tanh.
class HETERO_API LSTM : public RNNBase {
 public:
  /// ValueError as RNNBase's, and for a nonlinearity other than "tanh".
  LSTM(std::int64_t input_size, std::int64_t hidden_size, RNNOptions options = {},
       TensorOptions tensor_options = {});
  using RNNBase::forward;
  /// output, h_n and c_n from h0 and c0 (zeros when undefined; both or neither, as
  /// torch's hx tuple: ValueError for one alone). Errors as RNN::forward.
  RNNOutput forward(const Tensor& input, const Tensor& h0, const Tensor& c0);
  /// The packed form, from h0 and c0 (both or neither). Errors as RNNBase::run.
  PackedRNNOutput forward(const PackedSequence& input, const Tensor& h0 = {},
                          const Tensor& c0 = {});
};

/// Gated recurrent unit (Cho et al. 2014), as torch.nn.GRU: gates r, z, n in that order;
/// r = sigmoid(x W_ir^T + b_ir + h W_hr^T + b_hr), z likewise,
/// n = tanh(x W_in^T + b_in + r * (h W_hn^T + b_hn)), h_t = (1 - z) * n + z * h_{t-1}.
class HETERO_API GRU : public RNNBase {
 public:
  /// ValueError as RNNBase's, and for a nonlinearity other than "tanh".
  GRU(std::int64_t input_size, std::int64_t hidden_size, RNNOptions options = {},
      TensorOptions tensor_options = {});
  using RNNBase::forward;
  /// output and h_n from h0 (zeros when undefined). Errors as RNN::forward.
  RNNOutput forward(const Tensor& input, const Tensor& h0);
  /// The packed form. Errors as RNNBase::run.
  PackedRNNOutput forward(const PackedSequence& input, const Tensor& h0 = {});
};

}  // namespace hetero::nn
