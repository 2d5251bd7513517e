// SPDX-License-Identifier: Apache-2.0
// A decoder-only Transformer language model over characters (issue #46 item 5), trained on
// the English text of Debian's `fortunes` package: token and position embeddings, causal
// pre-norm TransformerEncoderLayers with GELU, a final LayerNorm and a linear head; AdamW
// (no weight decay on biases and norms: two parameter groups) with a linear warm-up and
// cosine decay (LambdaLR), clip_grad_norm_, a held-out validation split (the last tenth of
// the text), checkpoint and bit-exact resume, then text sampled with multinomial at a
// temperature. --twin-files DIR writes what the libtorch twin (bench/twins) needs to train
// from the same start on the same windows: DIR/init.safetensors (the initial parameters) and
// DIR/order.safetensors (the windows' start offsets, int64: "train" [steps, batch] and "val"
// [eval batches, batch]). usage: char_transformer --help
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include <hetero/hetero.hpp>

#include "../cli_checks.hpp"

using namespace hetero;

namespace {

constexpr const char* kFortunes = "/usr/share/games/fortunes";

// The fortunes' text: every file of `dir` without an extension (the .dat indexes and .u8
// links are skipped), in name order, concatenated.
std::string read_text(const std::filesystem::path& dir) {
  if (!std::filesystem::is_directory(dir))
    throw std::runtime_error(dir.string() +
                             ": not found; install Debian's fortunes package (apt-get install "
                             "fortunes) or pass --data DIR holding text files");
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
  if (text.size() < 1000)
    throw std::runtime_error(dir.string() + ": less than 1000 characters of text");
  return text;
}

struct Config {
  std::int64_t vocab, context, d_model, heads, layers;
};

class CharTransformer : public nn::Module {
 public:
  explicit CharTransformer(const Config& c) : c_(c) {
    tokens_ = std::make_shared<nn::Embedding>(c.vocab, c.d_model);
    positions_ = std::make_shared<nn::Embedding>(c.context, c.d_model);
    register_module("tokens", tokens_);
    register_module("positions", positions_);
    blocks_ = std::make_shared<nn::ModuleList>();
    for (std::int64_t i = 0; i < c.layers; ++i)
      blocks_->push_back(std::make_shared<nn::TransformerEncoderLayer>(
          c.d_model, c.heads,
          nn::TransformerEncoderLayerOptions{.dim_feedforward = 4 * c.d_model,
                                             .dropout = 0.0,
                                             .activation = "gelu",
                                             .batch_first = true,
                                             .norm_first = true}));
    register_module("blocks", blocks_);
    norm_ = std::make_shared<nn::LayerNorm>(Shape{c.d_model});
    head_ = std::make_shared<nn::Linear>(c.d_model, c.vocab);
    register_module("norm", norm_);
    register_module("head", head_);
  }
  // idx [B, T] int64 -> logits [B, T, vocab].
  Tensor forward(const Tensor& idx) override {
    const std::int64_t t = idx.size(1);
    Tensor x = tokens_->forward(idx) +
               positions_->forward(arange(t, TensorOptions(idx.device()).dtype(DType::int64)));
    for (std::size_t i = 0; i < blocks_->size(); ++i)
      x = blocks_->at<nn::TransformerEncoderLayer>(i)->forward(x, {}, {}, /*is_causal=*/true);
    return head_->forward(norm_->forward(x));
  }

