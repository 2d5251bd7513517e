// SPDX-License-Identifier: Apache-2.0
// SGD, Adam, AdamW, Adagrad, RMSprop and Adadelta, their parameter groups, the learning-rate
// schedules and gradient clipping against PyTorch: make_cases.py (run by run_torch_cases.sh with
// Debian's python3-torch) writes random runs (options, groups, scheduler, clipping, parameters,
// gradients per step, some absent) with torch's final parameters, state_dict, each step's
// lrs and clipping norms, and the groups' final hyper-parameters; each is replayed here on
// HETERO_TEST_DEVICE (default cpu) and compared: parameters, state entries and norms
// |got - want| <= tol (1 + |want|), tol 1e-5 float32 (torch's fused multiply-adds round
// differently), 1e-12 float64; every lr and hyper-parameter bit-identical (the schedules
// compute torch's formulas term for term in double, with the same libm). Each run is
// also interrupted halfway, the optimiser's and scheduler's states saved (safetensors) and
// loaded into new ones over copies of the parameters: the resumed run must end
// bit-identical, hyper-parameters included.
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

optim::SGDOptions sgd_options(const nlohmann::json& o) {
  return {.lr = o["lr"],
          .momentum = o["momentum"],
          .dampening = o["dampening"],
          .weight_decay = o["weight_decay"],
          .nesterov = o["nesterov"]};
}

template <class Options>
Options adam_options(const nlohmann::json& o) {
  return {.lr = o["lr"],
          .beta1 = o["betas"][0],
          .beta2 = o["betas"][1],
          .eps = o["eps"],
          .weight_decay = o["weight_decay"],
          .amsgrad = o["amsgrad"]};
}

optim::AdagradOptions adagrad_options(const nlohmann::json& o) {
  return {.lr = o["lr"],
          .lr_decay = o["lr_decay"],
          .weight_decay = o["weight_decay"],
          .initial_accumulator_value = o["initial_accumulator_value"],
          .eps = o["eps"]};
}

optim::RMSpropOptions rmsprop_options(const nlohmann::json& o) {
  return {.lr = o["lr"],
          .alpha = o["alpha"],
          .eps = o["eps"],
          .weight_decay = o["weight_decay"],
          .momentum = o["momentum"],
          .centered = o["centered"]};
}

optim::AdadeltaOptions adadelta_options(const nlohmann::json& o) {
  return {.lr = o["lr"], .rho = o["rho"], .eps = o["eps"], .weight_decay = o["weight_decay"]};
}

// The case's parameter groups over `params` ("groups": null is one group of all).
template <class Options, class Read>
std::vector<optim::ParamGroup<Options>> groups_of(const nlohmann::json& a,
                                                  const std::vector<Tensor>& params, Read read) {
  if (a["groups"].is_null()) return {{params, std::nullopt}};
  std::vector<optim::ParamGroup<Options>> out;
  for (const auto& g : a["groups"]) {
    optim::ParamGroup<Options> group;
    for (int k : g["params"]) group.params.push_back(params[static_cast<std::size_t>(k)]);
    if (!g["options"].is_null()) group.options = read(g["options"]);
    out.push_back(std::move(group));
  }
  return out;
}

std::unique_ptr<optim::Optimizer> make(const nlohmann::json& a, const std::vector<Tensor>& params) {
  const auto& o = a["options"];
  const std::string kind = a["optimizer"];
  if (kind == "sgd")
    return std::make_unique<optim::SGD>(groups_of<optim::SGDOptions>(a, params, sgd_options),
                                        sgd_options(o));
  if (kind == "adagrad")
    return std::make_unique<optim::Adagrad>(
        groups_of<optim::AdagradOptions>(a, params, adagrad_options), adagrad_options(o));
  if (kind == "rmsprop")
    return std::make_unique<optim::RMSprop>(
        groups_of<optim::RMSpropOptions>(a, params, rmsprop_options), rmsprop_options(o));
  if (kind == "adadelta")
    return std::make_unique<optim::Adadelta>(
        groups_of<optim::AdadeltaOptions>(a, params, adadelta_options), adadelta_options(o));
  if (kind == "adam")
    return std::make_unique<optim::Adam>(
        groups_of<optim::AdamOptions>(a, params, adam_options<optim::AdamOptions>),
        adam_options<optim::AdamOptions>(o));
  return std::make_unique<optim::AdamW>(
      groups_of<optim::AdamWOptions>(a, params, adam_options<optim::AdamWOptions>),
      adam_options<optim::AdamWOptions>(o));
}

// The epoch schedule `s` (a case's "scheduler", or one of a chain's) on `opt`, or null
// (kinds "plateau", "chained" and "sequential": make_schedule).
std::unique_ptr<optim::LRScheduler> make_scheduler(const nlohmann::json& s, optim::Optimizer& opt) {
  if (s.is_null() || s["kind"] == "plateau" || s["kind"] == "chained" || s["kind"] == "sequential")
    return nullptr;
  const std::string kind = s["kind"];
  if (kind == "constant")
    return std::make_unique<optim::ConstantLR>(opt, s["factor"], s["total_iters"]);
  if (kind == "polynomial")
    return std::make_unique<optim::PolynomialLR>(opt, s["total_iters"], s["power"]);
  if (kind == "multiplicative") {
    const double base = s["base"];
    return std::make_unique<optim::MultiplicativeLR>(opt, [base](std::int64_t) { return base; });
  }
  if (kind == "step") return std::make_unique<optim::StepLR>(opt, s["step_size"], s["gamma"]);
  if (kind == "multistep")
    return std::make_unique<optim::MultiStepLR>(
        opt, s["milestones"].get<std::vector<std::int64_t>>(), s["gamma"]);
  if (kind == "exponential") return std::make_unique<optim::ExponentialLR>(opt, s["gamma"]);
  if (kind == "linear")
    return std::make_unique<optim::LinearLR>(opt, s["start_factor"], s["end_factor"],
                                             s["total_iters"]);
  if (kind == "cosine")
    return std::make_unique<optim::CosineAnnealingLR>(opt, s["T_max"], s["eta_min"]);
  if (kind == "warm_restarts")
    return std::make_unique<optim::CosineAnnealingWarmRestarts>(opt, s["T_0"], s["T_mult"],
                                                                s["eta_min"]);
  if (kind == "lambda") {
    const double base = s["base"];
    return std::make_unique<optim::LambdaLR>(
        opt, [base](std::int64_t e) { return std::pow(base, static_cast<double>(e)); });
  }
  return std::make_unique<optim::OneCycleLR>(
      opt, optim::OneCycleLROptions{.max_lr = {s["max_lr"].get<double>()},
                                    .total_steps = s["total_steps"],
                                    .pct_start = s["pct_start"],
                                    .anneal_strategy = s["anneal_strategy"] == "cos"
                                                           ? optim::AnnealStrategy::cos
                                                           : optim::AnnealStrategy::linear,
                                    .cycle_momentum = s["cycle_momentum"],
                                    .div_factor = s["div_factor"],
                                    .final_div_factor = s["final_div_factor"],
                                    .three_phase = s["three_phase"]});
}

