// SPDX-License-Identifier: Apache-2.0
// BatchNorm1d/2d, GroupNorm, scaled_dot_product_attention, MultiheadAttention,
// TransformerEncoderLayer, TransformerDecoderLayer, TransformerEncoder/Decoder, Transformer, RNN /
// LSTM (proj_size too) / GRU, their cells and the losses against PyTorch: make_cases.py (run by
// run_torch_cases.sh with Debian's python3-torch) writes random cases with torch's parameters,
// inputs, outputs and the gradients of sum(out * cot); each is rebuilt here on HETERO_TEST_DEVICE
// (default cpu) with torch's parameters loaded by name, and compared: |got - want| <= tol (1 +
// |want|), tol 1e-10 float64, 1e-4 float32 (a normalisation divides by a small standard deviation,
// which magnifies float32 rounding), gradients 10 tol; BatchNorm's running statistics and step
// count too.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <hetero/hetero.hpp>

#include "../torch_cases.hpp"

using namespace hetero;
using hetero::torch_cases::worst;

namespace {

// Copies torch's parameters into the module's, by name.
void load(nn::Module& m, const std::function<Tensor(const std::string&)>& get) {
  NoGradGuard no_grad;
  for (const auto& [name, p] : m.named_parameters()) {
    const Tensor want = get("param." + name);
    ASSERT_TRUE(want.defined()) << "torch has no parameter " << name;
    Tensor target = p;
    target.copy_(want);
  }
}

// The case's nn::RNN, LSTM or GRU (kinds "rnn" and "packed").
std::shared_ptr<nn::RNNBase> make_recurrent(const nlohmann::json& a, const TensorOptions& o) {
  const std::string mode = a["mode"];
  const nn::RNNOptions ro{.num_layers = a["layers"],
                          .bias = a["bias"],
                          .batch_first = a["batch_first"],
                          .bidirectional = a["bidirectional"],
                          .nonlinearity = mode == "rnn_relu" ? "relu" : "tanh",
                          .proj_size = a["proj"]};
  const std::int64_t input_size = a["input_size"], hidden = a["hidden"];
  if (mode == "lstm") return std::make_shared<nn::LSTM>(input_size, hidden, ro, o);
  if (mode == "gru") return std::make_shared<nn::GRU>(input_size, hidden, ro, o);
  return std::make_shared<nn::RNN>(input_size, hidden, ro, o);
}

// Kind "packed": x [T, B, F] ([B, T, F] batch_first) packed by the case's lengths (through
// pack_sequence of each column's first lengths[b] steps, or pack_padded_sequence), run, and
// padded again; returns the padded output, h_n (and c_n). Checks the lengths that
// pad_packed_sequence returns.
std::vector<Tensor> run_packed(const nlohmann::json& a, nn::RNNBase& rnn, const Tensor& x,
                               const Tensor& h0, const Tensor& c0) {
  const std::vector<std::int64_t> lengths = a["lengths"];
  const bool batch_first = a["batch_first"], sorted = a["enforce_sorted"];
  nn::PackedSequence packed;
  if (a["pack_sequence"]) {
    std::vector<Tensor> sequences;
    for (std::size_t b = 0; b < lengths.size(); ++b) {
      const auto column = static_cast<std::int64_t>(b);
      sequences.push_back((batch_first ? x : x.transpose(0, 1))[column].narrow(0, 0, lengths[b]));
    }
    packed = nn::pack_sequence(sequences, sorted);
  } else {
    packed = nn::pack_padded_sequence(x, lengths, batch_first, sorted);
  }
  nn::PackedRNNOutput r;
  if (auto* lstm = dynamic_cast<nn::LSTM*>(&rnn))
    r = lstm->forward(packed, h0, c0);
  else if (auto* gru = dynamic_cast<nn::GRU*>(&rnn))
    r = gru->forward(packed, h0);
  else
    r = dynamic_cast<nn::RNN&>(rnn).forward(packed, h0);
  const std::optional<std::int64_t> total =
      a["total_length"].is_null()
          ? std::nullopt
          : std::optional<std::int64_t>(a["total_length"].get<std::int64_t>());
  const nn::PaddedSequence padded =
      nn::pad_packed_sequence(r.output, batch_first, a["padding_value"].get<double>(), total);
  EXPECT_EQ(padded.lengths.to_vector<std::int64_t>(), lengths);
  std::vector<Tensor> out{padded.padded, r.h_n};
  if (r.c_n.defined()) out.push_back(r.c_n);
  return out;
}

// The Transformer layers' options of a case (kinds "encoder" and "decoder"), dropout 0.
nn::TransformerEncoderLayerOptions layer_options(const nlohmann::json& a) {
  return {.dim_feedforward = a["ff"],
          .dropout = 0.0,
          .activation = a["activation"],
          .batch_first = a["batch_first"],
          .norm_first = a["norm_first"]};
}

// A kind "transformer" case's mask `name` (see attention_mask in make_cases.py) and whether
// hetero builds it from is_causal instead ("causal": torch 1.13 got the explicit mask).
struct CaseMask {
  Tensor mask;
  bool is_causal = false;
};
CaseMask case_mask(const nlohmann::json& a, const std::string& name,
                   const std::function<Tensor(const std::string&)>& get, const TensorOptions& o) {
  const std::string kind = a[name];
  if (kind == "causal") return {Tensor(), true};
  if (kind != "square") return {kind == "none" ? Tensor() : get(name), false};
  // hetero's own generate_square_subsequent_mask, checked against torch's.
  const Tensor mask = nn::Transformer::generate_square_subsequent_mask(get(name).size(0), o);
  EXPECT_TRUE(equal(mask, get(name).to(o.device()))) << name;
  return {mask, false};
}

// Kind "transformer": a TransformerEncoder or TransformerDecoder stack, or an nn::Transformer,
// with torch's parameters; returns its output and sets `module`.
Tensor transformer_case(const nlohmann::json& a, const TensorOptions& o,
                        const std::function<Tensor(const std::string&)>& get,
                        const std::function<Tensor(std::size_t)>& leaf,
                        std::shared_ptr<nn::Module>& module) {
  const std::int64_t E = a["embed"], H = a["heads"];
  const std::string variant = a["variant"];
  const nn::TransformerEncoderLayerOptions lo = layer_options(a);
  const auto norm = [&] {
    return a["norm"] ? std::make_shared<nn::LayerNorm>(Shape{E}, 1e-5, true, o) : nullptr;
  };
  const auto pad = [&](const char* name) { return get(name); };  // undefined where absent
  const CaseMask src_mask = case_mask(a, "src_mask", get, o),
                 tgt_mask = case_mask(a, "tgt_mask", get, o),
                 memory_mask = case_mask(a, "memory_mask", get, o);
  if (variant == "encoder_stack") {
    auto stack = std::make_shared<nn::TransformerEncoder>(nn::TransformerEncoderLayer(E, H, lo, o),
                                                          a["encoder_layers"], norm());
    module = stack;
    load(*module, get);
    return stack->forward(leaf(0), src_mask.mask, pad("src_padding"), src_mask.is_causal);
  }
  if (variant == "decoder_stack") {
    auto stack = std::make_shared<nn::TransformerDecoder>(nn::TransformerDecoderLayer(E, H, lo, o),
                                                          a["decoder_layers"], norm());
    module = stack;
    load(*module, get);
    const Tensor tgt = leaf(0), memory = leaf(1);
    return stack->forward(tgt, memory, tgt_mask.mask, memory_mask.mask, pad("tgt_padding"),
                          pad("memory_padding"), tgt_mask.is_causal);
  }
  auto model = std::make_shared<nn::Transformer>(
      nn::TransformerOptions{.d_model = E,
                             .nhead = H,
                             .num_encoder_layers = a["encoder_layers"],
                             .num_decoder_layers = a["decoder_layers"],
                             .layer = lo},
      o);
  module = model;
  load(*module, get);
  const Tensor src = leaf(0), tgt = leaf(1);
  return model->forward(src, tgt, src_mask.mask, tgt_mask.mask, memory_mask.mask,
                        pad("src_padding"), pad("tgt_padding"), pad("memory_padding"),
                        src_mask.is_causal, tgt_mask.is_causal);
}

}  // namespace

