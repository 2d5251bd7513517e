// SPDX-License-Identifier: Apache-2.0
// RNN, LSTM and GRU as torch 1.13's CPU path (aten/src/ATen/native/RNN.cpp): per layer and
// direction, the input projection x W_ih^T + b_ih, then per step the hidden projection
// h W_hh^T + b_hh and the cell (rnn_step.hpp, shared with the cells), whose expressions follow
// torch's (GRU's h' = (h - n) * z + n, LSTM's c' = f * c + i * g) so that the rounding is
// alike; an LSTM with proj_size then projects h' by W_hr (torch's LSTMP).
#include <hetero/nn/rnn.hpp>

#include <algorithm>
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
#include "packed_layout.hpp"
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

namespace {

/// What the layers compute over a batch laid out as steps: output data [rows, D * out] and
/// the final states per layer and direction, [B, out] and [B, H].
struct LayersResult {
  Tensor output;
  std::vector<Tensor> h_n, c_n;
};

/// The stacked layers over `data` [rows, input_size] whose step t is batch_sizes[t] rows
/// from offsets[t] (non-increasing sizes, longest sequences first; a padded batch has every
/// size N), from h_all [layers * D, B, out] (c_all [layers * D, B, H] for LSTM). A row that
/// leaves the batch keeps its state as the sequence's last; the reverse direction starts
/// each sequence at its last step from h_all, as torch's packed layers (RNN.cpp's
/// FullBidirectionalLayer over PackedSequence).
LayersResult run_layers(RNNBase& m, detail::CellKind kind, const Tensor& data,
                        const std::vector<std::int64_t>& batch_sizes,
                        const std::vector<std::int64_t>& offsets, const Tensor& h_all,
                        const Tensor& c_all) {
  const RNNOptions& options = m.options();
  const bool lstm = kind == detail::CellKind::lstm;
  const std::int64_t H = m.hidden_size(), P = options.proj_size;
  const std::int64_t D = options.bidirectional ? 2 : 1, layers = options.num_layers;
  const std::int64_t T = static_cast<std::int64_t>(batch_sizes.size());
  const auto rows = [&](const Tensor& t, std::int64_t from, std::int64_t n) {
    return from == 0 && n == t.size(0) ? t : t.narrow(0, from, n);
  };
  LayersResult r;
  Tensor layer_in = data;
  for (std::int64_t layer = 0; layer < layers; ++layer) {
    std::vector<Tensor> directions;
    for (std::int64_t d = 0; d < D; ++d) {
      // The parameters looked up once per layer and direction, not per step.
      const std::string s = suffix(layer, d == 1);
      const Tensor w_hh_t = m.parameter("weight_hh" + s).t();
      const bool bias = options.bias;
      const Tensor b_hh = bias ? m.parameter("bias_hh" + s) : Tensor();
      const Tensor w_hr_t = P > 0 ? m.parameter("weight_hr" + s).t() : Tensor();
      Tensor xw = matmul(layer_in, m.parameter("weight_ih" + s).t());  // [rows, gates * H]
      if (bias) xw = xw + m.parameter("bias_ih" + s);
      const Tensor h_init = h_all[layer * D + d], c_init = lstm ? c_all[layer * D + d] : Tensor();
      // The forward direction starts with every row and sets rows aside as their sequences
      // end; the reverse one starts with the longest sequences and adds rows as it reaches
      // the last step of shorter ones.
      Tensor h = d == 0 ? h_init : rows(h_init, 0, batch_sizes.back());
      Tensor c = !lstm ? Tensor() : d == 0 ? c_init : rows(c_init, 0, batch_sizes.back());
      std::vector<Tensor> ended_h, ended_c;
      std::vector<Tensor> outs(static_cast<std::size_t>(T));
      for (std::int64_t step = 0; step < T; ++step) {
        const std::int64_t t = d == 0 ? step : T - 1 - step;
        const std::int64_t n = batch_sizes[static_cast<std::size_t>(t)], have = h.size(0);
        if (n < have) {  // forward: rows n.. ended at step t - 1
          ended_h.push_back(h.narrow(0, n, have - n));
          h = h.narrow(0, 0, n);
          if (lstm) {
            ended_c.push_back(c.narrow(0, n, have - n));
            c = c.narrow(0, 0, n);
          }
        } else if (n > have) {  // reverse: rows have.. start at step t
          h = cat({h, h_init.narrow(0, have, n - have)}, 0);
          if (lstm) c = cat({c, c_init.narrow(0, have, n - have)}, 0);
        }
        Tensor gh = matmul(h, w_hh_t);
        if (bias) gh = gh + b_hh;
        detail::CellState next =
            detail::cell_step(kind, rows(xw, offsets[static_cast<std::size_t>(t)], n), gh, h, c, H);
        h = P > 0 ? matmul(next.h, w_hr_t) : std::move(next.h);
        c = std::move(next.c);
        outs[static_cast<std::size_t>(t)] = h;
      }
      directions.push_back(T == 1 ? outs[0] : cat(outs, 0));
      // The rows that ended first are the last ones: the final rows, then the ended
      // pieces from the latest to the earliest.
      ended_h.push_back(h);
      std::reverse(ended_h.begin(), ended_h.end());
      r.h_n.push_back(ended_h.size() == 1 ? ended_h[0] : cat(ended_h, 0));
      if (lstm) {
        ended_c.push_back(c);
        std::reverse(ended_c.begin(), ended_c.end());
        r.c_n.push_back(ended_c.size() == 1 ? ended_c[0] : cat(ended_c, 0));
      }
    }
    layer_in = D == 2 ? cat(directions, 1) : directions[0];
    if (options.dropout > 0 && m.is_training() && layer + 1 < layers)
      layer_in = dropout(layer_in, options.dropout, true);
  }
  r.output = layer_in;
  return r;
}

/// The checks both passes share: the input's features (torch's message) and, for LSTM, h0
/// and c0 given together or not at all.
void check_features(const std::string& who, std::int64_t features, std::int64_t input_size,
                    bool lstm, const Tensor& h0, const Tensor& c0) {
  if (features != input_size)
    throw ShapeError(who + ": input.size(-1) must be equal to input_size. Expected " +
                     std::to_string(input_size) + ", got " + std::to_string(features) +
                     " (as torch)");
  if (lstm && h0.defined() != c0.defined())
    throw ValueError(who + ": h0 and c0 are given together (torch's hx tuple) or not at all");
}

/// The initial state `s` checked against [layers * D, N, features] (2-D `s` for unbatched
/// input, `input_dim` 2), or zeros of that shape like `like` when undefined.
Tensor initial_state(const std::string& who, const Tensor& s, const char* what,
                     std::int64_t input_dim, const Shape& state, const Tensor& like) {
  const bool batched = input_dim == 3;
  if (!s.defined()) return zeros(state, TensorOptions(like.device()).dtype(like.dtype()));
  if (s.dim() != input_dim)
    throw ShapeError(who + ": for " + (batched ? "batched 3-D" : "unbatched 2-D") + " input, " +
                     what + " should also be " + std::to_string(input_dim) + "-D but got " +
                     std::to_string(s.dim()) + "-D tensor (as torch)");
  Tensor t = batched ? s : s.unsqueeze(1);
  if (t.shape() != state)
    throw ShapeError(who + ": expected " + what + " of shape " +
                     detail::shape_str(batched ? state : Shape{state[0], state[2]}) + ", got " +
                     detail::shape_str(s.shape()) + " (as torch)");
  return t;
}

}  // namespace

