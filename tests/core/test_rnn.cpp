// SPDX-License-Identifier: Apache-2.0
// nn::RNN, LSTM (with proj_size), GRU and their cells: torch's parameter names, shapes and
// initialisation, its errors, the layouts (batch_first, unbatched), dropout between layers,
// the cells' steps against the layers', and a D2L chapter 9 style
// sequence model that learns. Values and gradients against torch: tests/torch_layers (kind
// "rnn", "rnn_cell").
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <hetero/hetero.hpp>

#include "same_tensor.hpp"

using namespace hetero;
using hetero::test::expect_same;

TEST(RNN, ParametersHaveTorchsNamesShapesAndInitialisation) {
  manual_seed(1);
  nn::LSTM lstm(3, 4, {.num_layers = 2, .bidirectional = true});
  // torch: [n for n, _ in nn.LSTM(3, 4, num_layers=2, bidirectional=True).named_parameters()]
  std::vector<std::string> names;
  for (const auto& [name, p] : lstm.named_parameters()) {
    names.push_back(name);
    EXPECT_EQ(p.dtype(), DType::float32);
    // U(-1/sqrt(hidden), 1/sqrt(hidden)) = U(-0.5, 0.5)
    EXPECT_LE(abs(p).max().item<float>(), 0.5f) << name;
  }
  const std::vector<std::string> want{
      "weight_ih_l0",         "weight_hh_l0",         "bias_ih_l0",         "bias_hh_l0",
      "weight_ih_l0_reverse", "weight_hh_l0_reverse", "bias_ih_l0_reverse", "bias_hh_l0_reverse",
      "weight_ih_l1",         "weight_hh_l1",         "bias_ih_l1",         "bias_hh_l1",
      "weight_ih_l1_reverse", "weight_hh_l1_reverse", "bias_ih_l1_reverse", "bias_hh_l1_reverse"};
  EXPECT_EQ(names, want);
  EXPECT_EQ(lstm.parameter("weight_ih_l0").shape(), (Shape{16, 3}));
  EXPECT_EQ(lstm.parameter("weight_ih_l1").shape(), (Shape{16, 8}));  // 2 directions x 4
  EXPECT_EQ(lstm.parameter("weight_hh_l1_reverse").shape(), (Shape{16, 4}));
  nn::GRU gru(5, 2, {.bias = false});
  EXPECT_EQ(gru.named_parameters().size(), 2u);
  EXPECT_EQ(gru.parameter("weight_hh_l0").shape(), (Shape{6, 2}));
  nn::RNN rnn(5, 2, {}, TensorOptions().dtype(DType::float64));
  EXPECT_EQ(rnn.parameter("weight_ih_l0").dtype(), DType::float64);
}

TEST(RNN, OutputsHaveTorchsShapes) {
  manual_seed(2);
  nn::LSTM lstm(3, 4, {.num_layers = 2, .bidirectional = true});
  const nn::RNNOutput r = lstm.forward(randn({5, 2, 3}), {}, {});
  EXPECT_EQ(r.output.shape(), (Shape{5, 2, 8}));
  EXPECT_EQ(r.h_n.shape(), (Shape{4, 2, 4}));
  EXPECT_EQ(r.c_n.shape(), (Shape{4, 2, 4}));
  // The last layer's forward final state is the output's last step, its reverse final
  // state the output's first step (torch's layout).
  expect_same(r.h_n[2], r.output[4].narrow(1, 0, 4));
  expect_same(r.h_n[3], r.output[0].narrow(1, 4, 4));
  nn::GRU gru(3, 4);
  const nn::RNNOutput g = gru.forward(randn({5, 3}), {});  // unbatched
  EXPECT_EQ(g.output.shape(), (Shape{5, 4}));
  EXPECT_EQ(g.h_n.shape(), (Shape{1, 4}));
  EXPECT_FALSE(g.c_n.defined());
  EXPECT_EQ(gru.forward(randn({5, 2, 3})).shape(), (Shape{5, 2, 4}));  // Module::forward
}

