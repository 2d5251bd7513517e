// SPDX-License-Identifier: Apache-2.0
// The libtorch twin of examples/char_transformer (issue #46 item 5): the same decoder-only
// character model (token + position embeddings, causal pre-norm Transformer layers with
// GELU written out from torch.nn.TransformerEncoderLayer(norm_first=True), whose C++ API in
// libtorch 1.13 has no norm_first; a final LayerNorm and a linear head), the same AdamW
// groups, warm-up + cosine LambdaLR, clip_grad_norm_ 1.0, text, split, window sampling
// procedure and validation windows' procedure, in its own process. The random draws
// (initial weights, windows) come from torch's generator, so they are the same procedure,
// not the same numbers, as hetero's. With --twin-files DIR (written by `char_transformer
// --twin-files DIR` with the same options) it starts from hetero's initial weights and takes
// every training and validation window from hetero, so that the two runs differ only by
// rounding. It prints the example's lines.
//
//   char_transformer_libtorch [--steps 3000] [--batch-size 32] [--context 64] [--d-model 128]
//                             [--heads 4] [--layers 3] [--lr 3e-3] [--warmup 100]
//                             [--eval-every 250] [--eval-batches 20] [--threads 2] [--data DIR]
//                             [--twin-files DIR]
#include <torch/torch.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <numbers>

#include "twin_files.hpp"

namespace {

// Every file of `dir` without an extension, in name order, concatenated (as the example).
std::string read_text(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file() && !e.is_symlink() && !e.path().has_extension())
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::string text;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    text.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return text;
}

// torch.nn.TransformerEncoderLayer(d, heads, 4 d, dropout 0, "gelu", batch_first, norm_first).
struct BlockImpl : torch::nn::Module {
  BlockImpl(std::int64_t d, std::int64_t heads)
      : attn(register_module("self_attn", torch::nn::MultiheadAttention(
                                              torch::nn::MultiheadAttentionOptions(d, heads)))),
        linear1(register_module("linear1", torch::nn::Linear(d, 4 * d))),
        linear2(register_module("linear2", torch::nn::Linear(4 * d, d))),
        norm1(register_module("norm1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})))),
        norm2(register_module("norm2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})))) {}
  // x [B, T, d], mask [T, T] (-inf above the diagonal).
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask) {
    const torch::Tensor h = norm1(x).transpose(0, 1);  // [T, B, d]: the C++ API is seq-first
    const torch::Tensor a = std::get<0>(attn->forward(h, h, h, /*key_padding_mask=*/torch::Tensor(),
                                                      /*need_weights=*/false, mask));
    const torch::Tensor y = x + a.transpose(0, 1);
    return y + linear2(torch::gelu(linear1(norm2(y))));
  }
  torch::nn::MultiheadAttention attn;
  torch::nn::Linear linear1, linear2;
  torch::nn::LayerNorm norm1, norm2;
};
TORCH_MODULE(Block);

struct CharTransformerImpl : torch::nn::Module {
  CharTransformerImpl(std::int64_t vocab, std::int64_t context, std::int64_t d, std::int64_t heads,
                      std::int64_t layers)
      : tokens(register_module("tokens", torch::nn::Embedding(vocab, d))),
        positions(register_module("positions", torch::nn::Embedding(context, d))),
        norm(register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})))),
        head(register_module("head", torch::nn::Linear(d, vocab))) {
    for (std::int64_t i = 0; i < layers; ++i)
      blocks.push_back(register_module("block" + std::to_string(i), Block(d, heads)));
  }
  torch::Tensor forward(const torch::Tensor& idx) {
    const std::int64_t t = idx.size(1);
    torch::Tensor x = tokens(idx) + positions(torch::arange(t, torch::kInt64));
    const torch::Tensor mask =
        torch::triu(torch::full({t, t}, -std::numeric_limits<float>::infinity()), 1);
    for (auto& b : blocks) x = b->forward(x, mask);
    return head(norm(x));
  }
  torch::nn::Embedding tokens, positions;
  std::vector<Block> blocks;
  torch::nn::LayerNorm norm;
  torch::nn::Linear head;
};
TORCH_MODULE(CharTransformer);

// The hetero example's name of this model's tensor `name`: "block<i>." is hetero's
// "blocks.<i>." (a ModuleList); the rest is named alike.
std::string hetero_name(const std::string& name) {
  if (!name.starts_with("block")) return name;
  const std::size_t dot = name.find('.');
  return "blocks." + name.substr(5, dot - 5) + name.substr(dot);
}