namespace {

// F.embedding_bag (make_cases.py's embedding_bag_case): in0 the weight, in1 the indices,
// then the offsets and the per-sample weights where the case has them.
Tensor embedding_bag_case(const nlohmann::json& a, const std::vector<Tensor>& in,
                          std::vector<std::pair<std::string, Tensor>>& leaves) {
  const Tensor w = in[0].detach().clone().requires_grad_();
  leaves.emplace_back("in0", w);
  std::size_t next = 2;
  const Tensor offsets = a["offsets"] ? in[next++] : Tensor();
  Tensor psw;
  if (a["psw"]) {
    psw = in[next].detach().clone().requires_grad_();
    leaves.emplace_back("in" + std::to_string(next), psw);
  }
  const std::string m = a["mode"];
  const nn::EmbeddingBagMode mode = m == "sum"    ? nn::EmbeddingBagMode::sum
                                    : m == "mean" ? nn::EmbeddingBagMode::mean
                                                  : nn::EmbeddingBagMode::max;
  const std::optional<std::int64_t> pad =
      a["padding_idx"].is_null()
          ? std::nullopt
          : std::optional<std::int64_t>(a["padding_idx"].get<std::int64_t>());
  return nn::embedding_bag(in[1], w, offsets, mode, psw, a["include_last"], pad);
}

// vector_norm, normalize, pairwise_distance and the margin, ranking and likelihood losses
// (make_cases.py's distance_loss_case): the inputs a["grad"] lists become leaves.
Tensor distance_loss_case(const nlohmann::json& a, const std::vector<Tensor>& in,
                          std::vector<std::pair<std::string, Tensor>>& leaves) {
  std::vector<Tensor> x = in;
  for (const std::size_t k : a["grad"].get<std::vector<std::size_t>>()) {
    x[k] = in[k].detach().clone().requires_grad_();
    leaves.emplace_back("in" + std::to_string(k), x[k]);
  }
  // vector_norm of order 0: torch records no gradient (hetero's is zeros); a graph for the
  // harness's backward all the same
  if (leaves.empty()) x[0] = in[0].detach().clone().requires_grad_();
  const std::string red = a["reduction"];
  const nn::Reduction r = red == "none"  ? nn::Reduction::none
                          : red == "sum" ? nn::Reduction::sum
                                         : nn::Reduction::mean;
  const std::string op = a["loss"];
  const auto weight = [&](std::size_t k) { return a["weighted"] ? in[k] : Tensor(); };
  if (op == "vector_norm")
    return vector_norm(x[0], std::stod(a["ord"].get<std::string>()),
                       a["dims"].get<std::vector<std::int64_t>>(), a["keepdim"]);
  if (op == "normalize") return normalize(x[0], a["p"], a["dim"], a["eps"]);
  if (op == "pairwise")
    return nn::PairwiseDistance(std::stod(a["p"].get<std::string>()), a["eps"], a["keepdim"])(x[0],
                                                                                              x[1]);
  if (op == "hinge") return nn::HingeEmbeddingLoss(a["margin"], r)(x[0], x[1]);
  if (op == "soft_margin") return nn::SoftMarginLoss(r)(x[0], x[1]);
  if (op == "multilabel_soft_margin") return nn::MultiLabelSoftMarginLoss(weight(2), r)(x[0], x[1]);
  if (op == "multilabel_margin") return nn::MultiLabelMarginLoss(r)(x[0], x[1]);
  if (op == "multi_margin")
    return nn::MultiMarginLoss(
        {.p = a["p"], .margin = a["margin"], .weight = weight(2), .reduction = r})(x[0], x[1]);
  if (op == "margin_ranking") return nn::MarginRankingLoss(a["margin"], r)(x[0], x[1], x[2]);
  if (op == "cosine_embedding") return nn::CosineEmbeddingLoss(a["margin"], r)(x[0], x[1], x[2]);
  if (op == "triplet")
    return nn::TripletMarginLoss(
        {.margin = a["margin"], .p = a["p"], .eps = a["eps"], .swap = a["swap"], .reduction = r})(
        x[0], x[1], x[2]);
  if (op == "poisson")
    return nn::PoissonNLLLoss(
        {.log_input = a["log_input"], .full = a["full"], .eps = a["eps"], .reduction = r})(x[0],
                                                                                           x[1]);
  return nn::GaussianNLLLoss({.full = a["full"], .eps = a["eps"], .reduction = r})(x[0], x[1],
                                                                                   x[2]);
}

}  // namespace