// The case's schedule: an epoch scheduler, a chain of them, a sequence of them, or
// ReduceLROnPlateau stepped with the case's metrics, or none.
struct Schedule {
  std::unique_ptr<optim::LRScheduler> epochs;
  std::unique_ptr<optim::ChainedScheduler> chain;
  std::unique_ptr<optim::SequentialLR> sequence;
  std::unique_ptr<optim::ReduceLROnPlateau> plateau;
  std::vector<double> metrics;
  // Ends step s.
  void step(int s) {
    if (epochs) epochs->step();
    if (chain) chain->step();
    if (sequence) sequence->step();
    if (plateau) plateau->step(metrics.at(static_cast<std::size_t>(s)));
  }
  bool any() const { return epochs || chain || sequence || plateau; }
  nn::NamedTensors state_dict() const {
    return epochs     ? epochs->state_dict()
           : chain    ? chain->state_dict()
           : sequence ? sequence->state_dict()
                      : plateau->state_dict();
  }
  void load_state_dict(const nn::NamedTensors& state) {
    if (epochs) epochs->load_state_dict(state);
    if (chain) chain->load_state_dict(state);
    if (sequence) sequence->load_state_dict(state);
    if (plateau) plateau->load_state_dict(state);
  }
};

Schedule make_schedule(const nlohmann::json& a, optim::Optimizer& opt) {
  Schedule out;
  const auto& s = a["scheduler"];
  out.epochs = make_scheduler(s, opt);
  if (!s.is_null() && (s["kind"] == "chained" || s["kind"] == "sequential")) {
    std::vector<std::shared_ptr<optim::LRScheduler>> parts;
    for (const auto& part : s["schedulers"]) parts.push_back(make_scheduler(part, opt));
    if (s["kind"] == "chained")
      out.chain = std::make_unique<optim::ChainedScheduler>(std::move(parts));
    else
      out.sequence = std::make_unique<optim::SequentialLR>(
          opt, std::move(parts), s["milestones"].get<std::vector<std::int64_t>>());
  }
  if (s.is_null() || s["kind"] != "plateau") return out;
  out.plateau = std::make_unique<optim::ReduceLROnPlateau>(
      opt, optim::ReduceLROnPlateauOptions{
               .mode = s["mode"] == "min" ? optim::PlateauMode::min : optim::PlateauMode::max,
               .factor = s["factor"],
               .patience = s["patience"],
               .threshold = s["threshold"],
               .threshold_mode = s["threshold_mode"] == "rel" ? optim::ThresholdMode::rel
                                                              : optim::ThresholdMode::abs,
               .cooldown = s["cooldown"],
               .min_lr = {s["min_lr"].get<double>()},
               .eps = s["eps"]});
  out.metrics = s["metrics"].get<std::vector<double>>();
  return out;
}

}  // namespace