TEST(RNN, BatchFirstAndUnbatchedInputsAgreeWithTheDefaultLayout) {
  manual_seed(3);
  nn::GRU seq_first(3, 4, {.num_layers = 2});
  nn::GRU batch_first(3, 4, {.num_layers = 2, .batch_first = true});
  {
    NoGradGuard no_grad;
    for (const auto& [name, p] : seq_first.named_parameters()) {
      Tensor target = batch_first.parameter(name);
      target.copy_(p);
    }
  }
  const Tensor x = randn({6, 2, 3}), h0 = randn({2, 2, 4});
  const nn::RNNOutput a = seq_first.forward(x, h0);
  const nn::RNNOutput b = batch_first.forward(x.transpose(0, 1), h0);
  expect_same(b.output, a.output.transpose(0, 1));
  expect_same(b.h_n, a.h_n);
  // An unbatched sequence is the batch of one without its batch dimension.
  const nn::RNNOutput one =
      seq_first.forward(x.narrow(1, 0, 1).squeeze(1), h0.narrow(1, 0, 1).squeeze(1));
  expect_same(one.output, a.output.narrow(1, 0, 1).squeeze(1));
  expect_same(one.h_n, a.h_n.narrow(1, 0, 1).squeeze(1));
}

TEST(RNN, RefusesWhatTorchRefuses) {
  nn::LSTM lstm(3, 4, {.num_layers = 2});
  // torch: "Expected sequence length to be larger than 0 in RNN"
  EXPECT_THROW(lstm.forward(zeros({0, 2, 3})), ShapeError);
  // "input.size(-1) must be equal to input_size. Expected 3, got 2"
  EXPECT_THROW(lstm.forward(zeros({5, 2, 2})), ShapeError);
  // "Expected hidden[0] size (2, 2, 4), got [1, 2, 4]"
  EXPECT_THROW(lstm.forward(zeros({5, 2, 3}), zeros({1, 2, 4}), zeros({2, 2, 4})), ShapeError);
  // "For batched 3-D input, hx should also be 3-D but got 2-D tensor"
  EXPECT_THROW(lstm.forward(zeros({5, 2, 3}), zeros({2, 4}), zeros({2, 4})), ShapeError);
  // "input must have 3 dimensions, got 5" (hetero names 2 or 3)
  EXPECT_THROW(lstm.forward(zeros({2, 3, 3, 3})), ShapeError);
  EXPECT_THROW(lstm.forward(zeros({5, 2, 3}), zeros({2, 2, 4}), Tensor()), ValueError);
  // "mat1 and mat2 must have the same dtype"
  EXPECT_THROW(lstm.forward(zeros({5, 2, 3}, TensorOptions().dtype(DType::float64))), DTypeError);
  EXPECT_THROW(lstm.forward(Tensor()), ValueError);
  // "Unknown nonlinearity 'gelu'"; LSTM and GRU have fixed gates.
  EXPECT_THROW(nn::RNN(3, 4, {.nonlinearity = "gelu"}), ValueError);
  EXPECT_THROW(nn::LSTM(3, 4, {.nonlinearity = "relu"}), ValueError);
  EXPECT_NO_THROW(nn::RNN(3, 4, {.nonlinearity = "relu"}));
  EXPECT_THROW(nn::GRU(3, 0), ValueError);
  EXPECT_THROW(nn::GRU(3, 4, {.num_layers = 0}), ValueError);
  EXPECT_THROW(nn::GRU(3, 4, {.dropout = 1.5}), ValueError);
}

TEST(RNN, DropoutActsBetweenLayersInTrainingOnly) {
  manual_seed(4);
  nn::GRU plain(3, 4, {.num_layers = 2});
  nn::GRU dropped(3, 4, {.num_layers = 2, .dropout = 0.5});
  {
    NoGradGuard no_grad;
    for (const auto& [name, p] : plain.named_parameters()) {
      Tensor target = dropped.parameter(name);
      target.copy_(p);
    }
  }
  const Tensor x = randn({6, 2, 3});
  dropped.eval();
  expect_same(dropped.forward(x), plain.forward(x));
  dropped.train();
  EXPECT_FALSE(equal(dropped.forward(x), plain.forward(x)));
  // One layer: nothing follows it, so no dropout (torch warns and drops nothing).
  nn::GRU single(3, 4, {.dropout = 0.5});
  const Tensor a = single.forward(x), b = single.forward(x);
  expect_same(a, b);
}