TEST(TorchLayers, EveryCaseMatchesTorch) {
  const torch_cases::Cases cases = torch_cases::load_cases();
  const Device& dev = cases.device;
  const nn::NamedTensors& file = cases.tensors;
  int checked = 0;
  for (const auto& [key, text] : cases.meta) {
    const nlohmann::json a = nlohmann::json::parse(text);
    SCOPED_TRACE("case " + key + ": " + text);
    const auto get = [&](const std::string& what) {
      const std::string name = key + "." + what;
      return file.contains(name) ? file.at(name) : Tensor();
    };
    const double tol = a["dtype"] == "float64" ? 1e-10 : 1e-4;
    const TensorOptions o =
        TensorOptions(dev).dtype(a["dtype"] == "float64" ? DType::float64 : DType::float32);
    const std::string kind = a["kind"];
    std::vector<Tensor> in;
    for (int k = 0; k < a["inputs"].get<int>(); ++k) in.push_back(get("in" + std::to_string(k)));
    std::vector<Tensor> out;
    std::shared_ptr<nn::Module> module;
    std::vector<std::pair<std::string, Tensor>> leaves;  // what takes a gradient
    Tensor y;                                            // the output the gradient is of
    // Input k as a new leaf that takes a gradient, named "in<k>".
    const auto leaf = [&](std::size_t k) {
      const Tensor x = in[k].detach().clone().requires_grad_();
      leaves.emplace_back("in" + std::to_string(k), x);
      return x;
    };
    // Kinds "batchnorm" and "instancenorm": torch's parameters into `module`, a["steps"]
    // training steps (the last one's input takes the gradient), then one in eval mode; the
    // buffers as torch's.
    const auto steps_then_eval = [&] {
      load(*module, get);
      const int steps = a["steps"];
      for (int s = 0; s < steps; ++s) {
        Tensor x = in[static_cast<std::size_t>(s)].detach().clone().requires_grad_();
        if (s == steps - 1) leaves.emplace_back("in" + std::to_string(s), x);
        out.push_back(module->forward(x));
      }
      y = out.back();
      module->eval();
      out.push_back(module->forward(in.back()));
      for (const auto& [name, b] : module->named_buffers())
        EXPECT_LE(worst(b, get("buffer." + name)), tol) << "buffer " << name;
      EXPECT_EQ(module->named_buffers().size(), a["track"] ? 3u : 0u);
    };
    if (kind == "batchnorm") {
      const std::optional<double> momentum =
          a["momentum"].is_null() ? std::nullopt
                                  : std::optional<double>(a["momentum"].get<double>());
      if (a["two_d"])
        module = std::make_shared<nn::BatchNorm2d>(a["features"].get<std::int64_t>(), 1e-5,
                                                   momentum, a["affine"], a["track"], o);
      else
        module = std::make_shared<nn::BatchNorm1d>(a["features"].get<std::int64_t>(), 1e-5,
                                                   momentum, a["affine"], a["track"], o);
      steps_then_eval();
    } else if (kind == "instancenorm") {
      const std::int64_t c = a["features"];
      const double m = a["momentum"];
      const int dims = a["dims"];
      if (dims == 1)
        module = std::make_shared<nn::InstanceNorm1d>(c, 1e-5, m, a["affine"], a["track"], o);
      else if (dims == 2)
        module = std::make_shared<nn::InstanceNorm2d>(c, 1e-5, m, a["affine"], a["track"], o);
      else
        module = std::make_shared<nn::InstanceNorm3d>(c, 1e-5, m, a["affine"], a["track"], o);
      steps_then_eval();
    } else if (kind == "module") {
      const std::string variant = a["variant"];
      const Tensor x = leaf(0);
      if (variant == "prelu") {
        module = std::make_shared<nn::PReLU>(a["num_parameters"].get<std::int64_t>(), 0.25, o);
        load(*module, get);
        y = module->forward(x);
      } else if (variant == "pixel_shuffle") {
        y = nn::PixelShuffle(a["factor"].get<std::int64_t>())(x);
      } else if (variant == "pixel_unshuffle") {
        y = nn::PixelUnshuffle(a["factor"].get<std::int64_t>())(x);
      } else if (variant == "unfold" || variant == "fold") {
        const auto size2 = [&](const char* key) {
          return Size2(a[key][0].get<std::int64_t>(), a[key][1].get<std::int64_t>());
        };
        if (variant == "unfold")
          y = nn::Unfold(size2("kernel"), size2("dilation"), size2("padding"), size2("stride"))(x);
        else
          y = nn::Fold(size2("output_size"), size2("kernel"), size2("dilation"), size2("padding"),
                       size2("stride"))(x);
      } else if (variant == "unflatten") {
        y = nn::Unflatten(a["dim"], a["sizes"].get<std::vector<std::int64_t>>())(x);
      } else {
        y = nn::CosineSimilarity(a["dim"], a["eps"])(x, leaf(1));
      }
      out.push_back(y);
    } else if (kind == "groupnorm") {
      module = std::make_shared<nn::GroupNorm>(
          a["groups"].get<std::int64_t>(), a["channels"].get<std::int64_t>(), 1e-5, a["affine"], o);
      load(*module, get);
      Tensor x = in[0].detach().clone().requires_grad_();
      leaves.emplace_back("in0", x);
      y = module->forward(x);
      out.push_back(y);
    } else if (kind == "rnn" || kind == "packed") {
      const std::shared_ptr<nn::RNNBase> rnn = make_recurrent(a, o);
      module = rnn;
      load(*module, get);
      std::vector<Tensor> x;  // the input, then h0 (and c0)
      for (std::size_t k = 0; k < in.size(); ++k) {
        x.push_back(in[k].detach().clone().requires_grad_());
        leaves.emplace_back("in" + std::to_string(k), x.back());
      }
      const Tensor h0 = x.size() > 1 ? x[1] : Tensor(), c0 = x.size() > 2 ? x[2] : Tensor();
      if (kind == "packed") {
        out = run_packed(a, *rnn, x[0], h0, c0);
      } else {
        nn::RNNOutput r;
        if (auto* lstm = dynamic_cast<nn::LSTM*>(rnn.get()))
          r = lstm->forward(x[0], h0, c0);
        else if (auto* gru = dynamic_cast<nn::GRU*>(rnn.get()))
          r = gru->forward(x[0], h0);
        else
          r = dynamic_cast<nn::RNN&>(*rnn).forward(x[0], h0);
        out = {r.output, r.h_n};
        if (a["mode"] == "lstm") out.push_back(r.c_n);
      }
      y = out[0];
    } else if (kind == "rnn_cell") {
      const std::string mode = a["mode"];
      const nn::RNNCellOptions co{.bias = a["bias"],
                                  .nonlinearity = mode == "rnn_relu" ? "relu" : "tanh"};
      const std::int64_t input_size = a["input_size"], hidden = a["hidden"];
      std::shared_ptr<nn::RNNCellBase> cell;
      if (mode == "lstm")
        cell = std::make_shared<nn::LSTMCell>(input_size, hidden, co, o);
      else if (mode == "gru")
        cell = std::make_shared<nn::GRUCell>(input_size, hidden, co, o);
      else
        cell = std::make_shared<nn::RNNCell>(input_size, hidden, co, o);
      module = cell;
      load(*module, get);
      std::vector<Tensor> x;  // the steps' inputs, then hx (and cx)
      for (std::size_t k = 0; k < in.size(); ++k) {
        x.push_back(in[k].detach().clone().requires_grad_());
        leaves.emplace_back("in" + std::to_string(k), x.back());
      }
      Tensor h = x.size() > 1 ? x[1] : Tensor(), c = x.size() > 2 ? x[2] : Tensor();
      std::vector<Tensor> hs, cs;
      for (std::int64_t t = 0; t < a["steps"].get<std::int64_t>(); ++t) {
        if (auto* lstm = dynamic_cast<nn::LSTMCell*>(cell.get())) {
          const nn::LSTMCellOutput next = lstm->forward(x[0][t], h, c);
          h = next.h;
          c = next.c;
          cs.push_back(c);
        } else if (auto* gru = dynamic_cast<nn::GRUCell*>(cell.get())) {
          h = gru->forward(x[0][t], h);
        } else {
          h = dynamic_cast<nn::RNNCell&>(*cell).forward(x[0][t], h);
        }
        hs.push_back(h);
      }
      y = stack(hs, 0);
      out = {y};
      if (mode == "lstm") out.push_back(stack(cs, 0));
    } else if (kind == "loss") {
      Tensor x = in[0].detach().clone().requires_grad_();
      leaves.emplace_back("in0", x);
      const std::string reduction = a["reduction"];
      const nn::Reduction r = reduction == "none"  ? nn::Reduction::none
                              : reduction == "sum" ? nn::Reduction::sum
                                                   : nn::Reduction::mean;
      const std::string loss = a["loss"];
      const auto weight_at = [&](std::size_t k) { return k < in.size() ? in[k] : Tensor(); };
      if (loss == "mse") {
        y = nn::MSELoss(r)(x, in[1]);
      } else if (loss == "l1") {
        y = nn::L1Loss(r)(x, in[1]);
      } else if (loss == "smooth_l1") {
        y = nn::SmoothL1Loss(r, a["beta"])(x, in[1]);
      } else if (loss == "huber") {
        y = nn::HuberLoss(r, a["delta"])(x, in[1]);
      } else if (loss == "bce") {
        y = nn::BCELoss(a["weighted"] ? in[2] : Tensor(), r)(x, in[1]);
      } else if (loss == "bce_logits") {
        const Tensor w = a["weighted"] ? in[2] : Tensor();
        const Tensor pw = a["pos_weighted"] ? weight_at(a["weighted"] ? 3 : 2) : Tensor();
        y = nn::BCEWithLogitsLoss({.weight = w, .reduction = r, .pos_weight = pw})(x, in[1]);
      } else if (loss == "kl_div") {
        const nn::KLDivReduction kr = reduction == "none"        ? nn::KLDivReduction::none
                                      : reduction == "sum"       ? nn::KLDivReduction::sum
                                      : reduction == "batchmean" ? nn::KLDivReduction::batchmean
                                                                 : nn::KLDivReduction::mean;
        y = nn::KLDivLoss({.reduction = kr, .log_target = a["log_target"]})(x, in[1]);
      } else if (loss == "nll") {
        y = nn::NLLLoss({.weight = a["weighted"] ? in[2] : Tensor(),
                         .ignore_index = a["ignore_index"],
                         .reduction = r})(x, in[1]);
      } else {
        nn::CrossEntropyLoss ce(
            nn::CrossEntropyLossOptions{.weight = a["weighted"] ? in[2] : Tensor(),
                                        .ignore_index = a["ignore_index"],
                                        .reduction = r,
                                        .label_smoothing = a["label_smoothing"]});
        y = ce(x, in[1]);
      }
      out.push_back(y);
    } else if (kind == "distance_loss") {
      y = distance_loss_case(a, in, leaves);
      out.push_back(y);
    } else if (kind == "embedding_bag") {
      y = embedding_bag_case(a, in, leaves);
      out.push_back(y);
    } else if (kind == "ctc") {
      const Tensor x = in[0].detach().clone().requires_grad_();
      leaves.emplace_back("in0", x);
      const std::string red = a["reduction"];
      y = nn::ctc_loss(log_softmax(x, -1), in[1], in[2], in[3],
                       {.blank = a["blank"],
                        .reduction = red == "none"  ? nn::Reduction::none
                                     : red == "sum" ? nn::Reduction::sum
                                                    : nn::Reduction::mean,
                        .zero_infinity = a["zero_infinity"]});
      out.push_back(y);
    } else if (kind == "transformer") {
      y = transformer_case(a, o, get, leaf, module);
      out.push_back(y);
    } else if (kind == "sdpa") {
      std::vector<Tensor> qkv;
      for (int k = 0; k < 3; ++k) {
        qkv.push_back(in[static_cast<std::size_t>(k)].detach().clone().requires_grad_());
        leaves.emplace_back("in" + std::to_string(k), qkv.back());
      }
      const std::optional<double> scale =
          a["scale"].is_null() ? std::nullopt : std::optional<double>(a["scale"].get<double>());
      y = scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], a["mask"] ? in[3] : Tensor(), 0,
                                       a["causal"], scale);
      out.push_back(y);
    } else {
      const std::int64_t E = a["embed"], H = a["heads"];
      const std::string mask_kind = a["mask"];
      // "causal": torch 1.13 got the explicit mask; hetero builds it from is_causal.
      const Tensor mask = mask_kind == "none" || mask_kind == "causal" ? Tensor() : get("mask");
      const bool causal = mask_kind == "causal";
      const Tensor padding = a["padding"] ? get("padding") : Tensor();
      if (kind == "mha") {
        auto mha = std::make_shared<nn::MultiheadAttention>(E, H, 0.0, true, a["batch_first"], o);
        module = mha;
        load(*module, get);
        std::vector<Tensor> qkv;
        for (int k = 0; k < 3; ++k) {
          qkv.push_back(in[static_cast<std::size_t>(k)].detach().clone().requires_grad_());
          leaves.emplace_back("in" + std::to_string(k), qkv.back());
        }
        const auto r =
            mha->forward(qkv[0], qkv[1], qkv[2], padding, true, mask, a["average"], causal);
        y = r.output;
        out = {r.output, r.weights};
      } else if (kind == "decoder") {
        auto layer = std::make_shared<nn::TransformerDecoderLayer>(E, H, layer_options(a), o);
        module = layer;
        load(*module, get);
        const Tensor x = leaf(0), mem = leaf(1);
        const Tensor memory_mask = a["memory_mask"] == "none" ? Tensor() : get("memory_mask");
        const Tensor memory_padding = a["memory_padding"] ? get("memory_padding") : Tensor();
        y = layer->forward(x, mem, mask, memory_mask, padding, memory_padding, causal);
        out.push_back(y);
      } else {
        auto layer = std::make_shared<nn::TransformerEncoderLayer>(E, H, layer_options(a), o);
        module = layer;
        load(*module, get);
        const Tensor x = leaf(0);
        y = layer->forward(x, mask, padding, causal);
        out.push_back(y);
      }
    }
    ASSERT_EQ(out.size(), a["outputs"].get<std::size_t>());
    for (std::size_t k = 0; k < out.size(); ++k) {
      const Tensor want = get("out" + std::to_string(k));
      ASSERT_EQ(out[k].shape(), want.shape()) << "output " << k;
      // Within tol of torch's value, or of the float64 value where the case has one (a
      // float32 GroupNorm, whose 1 / sqrt(var + eps) magnifies torch's own rounding).
      double err = worst(out[k], want);
      if (const Tensor exact = get("exact" + std::to_string(k)); exact.defined())
        err = std::min(err, worst(out[k], exact));
      EXPECT_LE(err, tol) << "output " << k;
    }
    if (module)
      for (const auto& [name, p] : module->named_parameters())
        leaves.emplace_back("param." + name, p);
    if (a.contains("params")) {  // torch's parameters are hetero's, none missing
      EXPECT_EQ(module->named_parameters().size(), a["params"].get<std::size_t>());
    }
    (y * get("cot")).sum().backward();
    for (const auto& [name, t] : leaves) {
      const Tensor want = get("grad." + name);
      if (!want.defined()) continue;  // torch's unused (allow_unused)
      ASSERT_TRUE(t.grad().defined()) << "no gradient for " << name;
      EXPECT_LE(worst(t.grad(), want), tol * 10) << "gradient of " << name;
    }
    ++checked;
  }
  EXPECT_GT(checked, 50);
  std::printf("torch_layers: %d cases matched torch on %s\n", checked, dev.str().c_str());
}