TEST(TorchOptim, EveryRunMatchesTorchAndResumesBitIdentically) {
  const torch_cases::Cases cases = torch_cases::load_cases();
  const Device& dev = cases.device;
  const nn::NamedTensors& file = cases.tensors;
  const Metadata& meta = cases.meta;
  const auto state_path = std::filesystem::temp_directory_path() /
                          ("hetero_torch_optim_" + std::to_string(::getpid()) + ".safetensors");
  const auto sched_path = std::filesystem::temp_directory_path() /
                          ("hetero_torch_sched_" + std::to_string(::getpid()) + ".safetensors");
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
    const nlohmann::json& clip = a["clip"];
    const double tol = initial[0].dtype() == DType::float64 ? 1e-12 : 1e-5;
    // Runs steps [first, last) of the case on `params` with `opt` (and `sched`), checking
    // each step's clipping norm and lrs against torch's when `check`.
    const auto run = [&](optim::Optimizer& opt, Schedule& sched, std::vector<Tensor>& params,
                         int first, int last, bool check) {
      std::size_t norm_index = 0;
      for (int s = 0; s < first; ++s) norm_index += clip.is_object() && clip["kind"] == "norm";
      for (int s = first; s < last; ++s) {
        for (int k = 0; k < n; ++k) {
          const Tensor g = get("g" + std::to_string(s) + "." + std::to_string(k));
          params[static_cast<std::size_t>(k)].mutable_grad() = g.defined() ? g.clone() : g;
        }
        if (clip.is_object() && clip["kind"] == "norm") {
          const double norm_type =
              clip["norm_type"].is_string() ? INFINITY : clip["norm_type"].get<double>();
          const Tensor total = nn::utils::clip_grad_norm_(params, clip["max_norm"], norm_type);
          const double want = a["norms"][norm_index++];
          if (check) {
            EXPECT_LE(std::abs(total.to(DType::float64).item<double>() - want),
                      tol * (1 + std::abs(want)))
                << "clip_grad_norm_ total at step " << s;
          }
        } else if (clip.is_object()) {
          nn::utils::clip_grad_value_(params, clip["clip_value"]);
        }
        opt.step();
        sched.step(s);
        if (!check) continue;
        for (std::size_t g = 0; g < opt.num_param_groups(); ++g) {
          EXPECT_EQ(opt.lr(g), a["lrs"][static_cast<std::size_t>(s + 1)][g].get<double>())
              << "lr of group " << g << " after step " << s;
        }
      }
    };
    std::vector<Tensor> params = fresh(initial);
    auto opt = make(a, params);
    Schedule sched = make_schedule(a, *opt);
    for (std::size_t g = 0; g < opt->num_param_groups(); ++g)
      EXPECT_EQ(opt->lr(g), a["lrs"][0][g].get<double>()) << "initial lr of group " << g;
    run(*opt, sched, params, 0, steps, true);
    for (int k = 0; k < n; ++k)
      EXPECT_LE(worst(params[static_cast<std::size_t>(k)], get("out" + std::to_string(k))), tol)
          << "parameter " << k;
    // Every numeric hyper-parameter of every group, torch's keys (betas as beta1/beta2).
    ASSERT_EQ(opt->num_param_groups(), a["group_values"].size());
    for (std::size_t g = 0; g < opt->num_param_groups(); ++g)
      for (const auto& [k, v] : a["group_values"][g].items()) {
        const auto ours = opt->get(g, k);
        if (!ours) {
          // torch 1.13's keys that hetero has no option for.
          EXPECT_TRUE(k == "maximize" || k == "foreach" || k == "capturable" ||
                      k == "differentiable" || k == "fused")
              << "group " << g << " has no '" << k << "'";
          continue;
        }
        EXPECT_EQ(*ours, v.get<double>()) << "group " << g << " '" << k << "'";
      }
    // The state: the same entries as torch's, with torch's values.
    const nn::NamedTensors state = opt->state_dict();
    std::size_t torch_entries = 0, state_entries = 0;
    for (const auto& [name, t] : state) state_entries += name.rfind("state.", 0) == 0;
    for (const auto& [name, t] : file)
      if (name.rfind(key + ".state.", 0) == 0) {
        ++torch_entries;
        const std::string ours = name.substr(key.size() + 1);
        ASSERT_TRUE(state.contains(ours)) << "state entry " << ours << " missing";
        EXPECT_LE(worst(state.at(ours), t), tol) << ours;
      }
    EXPECT_EQ(state_entries, torch_entries);

    // Interrupted halfway, saved, loaded into a new optimiser over copies: bit-identical.
    const int half = steps / 2;
    // The scheduler is built before the load (it sets the lrs), as torch's recipe.
    std::vector<Tensor> first = fresh(initial);
    auto opt1 = make(a, first);
    Schedule sched1 = make_schedule(a, *opt1);
    run(*opt1, sched1, first, 0, half, false);
    save(opt1->state_dict(), state_path);
    if (sched1.any()) save(sched1.state_dict(), sched_path);
    std::vector<Tensor> second = fresh(first);
    auto opt2 = make(a, second);
    Schedule sched2 = make_schedule(a, *opt2);
    opt2->load_state_dict(load_file(state_path, dev));
    if (sched2.any()) sched2.load_state_dict(load_file(sched_path, dev));
    run(*opt2, sched2, second, half, steps, false);
    for (int k = 0; k < n; ++k)
      EXPECT_TRUE(equal(second[static_cast<std::size_t>(k)], params[static_cast<std::size_t>(k)]))
          << "resumed parameter " << k << " differs from the uninterrupted run";
    for (std::size_t g = 0; g < opt->num_param_groups(); ++g)
      for (const std::string& k : opt->keys(g))
        EXPECT_EQ(opt2->get(g, k), opt->get(g, k)) << "resumed group " << g << " '" << k << "'";
    ++checked;
  }
  std::filesystem::remove(state_path);
  std::filesystem::remove(sched_path);
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
  std::size_t entries = 0;
  for (const auto& [name, t] : adam.state_dict()) entries += name.rfind("state.", 0) == 0;
  EXPECT_EQ(entries, 0u);  // unchanged by the refusals
  EXPECT_THROW(optim::Adam({p}, {.lr = -1}), ValueError);
  EXPECT_THROW(optim::Adam({p}, {.beta2 = 1.0}), ValueError);
  const Tensor non_leaf = p * 2;
  EXPECT_THROW(optim::AdamW({non_leaf}), ValueError);  // can't optimize a non-leaf Tensor
  EXPECT_NO_THROW(optim::AdamW({zeros({2})}));         // frozen: accepted and skipped, as torch
}