TEST(RNN, GRULearnsTheNextValueOfASineWave) {
  // D2L 9.1's setting, small: predict x_{t+1} from x_1..x_t of sin(0.1 t) with noise-free
  // data; a GRU with a linear head under Adam brings the mean squared error down 20-fold.
  manual_seed(5);
  const std::int64_t T = 40, batch = 8;
  const Tensor t = arange(0.0, static_cast<double>(T + 1), 1.0);
  std::vector<Tensor> seqs;
  for (std::int64_t b = 0; b < batch; ++b) seqs.push_back(sin((t + 5.0f * b) * 0.1f));
  const Tensor data = stack(seqs, 1).unsqueeze(2);  // [T + 1, batch, 1]
  const Tensor inputs = data.narrow(0, 0, T), targets = data.narrow(0, 1, T);
  auto gru = std::make_shared<nn::GRU>(1, 16);
  auto head = std::make_shared<nn::Linear>(16, 1);
  std::vector<Tensor> params = gru->parameters();
  for (const Tensor& p : head->parameters()) params.push_back(p);
  optim::Adam adam(params, {.lr = 0.02});
  const auto loss_now = [&] { return nn::MSELoss()(head->forward(gru->forward(inputs)), targets); };
  const float first = loss_now().item<float>();
  for (int step = 0; step < 150; ++step) {
    adam.zero_grad();
    Tensor loss = loss_now();
    loss.backward();
    adam.step();
  }
  const float last = loss_now().item<float>();
  EXPECT_LT(last, first / 20) << "first " << first << ", last " << last;
}

TEST(RNN, LSTMProjectionHasTorchsParametersShapesAndErrors) {
  manual_seed(6);
  nn::LSTM lstm(3, 4, {.num_layers = 2, .bidirectional = true, .proj_size = 2});
  // torch: nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2)
  std::vector<std::string> names;
  for (const auto& [name, p] : lstm.named_parameters()) names.push_back(name);
  EXPECT_EQ(names.size(), 20u);
  EXPECT_EQ(names[4], "weight_hr_l0");
  EXPECT_EQ(names[9], "weight_hr_l0_reverse");
  EXPECT_EQ(lstm.parameter("weight_hh_l0").shape(), (Shape{16, 2}));
  EXPECT_EQ(lstm.parameter("weight_hr_l1").shape(), (Shape{2, 4}));
  EXPECT_EQ(lstm.parameter("weight_ih_l1").shape(), (Shape{16, 4}));  // 2 directions x 2
  const nn::RNNOutput r = lstm.forward(randn({5, 2, 3}), {}, {});
  EXPECT_EQ(r.output.shape(), (Shape{5, 2, 4}));
  EXPECT_EQ(r.h_n.shape(), (Shape{4, 2, 2}));
  EXPECT_EQ(r.c_n.shape(), (Shape{4, 2, 4}));
  // h is the projection of o * tanh(c): the last step's h_n is W_hr applied to it.
  nn::LSTM one(3, 4, {.proj_size = 3});
  const Tensor x = randn({1, 2, 3});
  const nn::RNNOutput s = one.forward(x, {}, {});
  const Tensor g = matmul(x[0], one.parameter("weight_ih_l0").t()) + one.parameter("bias_ih_l0") +
                   one.parameter("bias_hh_l0");
  const Tensor o = sigmoid(g.narrow(1, 12, 4));
  EXPECT_TRUE(allclose(s.h_n[0], matmul(o * tanh(s.c_n[0]), one.parameter("weight_hr_l0").t()),
                       1e-5, 1e-6));
  // "Expected hidden[0] size (4, 2, 2), got [4, 2, 4]"
  EXPECT_THROW(lstm.forward(randn({5, 2, 3}), zeros({4, 2, 4}), zeros({4, 2, 4})), ShapeError);
  EXPECT_NO_THROW(lstm.forward(randn({5, 2, 3}), zeros({4, 2, 2}), zeros({4, 2, 4})));
  // "proj_size argument is only supported for LSTM, not RNN or GRU", "proj_size has to be
  // smaller than hidden_size", "proj_size should be a positive integer or zero ..."
  EXPECT_THROW(nn::GRU(3, 4, {.proj_size = 2}), ValueError);
  EXPECT_THROW(nn::RNN(3, 4, {.proj_size = 2}), ValueError);
  EXPECT_THROW(nn::LSTM(3, 4, {.proj_size = 4}), ValueError);
  EXPECT_THROW(nn::LSTM(3, 4, {.proj_size = -1}), ValueError);
}