// The stacks' layers are deep copies (copy.deepcopy in torch): equal to the given layer,
// sharing nothing with it or each other, its requires_grad and training mode kept.
TEST(TorchLayers, TransformerStacksCopyTheirLayer) {
  nn::TransformerEncoderLayer layer(4, 2, {.dim_feedforward = 8, .dropout = 0.0});
  layer.self_attn().parameter("in_proj_bias").requires_grad_(false);
  layer.eval();
  nn::TransformerEncoder stack(layer, 2, std::make_shared<nn::LayerNorm>(Shape{4}));
  ASSERT_EQ(stack.num_layers(), 2u);
  EXPECT_THROW(stack.layer(2), IndexError);
  const nn::NamedTensors original = layer.named_parameters();
  for (std::size_t i = 0; i < 2; ++i) {
    const nn::NamedTensors copy = stack.layer(i).named_parameters();
    ASSERT_EQ(copy.size(), original.size());
    for (const auto& [name, p] : original) {
      EXPECT_TRUE(equal(copy.at(name), p)) << name;
      EXPECT_NE(copy.at(name).host_data_ptr(), p.host_data_ptr()) << name;
      EXPECT_EQ(copy.at(name).requires_grad(), p.requires_grad()) << name;
    }
    EXPECT_FALSE(stack.layer(i).is_training());
  }
  {
    NoGradGuard no_grad;
    Tensor w = stack.layer(0).named_parameters().at("linear1.weight");
    w.fill_(3.0);
  }
  EXPECT_FALSE(equal(stack.layer(1).named_parameters().at("linear1.weight"),
                     stack.layer(0).named_parameters().at("linear1.weight")));
  EXPECT_TRUE(equal(layer.named_parameters().at("linear1.weight"),
                    stack.layer(1).named_parameters().at("linear1.weight")));
  // torch's names: layers.<i>.<layer's>, then the norm's.
  const nn::NamedTensors named = stack.named_parameters();
  EXPECT_EQ(named.size(), 2 * original.size() + 2);
  EXPECT_EQ(named.begin()->first, "layers.0.self_attn.in_proj_weight");
  EXPECT_TRUE(named.contains("layers.1.norm2.bias"));
  EXPECT_EQ((named.end() - 1)->first, "norm.bias");
  // Zero layers: the input back (through the norm where there is one).
  const Tensor x = randn({3, 2, 4});
  EXPECT_TRUE(equal(nn::TransformerEncoder(layer, 0).forward(x), x));
  EXPECT_THROW(nn::TransformerEncoder(layer, -1), ValueError);
  nn::TransformerDecoder decoder(nn::TransformerDecoderLayer(4, 2, {.dim_feedforward = 8}), 2);
  EXPECT_EQ(decoder.named_parameters().size(), 36u);
  EXPECT_EQ(decoder.norm(), nullptr);
  EXPECT_THROW(decoder.forward(x), ValueError);
  EXPECT_THROW(nn::TransformerDecoder(nn::TransformerDecoderLayer(4, 2), -2), ValueError);
}