TEST(TorchOptim, ParamGroupsReadAndSetEachGroupsHyperParameters) {
  Tensor a = ones({2}).requires_grad_(), b = ones({3}).requires_grad_();
  optim::SGD sgd({{{a}, std::nullopt}, {{b}, optim::SGDOptions{.lr = 0.5, .momentum = 0.9}}},
                 {.lr = 0.1});
  ASSERT_EQ(sgd.num_param_groups(), 2u);
  EXPECT_EQ(sgd.lr(0), 0.1);
  EXPECT_EQ(sgd.lr(1), 0.5);
  EXPECT_EQ(sgd.get(1, "momentum"), 0.9);
  EXPECT_EQ(sgd.get(0, "initial_lr"), std::nullopt);
  EXPECT_TRUE(sgd.param_group(1)[0].is_same(b));
  sgd.set_lr(1, 0.25);
  EXPECT_EQ(sgd.options(1).lr, 0.25);
  EXPECT_THROW(sgd.set_lr(1, -1), ValueError);
  EXPECT_EQ(sgd.lr(1), 0.25);  // unchanged by the refusal
  EXPECT_THROW(sgd.set(0, "weight_decay", -1), ValueError);
  EXPECT_THROW(sgd.lr(2), IndexError);
  sgd.set(0, "anything", 3);  // kept beside the options, as torch's param_groups
  EXPECT_EQ(sgd.keys(0).back(), "anything");
  sgd.set_lr(0.0);  // lr = 0 is accepted, as torch 1.13
  a.mutable_grad() = ones({2});
  b.mutable_grad() = ones({3});
  sgd.step();
  EXPECT_TRUE(equal(a, ones({2})));
  EXPECT_THROW(optim::SGD({{{a}, std::nullopt}, {{a}, std::nullopt}}, {.lr = 0.1}), ValueError);
  EXPECT_THROW(optim::SGD(std::vector<Tensor>{}, {.lr = 0.1}), ValueError);
  // A checkpoint carries the groups' values; one whose groups differ is refused whole.
  nn::NamedTensors state = sgd.state_dict();
  optim::SGD other({{{a}, std::nullopt}, {{b}, std::nullopt}}, {.lr = 0.1});
  other.load_state_dict(state);
  EXPECT_EQ(other.lr(1), 0.0);
  EXPECT_EQ(other.get(0, "anything"), 3.0);
  optim::SGD one_group({a, b}, {.lr = 0.1});
  EXPECT_THROW(one_group.load_state_dict(state), ValueError);
  EXPECT_EQ(one_group.lr(), 0.1);
  nn::NamedTensors bad_momentum;  // a good lr, then an entry that fails: nothing changes
  bad_momentum.push_back("param_groups.0.lr", full({}, 0.5));
  bad_momentum.push_back("state.0.momentum_buffer", zeros({7}));
  EXPECT_THROW(one_group.load_state_dict(bad_momentum), ShapeError);
  EXPECT_EQ(one_group.lr(), 0.1);
}

TEST(TorchOptim, ZeroGradKeepsOrDropsTheGradient) {
  Tensor p = ones({2}).requires_grad_();
  optim::SGD sgd({p}, {.lr = 0.1});
  p.mutable_grad() = full({2}, 3.0);
  const Tensor g = p.grad();
  sgd.zero_grad(false);  // torch 1.13's default: zeroed in place
  EXPECT_TRUE(p.grad().is_same(g));
  EXPECT_TRUE(equal(g, zeros({2})));
  sgd.zero_grad();
  EXPECT_FALSE(p.grad().defined());
}

// A parameter listed twice in one group: torch 1.13 warns and updates it once per listing
// (w = -2 after one step of lr 1 with gradient 1); hetero too, through its log.
TEST(TorchOptim, ADuplicateParameterInAGroupIsWarnedAboutAndUpdatedPerListing) {
  std::vector<std::string> warnings;
  set_log_callback([&](LogLevel level, std::string_view message) {
    if (level == LogLevel::warn) warnings.emplace_back(message);
  });
  Tensor w = zeros({2}).requires_grad_();
  optim::SGD sgd({w, w}, {.lr = 1.0});
  set_log_callback({});
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("duplicate parameters (parameter 1 of group 0 is also parameter 0)"),
            std::string::npos)
      << warnings[0];
  w.mutable_grad() = ones({2});
  sgd.step();
  EXPECT_EQ(w.to_vector<float>(), (std::vector<float>{-2, -2}));
  // In two groups it is an error, as torch's ValueError.
  Tensor v = zeros({1}).requires_grad_();
  EXPECT_THROW(optim::SGD({optim::ParamGroup<optim::SGDOptions>{{w, v}, std::nullopt},
                           optim::ParamGroup<optim::SGDOptions>{{v}, std::nullopt}},
                          {.lr = 1.0}),
               ValueError);
}

// A gradient that does not fit its parameter (torch refuses it when assigned) raises before
// any parameter is updated. Before: the first parameter stepped, then the second failed
// inside the update (a float64 gradient of a float32 parameter with InternalError).
TEST(TorchOptim, AGradientThatDoesNotFitItsParameterRaisesBeforeAnyUpdate) {
  for (const bool adam : {false, true}) {
    Tensor a = ones({2}).requires_grad_(), b = ones({3}).requires_grad_();
    std::unique_ptr<optim::Optimizer> opt;
    if (adam)
      opt = std::make_unique<optim::Adam>(std::vector<Tensor>{a, b}, optim::AdamOptions{.lr = 0.1});
    else
      opt = std::make_unique<optim::SGD>(std::vector<Tensor>{a, b},
                                         optim::SGDOptions{.lr = 0.1, .momentum = 0.9});
    a.mutable_grad() = ones({2});
    b.mutable_grad() = ones({4});
    EXPECT_THROW(opt->step(), ShapeError);
    b.mutable_grad() = ones({3}, TensorOptions().dtype(DType::float64));
    EXPECT_THROW(opt->step(), DTypeError);
    EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{1, 1})) << (adam ? "Adam" : "SGD");
    b.mutable_grad() = ones({3});
    opt->step();  // fitting gradients: one step each
    EXPECT_LT(a.to_vector<float>()[0], 1.0f);
  }
}

