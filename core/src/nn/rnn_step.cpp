// SPDX-License-Identifier: Apache-2.0
#include "rnn_step.hpp"

#include <hetero/activations.hpp>
#include <hetero/error.hpp>
#include <hetero/ops.hpp>

namespace hetero::detail {

void check_recurrent(const std::string& who, std::int64_t gates, std::int64_t input_size,
                     std::int64_t hidden_size, const std::string& nonlinearity, bool cell) {
  // torch: a cell takes zero sizes (empty weights, a [N, 0] state); a layer takes no input
  // features but needs hidden ones ("proj_size has to be smaller than hidden_size").
  if (input_size < 0 || hidden_size < 0 || (!cell && hidden_size == 0))
    throw ValueError(who + ": input_size must be >= 0 and hidden_size " + (cell ? ">= 0" : "> 0") +
                     ", got " + std::to_string(input_size) + " and " + std::to_string(hidden_size));
  if (nonlinearity != "tanh" && (gates != 1 || nonlinearity != "relu"))
    throw ValueError(who + ": Unknown nonlinearity" +
                     (cell ? ": " + nonlinearity : " '" + nonlinearity + "'") +
                     (gates == 1 ? " (tanh or relu, as torch)" : " (its gates are fixed)"));
}

CellKind cell_kind(std::int64_t gates, const std::string& nonlinearity) noexcept {
  return gates == 4               ? CellKind::lstm
         : gates == 3             ? CellKind::gru
         : nonlinearity == "relu" ? CellKind::rnn_relu
                                  : CellKind::rnn_tanh;
}

CellState cell_step(CellKind kind, const Tensor& gi, const Tensor& gh, const Tensor& h,
                    const Tensor& c, std::int64_t hidden) {
  const auto part = [hidden](const Tensor& g, std::int64_t k) {
    return g.narrow(1, k * hidden, hidden);
  };
  switch (kind) {
    case CellKind::lstm: {
      const Tensor g = gi + gh;
      const Tensor i = sigmoid(part(g, 0)), f = sigmoid(part(g, 1));
      const Tensor cell = tanh(part(g, 2)), o = sigmoid(part(g, 3));
      const Tensor c_next = f * c + i * cell;
      return {o * tanh(c_next), c_next};
    }
    case CellKind::gru: {
      const Tensor r = sigmoid(part(gi, 0) + part(gh, 0));
      const Tensor z = sigmoid(part(gi, 1) + part(gh, 1));
      const Tensor n = tanh(part(gi, 2) + r * part(gh, 2));
      return {(h - n) * z + n, Tensor()};
    }
    case CellKind::rnn_relu:
      return {relu(gi + gh), Tensor()};
    case CellKind::rnn_tanh:
      break;
  }
  return {tanh(gi + gh), Tensor()};
}

}  // namespace hetero::detail