// nn::Transformer: torch's names and order, xavier_uniform_ for every matrix, the causal
// mask, forward as its encoder then decoder, torch's checks.
TEST(TorchLayers, TransformerModel) {
  nn::Transformer model({.d_model = 4,
                         .nhead = 2,
                         .num_encoder_layers = 2,
                         .num_decoder_layers = 1,
                         .layer = {.dim_feedforward = 8, .dropout = 0.0}});
  const nn::NamedTensors named = model.named_parameters();
  EXPECT_EQ(named.size(), 2 * 12 + 2 + 18 + 2u);  // as torch.nn.Transformer(4, 2, 2, 1, 8)
  EXPECT_EQ(named.begin()->first, "encoder.layers.0.self_attn.in_proj_weight");
  EXPECT_TRUE(named.contains("encoder.norm.weight"));
  EXPECT_TRUE(named.contains("decoder.layers.0.multihead_attn.out_proj.weight"));
  EXPECT_EQ((named.end() - 1)->first, "decoder.norm.bias");
  for (const auto& [name, p] : named) {
    if (p.dim() < 2) continue;
    // xavier_uniform_: |w| <= sqrt(6 / (fan_in + fan_out)), and every copy drawn anew.
    const double bound = std::sqrt(6.0 / static_cast<double>(p.size(0) + p.size(1)));
    EXPECT_LE(max(abs(p)).item<float>(), bound + 1e-6) << name;
  }
  EXPECT_FALSE(equal(named.at("encoder.layers.0.linear1.weight"),
                     named.at("encoder.layers.1.linear1.weight")));
  EXPECT_TRUE(equal(named.at("encoder.norm.weight"), ones({4})));

  const Tensor mask = nn::Transformer::generate_square_subsequent_mask(3);
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(mask.dtype(), DType::float32);
  EXPECT_EQ(mask.to_vector<float>(), (std::vector<float>{0, -inf, -inf, 0, 0, -inf, 0, 0, 0}));
  EXPECT_EQ(nn::Transformer::generate_square_subsequent_mask(0).shape(), Shape({0, 0}));
  EXPECT_EQ(
      nn::Transformer::generate_square_subsequent_mask(2, TensorOptions().dtype(DType::float64))
          .dtype(),
      DType::float64);
  EXPECT_THROW(nn::Transformer::generate_square_subsequent_mask(-1), ValueError);
  EXPECT_THROW(
      nn::Transformer::generate_square_subsequent_mask(2, TensorOptions().dtype(DType::int64)),
      DTypeError);

  const Tensor src = randn({5, 2, 4}), tgt = randn({3, 2, 4});
  const Tensor y = model.forward(src, tgt, {}, mask);
  EXPECT_EQ(y.shape(), tgt.shape());
  const Tensor memory = model.encoder().forward(src, {});
  EXPECT_TRUE(allclose(y, model.decoder().forward(tgt, memory, mask), 0, 0));
  EXPECT_TRUE(allclose(y, model.forward(src, tgt, {}, {}, {}, {}, {}, {}, false, true), 1e-6,
                       1e-6));  // tgt_is_causal is the same mask
  EXPECT_THROW(model.forward(src), ValueError);
  EXPECT_THROW(model.forward(src, randn({3, 3, 4})), ShapeError);  // batch 2 vs 3
  EXPECT_THROW(model.forward(src, randn({3, 2, 5})), ShapeError);  // features 5 vs d_model 4
  EXPECT_THROW(model.forward(randn({5, 2, 3}), randn({3, 2, 3})), ShapeError);
  EXPECT_THROW(nn::Transformer({.d_model = 5, .nhead = 2}), ValueError);
  EXPECT_THROW(nn::Transformer({.d_model = 4, .nhead = 2, .num_encoder_layers = -1}), ValueError);
  // Custom parts are used as given (and re-initialised, as torch's _reset_parameters does).
  auto encoder = std::make_shared<nn::TransformerEncoder>(nn::TransformerEncoderLayer(4, 1), 1);
  nn::Transformer custom(
      {.d_model = 4, .nhead = 2, .num_decoder_layers = 1, .custom_encoder = encoder});
  EXPECT_EQ(&custom.encoder(), encoder.get());
  EXPECT_EQ(custom.named_parameters().size(), 12 + 18 + 2u);
}