 private:
  Config c_;
  std::shared_ptr<nn::Embedding> tokens_, positions_;
  std::shared_ptr<nn::ModuleList> blocks_;
  std::shared_ptr<nn::LayerNorm> norm_;
  std::shared_ptr<nn::Linear> head_;
};

// The start offsets of B windows of t + 1 characters of `text` (int64 [n] on the device),
// drawn uniformly: int64 [B, 1].
Tensor window_starts(const Tensor& text, std::int64_t b, std::int64_t t, Generator& g) {
  const std::int64_t n = text.size(0) - t - 1;
  return (rand({b, 1}, g, TensorOptions(text.device()).dtype(DType::float64)) *
          static_cast<double>(n))
      .to(DType::int64);
}

// The windows of t + 1 characters at `starts` (int64 [B, 1]): inputs [B, T] and the next
// characters [B, T].
std::pair<Tensor, Tensor> windows(const Tensor& text, const Tensor& starts, std::int64_t t) {
  const std::int64_t b = starts.size(0);
  const Tensor at =
      starts + arange(t, TensorOptions(text.device()).dtype(DType::int64)).unsqueeze(0);  // [B, T]
  return {index_select(text, 0, at.reshape({-1})).reshape({b, t}),
          index_select(text, 0, (at + 1).reshape({-1})).reshape({b, t})};
}

// B random windows of context + 1 characters: inputs [B, T] and the next characters [B, T].
std::pair<Tensor, Tensor> batch(const Tensor& text, std::int64_t b, std::int64_t t, Generator& g) {
  return windows(text, window_starts(text, b, t, g), t);
}

// The libtorch twin's files in `dir` (created): the initial state_dict of `net`, and the
// windows' starts of `steps` training batches from a generator seeded `data_seed` and of
// `eval_batches` validation batches from one seeded `eval_seed`, drawn as the loop draws them.
void write_twin_files(const nn::Module& net, const std::filesystem::path& dir, const Tensor& train,
                      const Tensor& val, std::int64_t steps, std::int64_t eval_batches,
                      std::int64_t b, std::int64_t t, std::uint64_t data_seed,
                      std::uint64_t eval_seed) {
  std::filesystem::create_directories(dir);
  save(net, dir / "init.safetensors", {{"model", "char-transformer"}});
  const auto draw = [&](const Tensor& text, std::int64_t batches, std::uint64_t seed) {
    Generator g(seed);
    std::vector<Tensor> rows;
    for (std::int64_t i = 0; i < batches; ++i) rows.push_back(window_starts(text, b, t, g));
    return cat(rows, 1).t().contiguous();  // [batches, B]
  };
  nn::NamedTensors order;
  order.push_back("train", draw(train, steps, data_seed));
  order.push_back("val", draw(val, eval_batches, eval_seed));
  save(order, dir / "order.safetensors");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"A character-level Transformer language model on Debian's fortunes"};
  std::string data = kFortunes, device_name, checkpoint, twin_files;
  std::int64_t steps = 3000, batch_size = 32, context = 64, d_model = 128, heads = 4, layers = 3,
               warmup = 100, eval_every = 250, eval_batches = 20, sample_chars = 300,
               stop_after = 0;
  double lr = 3e-3, temperature = 0.8, max_val_loss = 0;
  std::uint64_t seed = 0;
  bool resume = false, quiet = false, expect_drop = false;
  app.add_option("--data", data, "directory of text files (default: Debian's fortunes)");
  app.add_option("--steps", steps, "training steps")->check(hetero::examples::positive());
  app.add_option("--batch-size", batch_size, "windows per step")
      ->check(hetero::examples::positive());
  app.add_option("--context", context, "characters per window")
      ->check(hetero::examples::positive());
  app.add_option("--d-model", d_model, "embedding width")->check(hetero::examples::positive());
  app.add_option("--heads", heads, "attention heads")->check(hetero::examples::positive());
  app.add_option("--layers", layers, "Transformer layers")->check(hetero::examples::positive());
  app.add_option("--lr", lr, "peak learning rate of AdamW");
  app.add_option("--warmup", warmup, "linear warm-up steps")
      ->check(hetero::examples::non_negative());
  app.add_option("--eval-every", eval_every, "steps between validation losses")
      ->check(hetero::examples::positive());
  app.add_option("--eval-batches", eval_batches, "validation batches")
      ->check(hetero::examples::positive());
  app.add_option("--sample", sample_chars, "characters to sample at the end")
      ->check(hetero::examples::non_negative());
  app.add_option("--temperature", temperature, "sampling temperature");
  app.add_option("--device", device_name, "device (default: try_gpu())");
  app.add_option("--seed", seed, "initialisation and data seed");
  app.add_option("--checkpoint", checkpoint,
                 "save model, optimiser, schedule and data stream here");
  app.add_option("--max-val-loss", max_val_loss, "exit 1 when the final validation loss is higher");
  app.add_flag("--resume", resume, "continue from --checkpoint");
  app.add_option("--stop-after", stop_after,
                 "stop (checkpointed) after this many steps of the --steps schedule, as if "
                 "interrupted")
      ->check(hetero::examples::non_negative());
  app.add_flag("--quiet", quiet, "no per-step progress");
  app.add_option("--twin-files", twin_files,
                 "write the initial weights and the data windows to DIR for the libtorch twin "
                 "(bench/twins/char_transformer_libtorch --twin-files DIR)");
  app.add_flag("--expect-loss-drop", expect_drop,
               "exit 1 unless the last validation loss is below the first");
  CLI11_PARSE(app, argc, argv);
  if (resume && checkpoint.empty()) {
    std::cerr << "char_transformer: --resume needs --checkpoint FILE\n";
    return 2;
  }
  if (resume && !twin_files.empty()) {
    std::cerr << "char_transformer: --twin-files describes a run from the start, not --resume\n";
    return 2;
  }
  if (d_model % heads != 0) {
    std::cerr << "char_transformer: --d-model must be divisible by --heads\n";
    return 2;
  }
  try {
    const Device dev = device_name.empty() ? try_gpu() : Device(device_name);
    const std::string text = read_text(data);
    // The vocabulary: the distinct bytes, in order.
    std::vector<std::int64_t> code(256, -1);
    std::string chars;
    for (unsigned char ch : text) code[ch] = 0;
    for (int ch = 0; ch < 256; ++ch)
      if (code[static_cast<std::size_t>(ch)] == 0) {
        code[static_cast<std::size_t>(ch)] = static_cast<std::int64_t>(chars.size());
        chars.push_back(static_cast<char>(ch));
      }
    std::vector<std::int64_t> encoded(text.size());
    for (std::size_t i = 0; i < text.size(); ++i)
      encoded[i] = code[static_cast<unsigned char>(text[i])];
    const auto split = static_cast<std::int64_t>(encoded.size() * 9 / 10);
    const Tensor all = from_vector(encoded).to(dev);
    const Tensor train = all.narrow(0, 0, split), val = all.narrow(0, split, all.size(0) - split);
    const auto vocab = static_cast<std::int64_t>(chars.size());
    std::printf("fortunes: %zu characters (%lld for training, %lld held out), %lld distinct; %s\n",
                text.size(), static_cast<long long>(split), static_cast<long long>(val.size(0)),
                static_cast<long long>(vocab), dev.str().c_str());

    manual_seed(seed);
    CharTransformer net({vocab, context, d_model, heads, layers});
    net.to(dev);
    constexpr std::uint64_t kEvalSeed = 12345;  // the same held-out windows every time
    if (!twin_files.empty())
      write_twin_files(net, twin_files, train, val, steps, eval_batches, batch_size, context,
                       seed + 1, kEvalSeed);
    // AdamW with weight decay on the matrices only (torch's usual two groups).
    std::vector<Tensor> decay, no_decay;
    for (const auto& [name, p] : net.named_parameters())
      (p.dim() >= 2 && name.find("norm") == std::string::npos ? decay : no_decay).push_back(p);
    optim::AdamW opt(
        {{decay, std::nullopt}, {no_decay, optim::AdamWOptions{.lr = lr, .weight_decay = 0}}},
        {.lr = lr, .beta2 = 0.99, .weight_decay = 0.1});
    const double w = static_cast<double>(warmup), total = static_cast<double>(steps);
    optim::LambdaLR schedule(opt, [w, total](std::int64_t s) {
      const double t = static_cast<double>(s);
      if (t < w) return (t + 1) / (w + 1);
      return 0.1 + 0.9 * 0.5 *
                       (1 + std::cos(std::numbers::pi *
                                     std::min(1.0, (t - w) / std::max(1.0, total - w))));
    });
    Generator data_gen(seed + 1);
    std::int64_t first_step = 0;
    if (resume) {
      const Metadata m = load_metadata(checkpoint);
      load(net, checkpoint, dev);
      opt.load_state_dict(load_file(checkpoint + ".optimizer", dev));
      schedule.load_state_dict(load_file(checkpoint + ".schedule"));
      data_gen.set_state({std::stoull(m.at("data_seed")), std::stoull(m.at("data_offset"))});
      first_step = std::stoll(m.at("step"));
      std::printf("resumed from %s after step %lld\n", checkpoint.c_str(),
                  static_cast<long long>(first_step));
    }
    nn::CrossEntropyLoss criterion;
    const auto validation_loss = [&] {
      NoGradGuard no_grad;
      net.eval();
      Generator fixed(kEvalSeed);
      Tensor total_loss = zeros({}, dev);
      for (std::int64_t i = 0; i < eval_batches; ++i) {
        const auto [x, y] = batch(val, batch_size, context, fixed);
        total_loss = total_loss + criterion(net(x).reshape({-1, vocab}), y.reshape({-1}));
      }
      net.train();
      return total_loss.item<double>() / static_cast<double>(eval_batches);
    };
    double first_val = -1, last_val = -1;
    const auto start = std::chrono::steady_clock::now();
    const std::int64_t last_step = stop_after > 0 ? std::min(stop_after, steps) : steps;
    for (std::int64_t step = first_step; step < last_step; ++step) {
      const auto [x, y] = batch(train, batch_size, context, data_gen);
      const Tensor loss = criterion(net(x).reshape({-1, vocab}), y.reshape({-1}));
      opt.zero_grad();
      loss.backward();
      nn::utils::clip_grad_norm_(net.parameters(), 1.0);
      opt.step();
      schedule.step();
      if ((step + 1) % eval_every == 0 || step + 1 == last_step) {
        last_val = validation_loss();
        if (first_val < 0) first_val = last_val;
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("step %5lld  train loss %.4f  val loss %.4f nats/char  lr %.2e  %.1f s\n",
                    static_cast<long long>(step + 1), loss.item<double>(), last_val, opt.lr(0),
                    seconds);
        std::fflush(stdout);
      } else if (!quiet && (step + 1) % 10 == 0) {
        std::fprintf(stderr, "\rstep %lld/%lld", static_cast<long long>(step + 1),
                     static_cast<long long>(steps));
      }
      if (!checkpoint.empty() && ((step + 1) % eval_every == 0 || step + 1 == last_step)) {
        const GeneratorState g = data_gen.get_state();
        save(opt.state_dict(), checkpoint + ".optimizer");
        save(schedule.state_dict(), checkpoint + ".schedule");
        save(net, checkpoint,
             {{"step", std::to_string(step + 1)},
              {"data_seed", std::to_string(g.seed)},
              {"data_offset", std::to_string(g.offset)}});
      }
    }
    if (sample_chars > 0) {
      NoGradGuard no_grad;
      net.eval();
      std::vector<std::int64_t> out{code[static_cast<unsigned char>('\n')]};
      Generator sampler(seed + 2);
      for (std::int64_t i = 0; i < sample_chars; ++i) {
        const auto n = static_cast<std::int64_t>(out.size());
        const std::int64_t from = std::max<std::int64_t>(0, n - context);
        const std::vector<std::int64_t> window(out.begin() + from, out.end());
        const Tensor logits = net(from_vector(window).to(dev).unsqueeze(0));
        const Tensor last = logits.narrow(1, logits.size(1) - 1, 1).reshape({vocab});
        out.push_back(
            multinomial(softmax(last / temperature, 0), 1, false, &sampler).item<std::int64_t>());
      }
      std::string sample;
      for (std::size_t i = 1; i < out.size(); ++i)
        sample.push_back(chars[static_cast<std::size_t>(out[i])]);
      std::printf("sample (temperature %.2f):\n%s\n", temperature, sample.c_str());
    }
    if (expect_drop && !(last_val < first_val)) {
      std::fprintf(stderr, "char_transformer: the validation loss did not fall (%.4f -> %.4f)\n",
                   first_val, last_val);
      return 1;
    }
    if (max_val_loss > 0 && !(last_val <= max_val_loss)) {
      std::fprintf(stderr, "char_transformer: validation loss %.4f is above %.4f\n", last_val,
                   max_val_loss);
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "char_transformer: " << e.what() << "\n";
    return 1;
  }
}