TEST(RNN, CellsStepAsTheLayersDo) {
  // A cell run over a sequence with a layer's parameters gives the layer's output and final
  // states (the same step code; the layer projects the whole input at once, so the GEMMs
  // may round differently: float64 and a tight tolerance).
  manual_seed(7);
  const TensorOptions f64 = TensorOptions().dtype(DType::float64);
  const Tensor x = randn({4, 3, 2}, f64), h0 = randn({1, 3, 5}, f64), c0 = randn({1, 3, 5}, f64);
  const auto copy_from_layer = [](nn::Module& cell, nn::Module& layer) {
    NoGradGuard no_grad;
    for (const auto& [name, p] : cell.named_parameters()) {
      Tensor target = p;
      target.copy_(layer.parameter(name + "_l0"));
    }
  };
  {
    nn::LSTM layer(2, 5, {}, f64);
    nn::LSTMCell cell(2, 5, {}, f64);
    EXPECT_EQ(cell.named_parameters().size(), 4u);
    EXPECT_EQ(cell.parameter("weight_ih").shape(), (Shape{20, 2}));
    EXPECT_EQ(cell.parameter("weight_hh").shape(), (Shape{20, 5}));
    copy_from_layer(cell, layer);
    const nn::RNNOutput want = layer.forward(x, h0, c0);
    Tensor h = h0[0], c = c0[0];
    for (std::int64_t t = 0; t < 4; ++t) {
      const nn::LSTMCellOutput next = cell.forward(x[t], h, c);
      h = next.h;
      c = next.c;
      EXPECT_TRUE(allclose(h, want.output[t], 1e-12, 1e-12)) << "step " << t;
    }
    EXPECT_TRUE(allclose(c, want.c_n[0], 1e-12, 1e-12));
  }
  {
    nn::GRU layer(2, 5, {.bias = false}, f64);
    nn::GRUCell cell(2, 5, {.bias = false}, f64);
    EXPECT_EQ(cell.named_parameters().size(), 2u);
    copy_from_layer(cell, layer);
    const Tensor want = layer.forward(x, h0).output;
    Tensor h = h0[0];
    for (std::int64_t t = 0; t < 4; ++t) h = cell.forward(x[t], h);
    EXPECT_TRUE(allclose(h, want[3], 1e-12, 1e-12));
  }
  {
    nn::RNN layer(2, 5, {.nonlinearity = "relu"}, f64);
    nn::RNNCell cell(2, 5, {.nonlinearity = "relu"}, f64);
    copy_from_layer(cell, layer);
    const Tensor want = layer.forward(x);  // zeros as h0
    Tensor h;
    for (std::int64_t t = 0; t < 4; ++t) h = cell.forward(x[t], h);
    EXPECT_TRUE(allclose(h, want[3], 1e-12, 1e-12));
    // Unbatched: [input_size] in, [hidden] out; forward(input) starts from zeros.
    const Tensor one = cell.forward(x[0][1]);
    EXPECT_EQ(one.shape(), (Shape{5}));
    expect_same(one, cell.forward(x[0].narrow(0, 1, 1)).squeeze(0));
  }
}