TEST(TorchOptim, SchedulersRefuseWhatTorchRefuses) {
  Tensor p = ones({2}).requires_grad_();
  optim::SGD sgd({p}, {.lr = 0.1});
  // pct_start * total_steps == 1: the first phase has no steps (torch: ZeroDivisionError).
  EXPECT_THROW(optim::OneCycleLR(sgd, {.max_lr = {1.0}, .total_steps = 4, .pct_start = 0.25}),
               ValueError);
  EXPECT_THROW(optim::OneCycleLR(sgd, {.max_lr = {1.0}}), ValueError);  // no step count
  // epochs * steps_per_epoch beyond int64 (it wrapped to 1 step); a division by 0 (torch:
  // ZeroDivisionError; the lrs were inf and NaN)
  constexpr std::int64_t big = std::int64_t{1} << 40;
  EXPECT_THROW(optim::OneCycleLR(sgd, {.max_lr = {1.0}, .epochs = big, .steps_per_epoch = big}),
               ValueError);
  EXPECT_THROW(optim::OneCycleLR(sgd, {.max_lr = {1.0}, .total_steps = 10, .div_factor = 0}),
               ValueError);
  EXPECT_THROW(optim::OneCycleLR(sgd, {.max_lr = {1.0}, .total_steps = 10, .final_div_factor = 0}),
               ValueError);
  EXPECT_THROW(optim::OneCycleLR(sgd, {.max_lr = {1.0, 2.0}, .total_steps = 10}), ValueError);
  EXPECT_THROW(optim::LinearLR(sgd, 1.5), ValueError);
  // start_factor 0 divides by zero at the first step (torch 1.13: ZeroDivisionError; torch 2
  // refuses it when constructed); hetero gave NaN learning rates.
  EXPECT_THROW(optim::LinearLR(sgd, 0.0), ValueError);
  EXPECT_EQ(sgd.lr(), 0.1);
  EXPECT_THROW(optim::StepLR(sgd, 0), ValueError);
  optim::SGD fresh({p}, {.lr = 0.1});
  optim::OneCycleLR one_cycle(fresh, {.max_lr = {1.0}, .total_steps = 3});
  for (int i = 0; i < 3; ++i) one_cycle.step();
  const double lr = fresh.lr();
  EXPECT_THROW(one_cycle.step(), ValueError);  // "Tried to step 5 times ..."
  EXPECT_EQ(fresh.lr(), lr);
  EXPECT_EQ(one_cycle.last_epoch(), 3);
  nn::NamedTensors wrong;
  for (const auto& [name, t] : one_cycle.state_dict())
    wrong.push_back(name,
                    name == "base_lrs" ? zeros({2}, TensorOptions().dtype(DType::float64)) : t);
  EXPECT_THROW(one_cycle.load_state_dict(wrong), ValueError);
  EXPECT_EQ(one_cycle.last_epoch(), 3);
}

// CosineAnnealingWarmRestarts over three restarts: torch 1.13's lrs to the last bit
// (CosineAnnealingWarmRestarts(SGD(lr=0.5), 3, 2, 0.01), 30 steps), its counters, a resume.
TEST(TorchOptim, CosineAnnealingWarmRestartsCycles) {
  const std::vector<double> torch_lrs = {0.5,
                                         0.3775,
                                         0.13250000000000006,
                                         0.5,
                                         0.4671762239271875,
                                         0.3775,
                                         0.255,
                                         0.13250000000000006,
                                         0.04282377607281252,
                                         0.5,
                                         0.4916518274408217,
                                         0.4671762239271875,
                                         0.4282411613907041,
                                         0.3775,
                                         0.3184106660501176,
                                         0.255,
                                         0.19158933394988245,
                                         0.13250000000000006,
                                         0.08175883860929586,
                                         0.04282377607281252,
                                         0.01834817255917829,
                                         0.5,
                                         0.49790399103658356,
                                         0.4916518274408217,
                                         0.48135048546526527,
                                         0.4671762239271875,
                                         0.4493715683713526,
                                         0.4282411613907041,
                                         0.40414655010713657,
                                         0.3775,
                                         0.348757440929447};
  Tensor p = ones({1}).requires_grad_();
  optim::SGD sgd({p}, {.lr = 0.5});
  optim::CosineAnnealingWarmRestarts sched(sgd, 3, 2, 0.01);
  nn::NamedTensors halfway;
  for (std::size_t e = 0; e < torch_lrs.size(); ++e) {
    EXPECT_EQ(sgd.lr(), torch_lrs[e]) << "epoch " << e;
    if (e == 11) halfway = sched.state_dict();
    if (e + 1 < torch_lrs.size()) sched.step();
  }
  EXPECT_EQ(sched.T_i(), 24);
  EXPECT_EQ(sched.T_cur(), 9);
  optim::SGD other({p}, {.lr = 0.5});
  optim::CosineAnnealingWarmRestarts resumed(other, 3, 2, 0.01);
  resumed.load_state_dict(halfway);
  // The counters follow the loaded epoch at once (11 = 3 + 6 + 2: the third cycle's third).
  EXPECT_EQ(resumed.T_i(), 12);
  EXPECT_EQ(resumed.T_cur(), 2);
  resumed.step();
  EXPECT_EQ(other.lr(), torch_lrs[12]);
  EXPECT_THROW(optim::CosineAnnealingWarmRestarts(sgd, 0), ValueError);
  EXPECT_THROW(optim::CosineAnnealingWarmRestarts(sgd, 2, 0), ValueError);
}