Tensor RNNBase::forward(const Tensor& input) { return run(input, {}, {}).output; }

RNNOutput RNNBase::run(const Tensor& input, const Tensor& h0, const Tensor& c0) {
  const std::string who(name_);
  const bool lstm = gates_ == 4;
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
  check_features(who, x.size(2), input_size_, lstm, h0, c0);
  const std::int64_t P = options_.proj_size;
  // with proj_size, h is projected
  const Tensor h_all = initial_state(who, h0, "h0", input.dim(), {layers * D, N, P > 0 ? P : H}, x);
  const Tensor c_all =
      lstm ? initial_state(who, c0, "c0", input.dim(), {layers * D, N, H}, x) : Tensor();
  // Every step has the whole batch: N rows at t * N.
  std::vector<std::int64_t> batch_sizes(static_cast<std::size_t>(L), N), offsets;
  for (std::int64_t t = 0; t < L; ++t) offsets.push_back(t * N);
  const LayersResult pass =
      run_layers(*this, detail::cell_kind(gates_, options_.nonlinearity),
                 x.reshape({L * N, input_size_}), batch_sizes, offsets, h_all, c_all);
  const Tensor out = pass.output.reshape({L, N, pass.output.size(1)});
  const auto state_layout = [&](const std::vector<Tensor>& s) {
    const Tensor t = stack(s, 0);
    return batched ? t : t.squeeze(1);
  };
  RNNOutput r{!batched               ? out.squeeze(1)
              : options_.batch_first ? out.transpose(0, 1)
                                     : out,
              state_layout(pass.h_n), Tensor()};
  if (lstm) r.c_n = state_layout(pass.c_n);
  return r;
}

