// SPDX-License-Identifier: Apache-2.0
// SGD, Adam and AdamW against PyTorch: make_cases.py (run by run_torch_cases.sh with Debian's
// python3-torch) writes random runs (options, parameters, gradients per step, some absent)
// with torch's final parameters and state_dict; each is replayed here on HETERO_TEST_DEVICE
// (default cpu) and compared: parameters and every state entry, |got - want| <= tol (1 +
// |want|), tol 1e-5 float32 (torch's fused multiply-adds round differently), 1e-12 float64.
// Each run is also interrupted halfway, its state saved (safetensors) and loaded into a new
// optimiser over copies of the parameters: the resumed run must end bit-identical.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include <hetero/hetero.hpp>

#include "../torch_cases.hpp"

using namespace hetero;
using hetero::torch_cases::worst;

namespace {

std::unique_ptr<optim::Optimizer> make(const nlohmann::json& a, const std::vector<Tensor>& params) {
  const auto& o = a["options"];
  const std::string kind = a["optimizer"];
  if (kind == "sgd")
    return std::make_unique<optim::SGD>(params, optim::SGDOptions{.lr = o["lr"],
                                                                  .momentum = o["momentum"],
                                                                  .dampening = o["dampening"],
                                                                  .weight_decay = o["weight_decay"],
                                                                  .nesterov = o["nesterov"]});
  if (kind == "adam")
    return std::make_unique<optim::Adam>(params,
                                         optim::AdamOptions{.lr = o["lr"],
                                                            .beta1 = o["betas"][0],
                                                            .beta2 = o["betas"][1],
                                                            .eps = o["eps"],
                                                            .weight_decay = o["weight_decay"],
                                                            .amsgrad = o["amsgrad"]});
  return std::make_unique<optim::AdamW>(params,
                                        optim::AdamWOptions{.lr = o["lr"],
                                                            .beta1 = o["betas"][0],
                                                            .beta2 = o["betas"][1],
                                                            .eps = o["eps"],
                                                            .weight_decay = o["weight_decay"],
                                                            .amsgrad = o["amsgrad"]});
}

}  // namespace

TEST(TorchOptim, EveryRunMatchesTorchAndResumesBitIdentically) {
  const torch_cases::Cases cases = torch_cases::load_cases();
  const Device& dev = cases.device;
  const nn::NamedTensors& file = cases.tensors;
  const Metadata& meta = cases.meta;
  const auto state_path = std::filesystem::temp_directory_path() /
                          ("hetero_torch_optim_" + std::to_string(::getpid()) + ".safetensors");
  int checked = 0;
  for (const auto& [key, text] : meta) {
    const nlohmann::json a = nlohmann::json::parse(text);
    SCOPED_TRACE("case " + key + ": " + text);
    const int steps = a["steps"], n = a["params"];
    const auto get = [&](const std::string& what) {
      const std::string name = key + "." + what;
      return file.contains(name) ? file.at(name) : Tensor();
    };
    const auto fresh = [&](const std::vector<Tensor>& from) {
      std::vector<Tensor> ps;
      for (const Tensor& t : from) ps.push_back(t.detach().clone().requires_grad_());
      return ps;
    };
    std::vector<Tensor> initial;
    for (int k = 0; k < n; ++k) initial.push_back(get("p" + std::to_string(k)));
    // Runs steps [first, last) of the case on `params` with `opt`.
    const auto run = [&](optim::Optimizer& opt, std::vector<Tensor>& params, int first, int last) {
      for (int s = first; s < last; ++s) {
        for (int k = 0; k < n; ++k)
          params[static_cast<std::size_t>(k)].mutable_grad() =
              get("g" + std::to_string(s) + "." + std::to_string(k));
        opt.step();
      }
    };
    std::vector<Tensor> params = fresh(initial);
    auto opt = make(a, params);
    run(*opt, params, 0, steps);
    const double tol = initial[0].dtype() == DType::float64 ? 1e-12 : 1e-5;
    for (int k = 0; k < n; ++k)
      EXPECT_LE(worst(params[static_cast<std::size_t>(k)], get("out" + std::to_string(k))), tol)
          << "parameter " << k;
    // The state: the same entries as torch's, with torch's values.
    const nn::NamedTensors state = opt->state_dict();
    std::size_t torch_entries = 0;
    for (const auto& [name, t] : file)
      if (name.rfind(key + ".state.", 0) == 0) {
        ++torch_entries;
        const std::string ours = name.substr(key.size() + 1);
        ASSERT_TRUE(state.contains(ours)) << "state entry " << ours << " missing";
        EXPECT_LE(worst(state.at(ours), t), tol) << ours;
      }
    EXPECT_EQ(state.size(), torch_entries);

    // Interrupted halfway, saved, loaded into a new optimiser over copies: bit-identical.
    const int half = steps / 2;
    std::vector<Tensor> first = fresh(initial);
    auto opt1 = make(a, first);
    run(*opt1, first, 0, half);
    save(opt1->state_dict(), state_path);
    std::vector<Tensor> second = fresh(first);
    auto opt2 = make(a, second);
    opt2->load_state_dict(load_file(state_path, dev));
    run(*opt2, second, half, steps);
    for (int k = 0; k < n; ++k)
      EXPECT_TRUE(equal(second[static_cast<std::size_t>(k)], params[static_cast<std::size_t>(k)]))
          << "resumed parameter " << k << " differs from the uninterrupted run";
    ++checked;
  }
  std::filesystem::remove(state_path);
  EXPECT_GT(checked, 50);
  std::printf("torch_optim: %d runs matched torch on %s and resumed bit-identically\n", checked,
              dev.str().c_str());
}

TEST(TorchOptim, LoadStateDictRefusesWhatDoesNotFit) {
  Tensor p = zeros({2, 3}).requires_grad_();
  optim::Adam adam({p});
  nn::NamedTensors wrong_shape;
  wrong_shape.push_back("state.0.step", full({}, 1.0));
  wrong_shape.push_back("state.0.exp_avg", zeros({3, 2}));
  wrong_shape.push_back("state.0.exp_avg_sq", zeros({2, 3}));
  EXPECT_THROW(adam.load_state_dict(wrong_shape), ShapeError);
  for (const char* bad :
       {"state.1.exp_avg", "state.x.exp_avg", "params.0", "state.0.momentum_buffer"}) {
    nn::NamedTensors s;
    s.push_back(bad, zeros({2, 3}));
    EXPECT_THROW(adam.load_state_dict(s), ValueError) << bad;
  }
  nn::NamedTensors partial;  // exp_avg without its companions
  partial.push_back("state.0.exp_avg", zeros({2, 3}));
  EXPECT_THROW(adam.load_state_dict(partial), ValueError);
  nn::NamedTensors zero_step;
  zero_step.push_back("state.0.step", full({}, 0.0));
  zero_step.push_back("state.0.exp_avg", zeros({2, 3}));
  zero_step.push_back("state.0.exp_avg_sq", zeros({2, 3}));
  EXPECT_THROW(adam.load_state_dict(zero_step), ValueError);
  EXPECT_EQ(adam.state_dict().size(), 0u);  // unchanged by the refusals
  EXPECT_THROW(optim::Adam({p}, {.lr = -1}), ValueError);
  EXPECT_THROW(optim::Adam({p}, {.beta2 = 1.0}), ValueError);
  EXPECT_THROW(optim::AdamW({zeros({2})}), Error);  // does not require grad
}