// ChainedScheduler: torch's lrs for a ConstantLR warm-up chained with ExponentialLR and for
// PolynomialLR (bit for bit), its refusals, and a state that loads all or nothing.
TEST(TorchOptim, ChainedSchedulerAndPolynomialLR) {
  Tensor p = ones({1}).requires_grad_();
  optim::SGD sgd({p}, {.lr = 1.0});
  optim::ChainedScheduler chain({std::make_shared<optim::ConstantLR>(sgd, 0.1, 2),
                                 std::make_shared<optim::ExponentialLR>(sgd, 0.9)});
  const std::vector<double> chained = {0.1,
                                       0.09000000000000001,
                                       0.8100000000000002,
                                       0.7290000000000002,
                                       0.6561000000000002,
                                       0.5904900000000002};
  EXPECT_EQ(chain.get_last_lr(), std::vector<double>{chained[0]});
  nn::NamedTensors at_two;
  for (std::size_t e = 1; e < chained.size(); ++e) {
    chain.step();
    EXPECT_EQ(sgd.lr(), chained[e]) << "epoch " << e;
    if (e == 2) at_two = chain.state_dict();
  }
  EXPECT_EQ(chain.size(), 2u);
  EXPECT_EQ(chain.scheduler(1).last_epoch(), 5);
  EXPECT_THROW((void)chain.scheduler(2), IndexError);
  // Resumed from epoch 2 on a fresh optimiser at that lr, the chain goes on as torch's.
  optim::SGD other({p}, {.lr = 1.0});
  optim::ChainedScheduler resumed({std::make_shared<optim::ConstantLR>(other, 0.1, 2),
                                   std::make_shared<optim::ExponentialLR>(other, 0.9)});
  resumed.load_state_dict(at_two);
  EXPECT_EQ(resumed.scheduler(0).last_epoch(), 2);
  other.set_lr(0, chained[2]);
  resumed.step();
  EXPECT_EQ(other.lr(), chained[3]);
  // An unknown entry, or a schedule's bad entry, changes nothing.
  nn::NamedTensors bad = at_two;
  bad.push_back("schedulers.7.last_epoch", zeros({}));
  EXPECT_THROW(resumed.load_state_dict(bad), ValueError);
  nn::NamedTensors huge = at_two;
  huge.push_back("schedulers.99999999999999999999999.last_epoch", zeros({}));
  EXPECT_THROW(resumed.load_state_dict(huge), ValueError);
  nn::NamedTensors wrong;
  for (const auto& [name, t] : at_two)
    wrong.push_back(name, name == "schedulers.1.last_lr" ? zeros({3}) : t);
  EXPECT_THROW(resumed.load_state_dict(wrong), ValueError);
  EXPECT_EQ(resumed.scheduler(0).last_epoch(), 3);
  EXPECT_EQ(resumed.scheduler(1).last_epoch(), 3);
  // torch's refusals.
  EXPECT_THROW(optim::ChainedScheduler({}), ValueError);
  EXPECT_THROW(optim::ChainedScheduler({nullptr}), ValueError);
  EXPECT_THROW(optim::ChainedScheduler({std::make_shared<optim::ExponentialLR>(sgd, 0.9),
                                        std::make_shared<optim::ExponentialLR>(other, 0.9)}),
               ValueError);
  // PolynomialLR(total_iters 4, power 2) from 0.5: torch's lrs, then 0 past total_iters.
  optim::SGD poly_sgd({p}, {.lr = 0.5});
  optim::PolynomialLR poly(poly_sgd, 4, 2.0);
  for (double want : {0.5, 0.28125, 0.125, 0.03125, 0.0, 0.0, 0.0}) {
    EXPECT_EQ(poly_sgd.lr(), want);
    poly.step();
  }
  EXPECT_THROW(optim::PolynomialLR(poly_sgd, 0), ValueError);
  EXPECT_THROW(optim::PolynomialLR(poly_sgd, 3, -1.0), ValueError);
  EXPECT_THROW(optim::ConstantLR(poly_sgd, 0.0), ValueError);
  EXPECT_THROW(optim::ConstantLR(poly_sgd, 1.5), ValueError);
  EXPECT_THROW(optim::MultiplicativeLR(poly_sgd, nullptr), ValueError);
}