TEST(TorchLayers, RefuseWhatTorchRefuses) {
  EXPECT_THROW(nn::BatchNorm2d(0), ValueError);
  nn::BatchNorm1d bn(3);
  EXPECT_THROW(bn.forward(ones({1, 3})), ValueError);  // one value per channel in training
  bn.eval();
  EXPECT_NO_THROW(bn.forward(ones({1, 3})));
  // Without running statistics eval uses the batch's too: torch refuses as in training.
  nn::BatchNorm1d untracked(3, 1e-5, 0.1, true, false);
  untracked.eval();
  EXPECT_THROW(untracked.forward(ones({1, 3})), ValueError);
  EXPECT_NO_THROW(untracked.forward(ones({2, 3})));
  EXPECT_THROW(bn.forward(ones({2, 4})), ShapeError);
  EXPECT_THROW(nn::BatchNorm2d(3).forward(ones({2, 3, 4})), ShapeError);  // expected 4D input
  EXPECT_THROW(nn::GroupNorm(2, 3), ValueError);
  EXPECT_THROW(nn::GroupNorm(1, 1).forward(ones({1, 1})), ValueError);
  EXPECT_THROW(nn::MultiheadAttention(5, 2), ValueError);
  nn::MultiheadAttention mha(4, 2);
  EXPECT_THROW(mha.forward(ones({3, 2, 5})), ShapeError);
  EXPECT_THROW(
      mha.forward(ones({3, 2, 4}), ones({3, 2, 4}), ones({3, 2, 4}), {}, true, ones({2, 2})),
      ShapeError);
  const Tensor q = ones({2, 3});
  EXPECT_THROW(scaled_dot_product_attention(q, q, q, ones({2, 2}), 0, true), ValueError);
  EXPECT_THROW(scaled_dot_product_attention(q, ones({2, 4}), q), ShapeError);
  // A mask neither bool nor of q's dtype (torch 2's validate_sdpa_input): it would promote.
  EXPECT_THROW(
      scaled_dot_product_attention(q, q, q, zeros({2, 2}, TensorOptions().dtype(DType::int64))),
      DTypeError);
  EXPECT_THROW(
      scaled_dot_product_attention(q, q, q, zeros({2, 2}, TensorOptions().dtype(DType::float64))),
      DTypeError);
  EXPECT_EQ(scaled_dot_product_attention(q, q, q, zeros({2, 2})).dtype(), DType::float32);
  EXPECT_THROW(nn::TransformerEncoderLayer(4, 2, {.activation = "tanh"}), ValueError);
  EXPECT_THROW(nn::TransformerDecoderLayer(4, 2, {.activation = "tanh"}), ValueError);
  {
    // torch's parameter names, in its order, and the decoder needs its memory.
    nn::TransformerDecoderLayer dec(4, 2, {.dim_feedforward = 8, .dropout = 0.0});
    std::vector<std::string> names;
    for (const auto& [name, p] : dec.named_parameters()) names.push_back(name);
    EXPECT_EQ(names,
              (std::vector<std::string>{
                  "self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight",
                  "self_attn.out_proj.bias", "multihead_attn.in_proj_weight",
                  "multihead_attn.in_proj_bias", "multihead_attn.out_proj.weight",
                  "multihead_attn.out_proj.bias", "linear1.weight", "linear1.bias",
                  "linear2.weight", "linear2.bias", "norm1.weight", "norm1.bias", "norm2.weight",
                  "norm2.bias", "norm3.weight", "norm3.bias"}));
    const Tensor tgt = randn({3, 2, 4}), memory = randn({5, 2, 4});
    EXPECT_THROW(dec.forward(tgt), ValueError);
    EXPECT_EQ(dec.forward(tgt, memory).shape(), tgt.shape());
    // tgt_is_causal is the explicit causal mask; a later position does not change earlier ones.
    const Tensor causal = triu(ones({3, 3}, TensorOptions().dtype(DType::bool_)), 1);
    const Tensor a = dec.forward(tgt, memory, causal),
                 b = dec.forward(tgt, memory, {}, {}, {}, {}, true);
    EXPECT_LE(max(abs(a - b)).item<float>(), 1e-6f);
    Tensor changed = tgt.clone();
    changed[2].copy_(randn({2, 4}));
    const Tensor c = dec.forward(changed, memory, {}, {}, {}, {}, true);
    EXPECT_LE(max(abs(a.narrow(0, 0, 2) - c.narrow(0, 0, 2))).item<float>(), 1e-6f);
    EXPECT_THROW(dec.forward(tgt, randn({5, 2, 3})), ShapeError);
  }
  nn::ModuleList list;
  list.push_back(std::make_shared<nn::Linear>(2, 3));
  list.push_back(std::make_shared<nn::BatchNorm1d>(3));
  EXPECT_EQ(list.named_parameters().size(), 4u);
  EXPECT_EQ(list.named_buffers().size(), 3u);
  EXPECT_TRUE(list.named_buffers().contains("1.running_mean"));
  EXPECT_NE(list.at<nn::Linear>(0), nullptr);
  EXPECT_THROW(list[2], IndexError);
  EXPECT_THROW(list.forward(ones({1})), NotImplementedError);
  nn::ModuleDict dict;
  dict.insert("encoder", std::make_shared<nn::Linear>(2, 2));
  EXPECT_THROW(dict.insert("encoder", std::make_shared<nn::Linear>(2, 2)), ValueError);
  EXPECT_THROW(dict["decoder"], IndexError);
  EXPECT_TRUE(dict.named_parameters().contains("encoder.weight"));
  // init: the distributions' bounds.
  Tensor w = empty({64, 32});
  nn::init::kaiming_uniform_(w, 0, "fan_in", "relu");
  const double bound = std::sqrt(2.0) * std::sqrt(3.0 / 32);
  EXPECT_LE(max(abs(w)).item<float>(), bound);
  EXPECT_GT(max(abs(w)).item<float>(), 0.9 * bound);
  EXPECT_THROW(nn::init::xavier_uniform_(w = empty({3})), ValueError);
  EXPECT_THROW(nn::init::kaiming_normal_(w = empty({2, 2}), 0, "fan_avg"), ValueError);
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain("tanh"), 5.0 / 3);
  // uniform_ and normal_ refuse the arguments torch 1.13 refuses, and leave t as it was.
  // Before: a reversed range drew from [1, 2), an infinite or NaN bound gave NaN, bounds
  // beyond the dtype gave inf, and a negative std drew all the same.
  w = full({4}, 7.0);
  EXPECT_THROW(nn::init::uniform_(w, 2, 1), ValueError);
  EXPECT_THROW(nn::init::uniform_(w, -INFINITY, INFINITY), ValueError);
  EXPECT_THROW(nn::init::uniform_(w, NAN, 1), ValueError);
  EXPECT_THROW(nn::init::uniform_(w, -3e38, 3e38), ValueError);  // to - from overflows
  EXPECT_THROW(nn::init::normal_(w, 0, -1), ValueError);
  EXPECT_THROW(nn::init::normal_(w, 0, NAN), ValueError);
  EXPECT_THROW(nn::init::xavier_uniform_(w = full({4, 4}, 7.0), -1), ValueError);  // -a > a
  EXPECT_EQ(w.to_vector<float>(), std::vector<float>(16, 7.0f));
  Tensor half = full({3}, 1.0, TensorOptions().dtype(DType::float16));
  EXPECT_THROW(nn::init::uniform_(half, -1e5, 1e5), ValueError);  // beyond 65504
  nn::init::uniform_(half, -100, 100);
  EXPECT_LE(max(abs(half)).item<float>(), 100.0f);
  nn::init::normal_(w, NAN, 1);  // a NaN mean is drawn from, as torch
  EXPECT_TRUE(std::isnan(w.to_vector<float>()[0]));
  // Zero-element tensors: a no-op, as torch's kaiming (its xavier divides by 0 there).
  Tensor none = empty({0, 5, 0});
  EXPECT_EQ(nn::init::xavier_normal_(none).numel(), 0);
  EXPECT_EQ(nn::init::kaiming_uniform_(none = empty({3, 0})).numel(), 0);
}