// B windows of t + 1 characters at offsets drawn as the example draws them, or, when `given`
// is defined (int64 [B], from hetero's twin files), at those offsets.
std::pair<torch::Tensor, torch::Tensor> batch(const torch::Tensor& text, std::int64_t b,
                                              std::int64_t t, torch::Generator& g,
                                              const torch::Tensor& given = {}) {
  const std::int64_t n = text.size(0) - t - 1;
  const torch::Tensor starts =
      given.defined()
          ? given.reshape({b, 1})
          : (torch::rand({b, 1}, g, torch::kFloat64) * static_cast<double>(n)).to(torch::kInt64);
  const torch::Tensor at = starts + torch::arange(t, torch::kInt64).unsqueeze(0);
  return {text.index_select(0, at.reshape({-1})).reshape({b, t}),
          text.index_select(0, (at + 1).reshape({-1})).reshape({b, t})};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"libtorch twin of examples/char_transformer"};
  std::string data = "/usr/share/games/fortunes";
  std::int64_t steps = 3000, batch_size = 32, context = 64, d_model = 128, heads = 4, layers = 3,
               warmup = 100, eval_every = 250, eval_batches = 20;
  double lr = 3e-3;
  int threads = 2;
  std::uint64_t seed = 0;
  app.add_option("--data", data);
  app.add_option("--steps", steps);
  app.add_option("--batch-size", batch_size);
  app.add_option("--context", context);
  app.add_option("--d-model", d_model);
  app.add_option("--heads", heads);
  app.add_option("--layers", layers);
  app.add_option("--lr", lr);
  app.add_option("--warmup", warmup);
  app.add_option("--eval-every", eval_every);
  app.add_option("--eval-batches", eval_batches);
  app.add_option("--threads", threads);
  app.add_option("--seed", seed);
  std::string twin_files;
  app.add_option("--twin-files", twin_files,
                 "start from the hetero example's weights and windows in DIR");
  CLI11_PARSE(app, argc, argv);
  try {
    torch::set_num_threads(threads);
    const std::string text = read_text(data);
    std::vector<std::int64_t> code(256, -1);
    std::int64_t vocab = 0;
    for (unsigned char ch : text) code[ch] = 0;
    for (auto& c : code)
      if (c == 0) c = vocab++;
    std::vector<std::int64_t> encoded(text.size());
    for (std::size_t i = 0; i < text.size(); ++i)
      encoded[i] = code[static_cast<unsigned char>(text[i])];
    const auto split = static_cast<std::int64_t>(encoded.size() * 9 / 10);
    const torch::Tensor all =
        torch::from_blob(encoded.data(), {static_cast<std::int64_t>(encoded.size())}, torch::kInt64)
            .clone();
    const torch::Tensor train = all.narrow(0, 0, split),
                        val = all.narrow(0, split, all.size(0) - split);
    std::printf("libtorch %s: %zu characters, %lld distinct, %d threads\n", TORCH_VERSION,
                text.size(), static_cast<long long>(vocab), threads);

    torch::manual_seed(seed);
    CharTransformer net(vocab, context, d_model, heads, layers);
    torch::Tensor train_starts, val_starts;  // [steps, B] and [eval batches, B] from hetero
    if (!twin_files.empty()) {
      twins::load_state(*net, twins::read_safetensors(twin_files + "/init.safetensors"),
                        hetero_name);
      auto order = twins::read_safetensors(twin_files + "/order.safetensors");
      train_starts = order.at("train");
      val_starts = order.at("val");
      if (train_starts.size(0) < steps || train_starts.size(1) != batch_size ||
          val_starts.size(0) < eval_batches || val_starts.size(1) != batch_size)
        throw std::runtime_error(twin_files +
                                 "/order.safetensors was written for other --steps, "
                                 "--batch-size or --eval-batches");
    }
    const auto given = [](const torch::Tensor& starts, std::int64_t i) {
      return starts.defined() ? starts[i] : torch::Tensor();
    };
    std::vector<torch::Tensor> decay, no_decay;
    for (const auto& p : net->named_parameters())
      (p.value().dim() >= 2 && p.key().find("norm") == std::string::npos ? decay : no_decay)
          .push_back(p.value());
    torch::optim::AdamW opt(
        {torch::optim::OptimizerParamGroup(
             decay, std::make_unique<torch::optim::AdamWOptions>(
                        torch::optim::AdamWOptions(lr).betas({0.9, 0.99}).weight_decay(0.1))),
         torch::optim::OptimizerParamGroup(
             no_decay, std::make_unique<torch::optim::AdamWOptions>(
                           torch::optim::AdamWOptions(lr).betas({0.9, 0.99}).weight_decay(0)))},
        torch::optim::AdamWOptions(lr).betas({0.9, 0.99}).weight_decay(0.1));
    const double w = static_cast<double>(warmup), total = static_cast<double>(steps);
    const auto factor = [w, total](std::int64_t s) {
      const double t = static_cast<double>(s);
      if (t < w) return (t + 1) / (w + 1);
      return 0.1 + 0.9 * 0.5 *
                       (1 + std::cos(std::numbers::pi *
                                     std::min(1.0, (t - w) / std::max(1.0, total - w))));
    };
    torch::Generator data_gen = at::detail::createCPUGenerator(seed + 1);
    const auto validation_loss = [&] {
      torch::NoGradGuard no_grad;
      net->eval();
      torch::Generator fixed = at::detail::createCPUGenerator(12345);
      double sum = 0;
      for (std::int64_t i = 0; i < eval_batches; ++i) {
        const auto [x, y] = batch(val, batch_size, context, fixed, given(val_starts, i));
        sum += torch::nn::functional::cross_entropy(net->forward(x).reshape({-1, vocab}),
                                                    y.reshape({-1}))
                   .item<double>();
      }
      net->train();
      return sum / static_cast<double>(eval_batches);
    };
    const auto start = std::chrono::steady_clock::now();
    for (std::int64_t step = 0; step < steps; ++step) {
      for (auto& g : opt.param_groups())
        static_cast<torch::optim::AdamWOptions&>(g.options()).lr(lr * factor(step));
      const auto [x, y] = batch(train, batch_size, context, data_gen, given(train_starts, step));
      const torch::Tensor loss = torch::nn::functional::cross_entropy(
          net->forward(x).reshape({-1, vocab}), y.reshape({-1}));
      opt.zero_grad();
      loss.backward();
      torch::nn::utils::clip_grad_norm_(net->parameters(), 1.0);
      opt.step();
      if ((step + 1) % eval_every == 0 || step + 1 == steps) {
        const double v = validation_loss();
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("step %5lld  train loss %.4f  val loss %.4f nats/char  lr %.2e  %.1f s\n",
                    static_cast<long long>(step + 1), loss.item<double>(), v, lr * factor(step + 1),
                    seconds);
        std::fflush(stdout);
      }
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "char_transformer_libtorch: " << e.what() << "\n";
    return 2;
  }
}