// SequentialLR: torch 1.13's lrs for a LinearLR warm-up then CosineAnnealingLR (which
// restarts at the milestone from the base lr by its closed form), for a repeated milestone
// that skips a schedule and restarts MultiplicativeLR (no closed form: the lr is kept), its
// refusals, and a state that resumes it.
TEST(TorchOptim, SequentialLRTakesTurnsAsTorch) {
  Tensor p = ones({1}).requires_grad_();
  optim::SGD sgd({p}, {.lr = 1.0});
  auto warmup = std::make_shared<optim::LinearLR>(sgd, 0.25, 1.0, 3);
  auto decay = std::make_shared<optim::CosineAnnealingLR>(sgd, 4, 0.1);
  optim::SequentialLR seq(sgd, {warmup, decay}, {3});
  const std::vector<double> torch_lrs = {
      0.25, 0.5, 0.75, 1.0, 0.8681980515339464, 0.55, 0.23180194846605368, 0.1, 0.2318019484660536};
  EXPECT_EQ(seq.get_last_lr(), std::vector<double>{torch_lrs[0]});
  EXPECT_EQ(warmup->last_epoch(), 0);
  EXPECT_EQ(decay->last_epoch(), -1);
  nn::NamedTensors at_five;
  for (std::size_t e = 1; e < torch_lrs.size(); ++e) {
    seq.step();
    EXPECT_EQ(sgd.lr(), torch_lrs[e]) << "epoch " << e;
    EXPECT_EQ(seq.get_last_lr(), std::vector<double>{torch_lrs[e]});
    if (e == 5) at_five = seq.state_dict();
  }
  EXPECT_EQ(seq.last_epoch(), 8);
  EXPECT_EQ(warmup->last_epoch(), 2);
  EXPECT_EQ(decay->last_epoch(), 5);
  EXPECT_EQ(&seq.scheduler(1), decay.get());
  EXPECT_THROW((void)seq.scheduler(2), IndexError);

  // Resumed at epoch 5 on a fresh optimiser at that lr: the same lrs as torch's.
  optim::SGD other({p}, {.lr = 1.0});
  optim::SequentialLR resumed(other,
                              {std::make_shared<optim::LinearLR>(other, 0.25, 1.0, 3),
                               std::make_shared<optim::CosineAnnealingLR>(other, 4, 0.1)},
                              {3});
  resumed.load_state_dict(at_five);
  other.set_lr(0, torch_lrs[5]);
  EXPECT_EQ(resumed.last_epoch(), 5);
  for (std::size_t e = 6; e < torch_lrs.size(); ++e) {
    resumed.step();
    EXPECT_EQ(other.lr(), torch_lrs[e]) << "resumed epoch " << e;
  }
  // An unknown entry, a negative epoch or a schedule's bad entry changes nothing.
  for (const char* name : {"milestones", "schedulers.2.last_epoch"}) {
    nn::NamedTensors bad = at_five;
    bad.push_back(name, zeros({}));
    EXPECT_THROW(resumed.load_state_dict(bad), ValueError) << name;
  }
  for (const std::string entry : {"last_epoch", "schedulers.1.base_lrs"}) {
    nn::NamedTensors wrong;  // a negative epoch; two base lrs for one group
    for (const auto& [name, t] : at_five)
      wrong.push_back(name, name != entry ? t : name == "last_epoch" ? full({}, -1.0) : zeros({2}));
    EXPECT_THROW(resumed.load_state_dict(wrong), ValueError) << entry;
  }
  EXPECT_EQ(resumed.last_epoch(), 8);
  EXPECT_EQ(resumed.scheduler(1).last_epoch(), 5);

  // Milestones {2, 2}: StepLR never runs; MultiplicativeLR restarts at epoch 2 keeping the
  // lr (torch's get_lr() at epoch 0), then multiplies (torch's values).
  optim::SGD three({p}, {.lr = 0.5});
  auto constant = std::make_shared<optim::ConstantLR>(three, 0.1, 5);
  auto skipped = std::make_shared<optim::StepLR>(three, 1, 0.5);
  auto multiply =
      std::make_shared<optim::MultiplicativeLR>(three, [](std::int64_t) { return 0.9; });
  optim::SequentialLR turns(three, {constant, skipped, multiply}, {2, 2});
  for (double want :
       {0.05, 0.05, 0.05, 0.045000000000000005, 0.04050000000000001, 0.03645000000000001}) {
    EXPECT_EQ(three.lr(), want);
    turns.step();
  }
  EXPECT_EQ(skipped->last_epoch(), -1);
  EXPECT_EQ(multiply->last_epoch(), 4);
  // A schedule whose turn has not come saves last_epoch -1, and loads it back; -2 is refused.
  EXPECT_NO_THROW(turns.load_state_dict(turns.state_dict()));
  nn::NamedTensors below;
  for (const auto& [name, t] : skipped->state_dict())
    below.push_back(name,
                    name == "last_epoch" ? full({}, -2.0, TensorOptions().dtype(DType::int64)) : t);
  EXPECT_THROW(skipped->load_state_dict(below), ValueError);
  for (const double bad : {std::nan(""), 2.5, HUGE_VAL, 1e30}) {  // not an integer epoch
    nn::NamedTensors odd;
    for (const auto& [name, t] : skipped->state_dict())
      odd.push_back(name, name == "last_epoch" ? full({}, bad) : t);
    EXPECT_THROW(skipped->load_state_dict(odd), ValueError) << bad;
  }
  EXPECT_EQ(skipped->last_epoch(), -1);

  // torch's refusals, and decreasing milestones; nothing changes on a refusal.
  optim::SGD fresh({p}, {.lr = 2.0});
  auto a = std::make_shared<optim::ExponentialLR>(fresh, 0.9);
  auto b = std::make_shared<optim::StepLR>(fresh, 2);
  auto c = std::make_shared<optim::ExponentialLR>(fresh, 0.5);
  fresh.set_lr(0, 1.5);
  EXPECT_THROW(optim::SequentialLR(fresh, {}, {}), ValueError);
  EXPECT_THROW(optim::SequentialLR(fresh, {a, b}, {}), ValueError);
  EXPECT_THROW(optim::SequentialLR(fresh, {a, nullptr}, {1}), ValueError);
  EXPECT_THROW(optim::SequentialLR(fresh, {a, b, c}, {3, 1}), ValueError);
  EXPECT_THROW(optim::SequentialLR(other, {a, b}, {1}), ValueError);
  EXPECT_THROW(optim::SequentialLR(fresh, {a, std::make_shared<optim::StepLR>(other, 2)}, {1}),
               ValueError);
  EXPECT_EQ(fresh.lr(), 1.5);
  EXPECT_EQ(a->last_epoch(), 0);
  EXPECT_EQ(b->last_epoch(), 0);
}