TEST(RNN, CellsRefuseWhatTorchRefuses) {
  nn::LSTMCell lstm(3, 4);
  // "LSTMCell: Expected input to be 1-D or 2-D but received 3-D tensor"
  EXPECT_THROW(lstm.forward(zeros({2, 2, 3})), ShapeError);
  // "input has inconsistent input_size: got 5 expected 3"
  EXPECT_THROW(lstm.forward(zeros({2, 5})), ShapeError);
  // "Input batch size 2 doesn't match hidden0 batch size 3"
  EXPECT_THROW(lstm.forward(zeros({2, 3}), zeros({3, 4}), zeros({3, 4})), ShapeError);
  // "hidden1 has inconsistent hidden_size: got 5, expected 4"
  EXPECT_THROW(lstm.forward(zeros({2, 3}), zeros({2, 4}), zeros({2, 5})), ShapeError);
  EXPECT_THROW(lstm.forward(zeros({3}), zeros({2, 4}), zeros({2, 4})), ShapeError);
  EXPECT_THROW(lstm.forward(zeros({2, 3}), zeros({2, 4}), Tensor()), ValueError);
  EXPECT_THROW(lstm.forward(Tensor()), ValueError);
  // "mat1 and mat2 must have the same dtype"
  EXPECT_THROW(lstm.forward(zeros({2, 3}, TensorOptions().dtype(DType::float64))), DTypeError);
  // An empty batch is allowed, as torch's.
  EXPECT_EQ(lstm.forward(zeros({0, 3})).shape(), (Shape{0, 4}));
  EXPECT_THROW(nn::RNNCell(3, 4, {.nonlinearity = "gelu"}), ValueError);
  EXPECT_THROW(nn::GRUCell(3, 4, {.nonlinearity = "relu"}), ValueError);
  EXPECT_THROW(nn::GRUCell(-1, 4), ValueError);
  EXPECT_THROW(nn::RNNCell(3, -2), ValueError);
  EXPECT_THROW(nn::LSTM(3, 0),
               ValueError);  // torch: "proj_size has to be smaller than hidden_size"
  nn::GRUCell gru(3, 4);
  EXPECT_THROW(gru.forward(zeros({2, 3}), zeros({2, 5})), ShapeError);
}

// torch 1.13's cells take zero sizes (its layers take no input features): empty weights, the
// state from the biases alone, or an [N, 0] state. hetero refused them with "must be
// positive".
TEST(RNN, CellsAndLayersTakeZeroSizesAsTorch) {
  nn::LSTMCell no_inputs(0, 3);
  EXPECT_EQ(no_inputs.named_parameters().at("weight_ih").shape(), (Shape{12, 0}));
  const nn::LSTMCellOutput out = no_inputs.forward(zeros({2, 0}), Tensor(), Tensor());
  ASSERT_EQ(out.h.shape(), (Shape{2, 3}));
  // From a zero state the gates are the biases: c = sigmoid(i) tanh(g), h = sigmoid(o) tanh(c).
  const Tensor b =
      (no_inputs.named_parameters().at("bias_ih") + no_inputs.named_parameters().at("bias_hh"))
          .detach();
  const Tensor c = sigmoid(b.narrow(0, 0, 3)) * tanh(b.narrow(0, 6, 3));
  const Tensor h = sigmoid(b.narrow(0, 9, 3)) * tanh(c);
  EXPECT_TRUE(allclose(out.h[1], h, 1e-6, 1e-6));
  out.h.sum().backward();
  EXPECT_EQ(no_inputs.named_parameters().at("weight_ih").grad().shape(), (Shape{12, 0}));
  EXPECT_EQ(no_inputs.named_parameters().at("weight_hh").grad().sum().item<float>(), 0.0f);

  nn::GRUCell no_state(3, 0);
  EXPECT_EQ(no_state.forward(randn({2, 3}), Tensor()).shape(), (Shape{2, 0}));
  EXPECT_EQ(nn::RNNCell(0, 0).forward(zeros({4, 0}), Tensor()).shape(), (Shape{4, 0}));
  nn::GRU layer(0, 2);
  EXPECT_EQ(layer.forward(zeros({5, 1, 0}), Tensor()).output.shape(), (Shape{5, 1, 2}));
}
