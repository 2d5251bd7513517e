// SPDX-License-Identifier: Apache-2.0
// Recurrent layers on the cpu: nn::LSTM and nn::GRU forward, and forward + backward, at D2L
// chapter 9's character-level language model (vocabulary 28, hidden 256, 35 steps, batch
// 32) and at a smaller hidden size where the per-step overhead weighs more, hetero vs
// libtorch (at::lstm / at::gru, the ATen calls of torch.nn.LSTM / GRU). Rows
// "rnn/NAME/hetero" and "rnn/NAME/libtorch"; bench/alone.py times each framework in its own
// process.
#include <string>

#include "common.hpp"

namespace {

using namespace hetero;

// One layer of `mode` ("lstm" or "gru") over x [steps, batch, input] from zero states:
// forward alone (no gradient recorded), or forward and the backward of output.sum() (the
// gradients of every parameter); as bench::torch::rnn_step.
std::function<void()> rnn_step(const std::string& mode, std::int64_t steps, std::int64_t batch,
                               std::int64_t input, std::int64_t hidden, bool backward) {
  std::shared_ptr<nn::RNNBase> layer;
  if (mode == "lstm")
    layer = std::make_shared<nn::LSTM>(input, hidden);
  else
    layer = std::make_shared<nn::GRU>(input, hidden);
  const Tensor x = rand({steps, batch, input});
  return [layer, x, backward] {
    if (!backward) {
      NoGradGuard no_grad;
      const Tensor y = layer->forward(x);
      synchronize(Device::cpu());
      return;
    }
    layer->forward(x).sum().backward();
    for (Tensor& p : layer->parameters()) p.mutable_grad() = Tensor();
    synchronize(Device::cpu());
  };
}

struct Shape {
  const char* name;
  const char* mode;
  std::int64_t steps, batch, input, hidden;
};
constexpr Shape kShapes[] = {
    {"lstm_d2l_28x256", "lstm", 35, 32, 28, 256},
    {"gru_d2l_28x256", "gru", 35, 32, 28, 256},
    {"lstm_64x128", "lstm", 50, 32, 64, 128},
};

void register_all() {
  for (const Shape& s : kShapes)
    for (const bool backward : {false, true}) {
      const std::string name = std::string("rnn/") + s.name + (backward ? "_fwd_bwd" : "_fwd");
      bench::add(name + "/hetero", rnn_step(s.mode, s.steps, s.batch, s.input, s.hidden, backward));
      if (auto peer =
              HETERO_TORCH_PEER(rnn_step(s.mode, s.steps, s.batch, s.input, s.hidden, backward)))
        bench::add_peer(name + "/libtorch", std::move(peer));
    }
}

}  // namespace

int main(int argc, char** argv) {
#if HETERO_BENCH_HAVE_TORCH
  bench::torch::set_threads(bench::threads());
#endif
  register_all();
  hetero::synchronize(hetero::Device::cpu());
  return bench::run(argc, argv);
}
