// SPDX-License-Identifier: Apache-2.0
#pragma once
// One time step of the recurrent cells, shared by the layers (nn::RNN, LSTM, GRU over a
// sequence) and the cells (nn::RNNCell, LSTMCell, GRUCell: one step): the expressions of
// torch 1.13's CPU cells (aten/src/ATen/native/RNN.cpp), so that the rounding is alike.
#include <cstdint>
#include <string>

#include <hetero/tensor.hpp>

namespace hetero::detail {

/// Which cell: its number of gate blocks is 1 (rnn_*), 4 (lstm) or 3 (gru).
enum class CellKind { rnn_tanh, rnn_relu, lstm, gru };

/// A cell's state after a step: h [N, H]; c [N, H] for LSTM (undefined otherwise).
struct CellState {
  Tensor h;
  Tensor c;
};

/// The checks of a recurrent layer's or cell's constructor (`who`: "LSTM", "GRUCell", ...;
/// `gates` 1, 4 or 3): ValueError for input_size < 0, hidden_size < 0 (< 1 for a layer), and
/// for a nonlinearity other than "tanh" (or "relu" with one gate), in torch's words: a
/// layer's "Unknown nonlinearity 'gelu'", a cell's "Unknown nonlinearity: gelu".
void check_recurrent(const std::string& who, std::int64_t gates, std::int64_t input_size,
                     std::int64_t hidden_size, const std::string& nonlinearity, bool cell);

/// The cell of `gates` gate blocks (4: lstm, 3: gru, 1: rnn_relu for "relu", else rnn_tanh).
CellKind cell_kind(std::int64_t gates, const std::string& nonlinearity) noexcept;

/// One step from the input projection gi = x W_ih^T + b_ih and the hidden projection
/// gh = h W_hh^T + b_hh (both [N, gates * hidden]), the previous h [N, hidden] (GRU) and c
/// [N, hidden] (LSTM): RNN act(gi + gh); LSTM i, f, g, o = sigmoid, sigmoid, tanh, sigmoid of
/// gi + gh's blocks, c' = f * c + i * g, h' = o * tanh(c'); GRU r, z = sigmoid(gi_r + gh_r),
/// sigmoid(gi_z + gh_z), n = tanh(gi_n + r * gh_n), h' = (h - n) * z + n. Autograd records
/// the ops as usual.
CellState cell_step(CellKind kind, const Tensor& gi, const Tensor& gh, const Tensor& h,
                    const Tensor& c, std::int64_t hidden);

}  // namespace hetero::detail