// ReduceLROnPlateau: torch's refusals, a per-group floor, NaN metrics, cooldown, state.
TEST(TorchOptim, ReduceLROnPlateauRule) {
  Tensor p = ones({2}).requires_grad_(), q = ones({2}).requires_grad_();
  optim::SGD sgd(
      std::vector<optim::ParamGroup<optim::SGDOptions>>{{{p}, std::nullopt}, {{q}, std::nullopt}},
      {.lr = 1.0});
  EXPECT_THROW(optim::ReduceLROnPlateau(sgd, {.factor = 1.0}), ValueError);
  EXPECT_THROW(optim::ReduceLROnPlateau(sgd, {.factor = NAN}), ValueError);
  EXPECT_THROW(optim::ReduceLROnPlateau(sgd, {.min_lr = {0.1, 0.2, 0.3}}), ValueError);
  optim::ReduceLROnPlateau plateau(
      sgd, {.factor = 0.5, .patience = 1, .cooldown = 1, .min_lr = {0.3, 0.0}});
  EXPECT_EQ(sgd.lr(0), 1.0);  // construction changes no lr
  EXPECT_TRUE(plateau.get_last_lr().empty());
  plateau.step(1.0);  // best 1
  plateau.step(NAN);  // never better: bad 1
  EXPECT_EQ(plateau.best(), 1.0);
  EXPECT_EQ(plateau.num_bad_epochs(), 1);
  plateau.step(1.0);  // bad 2 > patience: both halved (0.5 is above group 0's floor 0.3)
  EXPECT_EQ(plateau.get_last_lr(), (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ(plateau.cooldown_counter(), 1);
  const nn::NamedTensors saved = plateau.state_dict();
  plateau.step(2.0);  // in cooldown: bad epochs are not counted
  EXPECT_EQ(plateau.num_bad_epochs(), 0);
  plateau.step(2.0);
  plateau.step(2.0);  // bad 2: 0.25 for group 1, group 0 floored at 0.3
  EXPECT_EQ(plateau.get_last_lr(), (std::vector<double>{0.3, 0.25}));
  EXPECT_EQ(plateau.last_epoch(), 6);
  // Loading the saved state rewinds the counters (not the lrs: those are the optimiser's).
  plateau.load_state_dict(saved);
  EXPECT_EQ(plateau.last_epoch(), 3);
  EXPECT_EQ(plateau.cooldown_counter(), 1);
  nn::NamedTensors wrong = saved;
  wrong.push_back("patience", zeros({}));
  EXPECT_THROW(plateau.load_state_dict(wrong), ValueError);
  EXPECT_THROW(plateau.load_state_dict({}), ValueError);
  EXPECT_EQ(plateau.last_epoch(), 3);
  // mode max, absolute threshold: 1.05 is not better than 1 + 0.1.
  optim::SGD other({p}, {.lr = 1.0});
  optim::ReduceLROnPlateau accuracy(other, {.mode = optim::PlateauMode::max,
                                            .patience = 0,
                                            .threshold = 0.1,
                                            .threshold_mode = optim::ThresholdMode::abs});
  accuracy.step(1.0);
  accuracy.step(1.05);
  EXPECT_EQ(accuracy.best(), 1.0);
  EXPECT_DOUBLE_EQ(other.lr(), 0.1);
}

TEST(TorchOptim, ClipGradRefusesAndSkips) {
  Tensor p = ones({2}).requires_grad_(), q = ones({2}).requires_grad_();
  EXPECT_EQ(nn::utils::clip_grad_norm_({p, q}, 1.0).item<float>(), 0.0f);  // no gradients
  p.mutable_grad() = tensor({3.0f, 4.0f});
  const Tensor total = nn::utils::clip_grad_norm_({p, q}, 1.0);
  EXPECT_FLOAT_EQ(total.item<float>(), 5.0f);
  EXPECT_NEAR(p.grad().to_vector<float>()[0], 0.6f, 1e-6);
  p.mutable_grad() = tensor({INFINITY, 1.0f});
  EXPECT_THROW(nn::utils::clip_grad_norm_({p}, 1.0, 2.0, true), ValueError);
  EXPECT_EQ(p.grad().to_vector<float>()[1], 1.0f);  // unchanged
  EXPECT_THROW(nn::utils::clip_grad_norm_({p}, 1.0, 0.0), ValueError);
  EXPECT_THROW(nn::utils::clip_grad_value_({p}, -1.0), ValueError);
  nn::utils::clip_grad_value_({p}, 0.5);
  EXPECT_EQ(p.grad().to_vector<float>()[0], 0.5f);
}

// Adagrad, RMSprop and Adadelta: torch's option checks, Adagrad's state from construction
// (its sums filled with the constructor's initial_accumulator_value, every group's), and
// load_state_dict's refusals.
TEST(TorchOptim, AdagradRMSpropAdadeltaStateAndRefusals) {
  Tensor p = zeros({2, 3}).requires_grad_(), q = zeros({2}).requires_grad_();
  EXPECT_THROW(optim::Adagrad({p}, {.lr_decay = -1}), ValueError);
  EXPECT_THROW(optim::Adagrad({p}, {.initial_accumulator_value = -0.5}), ValueError);
  EXPECT_THROW(optim::RMSprop({p}, {.alpha = -1}), ValueError);
  EXPECT_THROW(optim::RMSprop({p}, {.momentum = NAN}), ValueError);
  EXPECT_THROW(optim::Adadelta({p}, {.rho = 1.5}), ValueError);
  EXPECT_THROW(optim::Adadelta({p}, {.eps = -1e-6}), ValueError);
  optim::Adagrad adagrad(
      {{{p}, std::nullopt}, {{q}, optim::AdagradOptions{.initial_accumulator_value = 0.7}}},
      {.initial_accumulator_value = 0.25});
  const nn::NamedTensors fresh = adagrad.state_dict();
  ASSERT_TRUE(fresh.contains("state.1.sum"));  // before any step, as torch
  EXPECT_EQ(fresh.at("state.1.sum").to_vector<float>(), (std::vector<float>{0.25f, 0.25f}));
  EXPECT_EQ(fresh.at("state.0.step").item<float>(), 0.0f);
  EXPECT_EQ(adagrad.get(1, "initial_accumulator_value"), 0.7);
  // One step from a sum of 0.25 with gradient 1: p = -lr * 1 / (sqrt(1.25) + eps).
  q.mutable_grad() = ones({2});
  adagrad.step();
  EXPECT_NEAR(q.to_vector<float>()[0], -0.01 / std::sqrt(1.25), 1e-8);
  EXPECT_EQ(p.to_vector<float>()[0], 0.0f);  // no gradient: skipped
  optim::Adagrad other({{{p}, std::nullopt}, {{q}, std::nullopt}}, {});
  other.load_state_dict(adagrad.state_dict());
  EXPECT_EQ(other.state_dict().at("state.1.step").item<float>(), 1.0f);

  optim::RMSprop rmsprop({p}, {.momentum = 0.0});
  p.mutable_grad() = ones({2, 3});
  rmsprop.step();
  nn::NamedTensors state = rmsprop.state_dict();
  EXPECT_EQ(state.at("state.0.step").dtype(), DType::int64);  // torch keeps a Python int
  EXPECT_FALSE(state.contains("state.0.momentum_buffer"));
  state.push_back("state.0.momentum_buffer", zeros({2, 3}));
  EXPECT_THROW(rmsprop.load_state_dict(state), ValueError);  // momentum is 0
  optim::RMSprop centered({p}, {.centered = true});
  EXPECT_THROW(centered.load_state_dict(rmsprop.state_dict()), ValueError);  // no grad_avg
  nn::NamedTensors zero_step;
  zero_step.push_back("state.0.step", full({}, 0.0));
  zero_step.push_back("state.0.square_avg", zeros({2, 3}));
  EXPECT_THROW(rmsprop.load_state_dict(zero_step), ValueError);
  EXPECT_EQ(rmsprop.state_dict().at("state.0.step").item<std::int64_t>(), 1);  // unchanged

  optim::Adadelta adadelta({p});
  adadelta.step();
  nn::NamedTensors partial;
  partial.push_back("state.0.step", full({}, 1.0));
  partial.push_back("state.0.square_avg", zeros({2, 3}));
  EXPECT_THROW(adadelta.load_state_dict(partial), ValueError);  // acc_delta missing
  partial.push_back("state.0.acc_delta", zeros({3, 2}));
  EXPECT_THROW(adadelta.load_state_dict(partial), ShapeError);
}