// torch never converts a normalisation layer's parameters to the input's dtype: float64
// input beside float32 parameters raises ("expected scalar type Double but found Float"),
// and so does float32 input beside float16 ones. 16-bit input beside float32 parameters is
// torch 2's mixed precision, and a module without parameters or statistics takes any
// floating input.
TEST(TorchLayers, NormLayersRefuseParametersOfAnotherDtypeAsTorch) {
  const TensorOptions f64 = TensorOptions().dtype(DType::float64);
  const TensorOptions f16 = TensorOptions().dtype(DType::float16);
  const Tensor x64 = randn({4, 3, 5}, f64);
  const Tensor x32 = randn({4, 3, 5});
  const Tensor x16 = x32.to(DType::float16);
  nn::LayerNorm ln({5});
  nn::GroupNorm gn(1, 3);
  nn::BatchNorm1d bn(3);
  nn::BatchNorm1d stats_only(3, 1e-5, 0.1, false, true);
  for (nn::Module* m : std::initializer_list<nn::Module*>{&ln, &gn, &bn, &stats_only}) {
    for (bool training : {true, false}) {
      m->train(training);
      EXPECT_THROW(m->forward(x64), DTypeError) << "training " << training;
      EXPECT_EQ(m->forward(x32).dtype(), DType::float32);
      EXPECT_EQ(m->forward(x16).dtype(), DType::float16);
    }
  }
  nn::LayerNorm ln64({5}, 1e-5, true, f64);
  nn::BatchNorm1d bn64(3, 1e-5, 0.1, true, true, f64);
  EXPECT_THROW(ln64.forward(x32), DTypeError);
  EXPECT_THROW(bn64.forward(x32), DTypeError);
  EXPECT_THROW(ln64.forward(x16), DTypeError);  // only float32 meets 16-bit input
  EXPECT_EQ(ln64.forward(x64).dtype(), DType::float64);
  EXPECT_EQ(bn64.forward(x64).dtype(), DType::float64);
  nn::GroupNorm gn16(1, 3, 1e-5, true, f16);
  EXPECT_THROW(gn16.forward(x32), DTypeError);
  EXPECT_THROW(gn16.forward(x16.to(DType::bfloat16)), DTypeError);
  EXPECT_EQ(gn16.forward(x16).dtype(), DType::float16);
  // Neither parameters nor running statistics: any floating input, as torch.
  nn::BatchNorm1d bare(3, 1e-5, 0.1, false, false);
  EXPECT_EQ(bare.forward(x64).dtype(), DType::float64);
  EXPECT_EQ(nn::LayerNorm({5}, 1e-5, false).forward(x64).dtype(), DType::float64);
}