PackedRNNOutput RNNBase::run(const PackedSequence& input, const Tensor& h0, const Tensor& c0) {
  const std::string who(name_);
  const bool lstm = gates_ == 4;
  const detail::PackedLayout layout = detail::packed_layout(input, who);
  const Tensor& data = input.data;
  if (data.dim() != 2)
    throw ShapeError(who + ": input must have 2 dimensions, got " + std::to_string(data.dim()) +
                     " (as torch; a PackedSequence's data is [rows, input_size])");
  check_features(who, data.size(1), input_size_, lstm, h0, c0);
  const std::int64_t B = layout.batch_sizes.front(), H = hidden_size_, P = options_.proj_size;
  const std::int64_t states = options_.num_layers * (options_.bidirectional ? 2 : 1);
  const Tensor& sorted = input.sorted_indices;
  // The states in packed column order (torch's permute_hidden).
  const auto start = [&](const Tensor& s, const char* what, std::int64_t features) {
    const Tensor t = initial_state(who, s, what, 3, {states, B, features}, data);
    return s.defined() && sorted.defined() ? index_select(t, 1, sorted) : t;
  };
  const Tensor h_all = start(h0, "h0", P > 0 ? P : H);
  const Tensor c_all = lstm ? start(c0, "c0", H) : Tensor();
  const LayersResult pass = run_layers(*this, detail::cell_kind(gates_, options_.nonlinearity),
                                       data, layout.batch_sizes, layout.offsets, h_all, c_all);
  const auto original_order = [&](const std::vector<Tensor>& s) {
    const Tensor t = stack(s, 0);
    return sorted.defined() ? index_select(t, 1, input.unsorted_indices) : t;
  };
  PackedRNNOutput r{{pass.output, input.batch_sizes, input.sorted_indices, input.unsorted_indices},
                    original_order(pass.h_n),
                    Tensor()};
  if (lstm) r.c_n = original_order(pass.c_n);
  return r;
}

RNN::RNN(std::int64_t input_size, std::int64_t hidden_size, RNNOptions options,
         TensorOptions tensor_options)
    : RNNBase("RNN", 1, input_size, hidden_size, std::move(options), tensor_options) {}

RNNOutput RNN::forward(const Tensor& input, const Tensor& h0) { return run(input, h0, {}); }

PackedRNNOutput RNN::forward(const PackedSequence& input, const Tensor& h0) {
  return run(input, h0, {});
}

LSTM::LSTM(std::int64_t input_size, std::int64_t hidden_size, RNNOptions options,
           TensorOptions tensor_options)
    : RNNBase("LSTM", 4, input_size, hidden_size, std::move(options), tensor_options) {}

RNNOutput LSTM::forward(const Tensor& input, const Tensor& h0, const Tensor& c0) {
  return run(input, h0, c0);
}

PackedRNNOutput LSTM::forward(const PackedSequence& input, const Tensor& h0, const Tensor& c0) {
  return run(input, h0, c0);
}

GRU::GRU(std::int64_t input_size, std::int64_t hidden_size, RNNOptions options,
         TensorOptions tensor_options)
    : RNNBase("GRU", 3, input_size, hidden_size, std::move(options), tensor_options) {}

RNNOutput GRU::forward(const Tensor& input, const Tensor& h0) { return run(input, h0, {}); }

PackedRNNOutput GRU::forward(const PackedSequence& input, const Tensor& h0) {
  return run(input, h0, {});
}

}  // namespace hetero::nn
