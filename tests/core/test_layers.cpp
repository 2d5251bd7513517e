// SPDX-License-Identifier: Apache-2.0
// Layers and losses: values against hand computations (PyTorch's formulas),
// train/eval, and the companion article's criterion.cuda() case on a second device.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <hetero/hetero.hpp>

namespace {
using namespace hetero;

TEST(Layers, FlattenKeepsTheBatchDimension) {
  nn::Flatten f;
  EXPECT_EQ(f(zeros({5, 8, 8})).shape(), (Shape{5, 64}));
  EXPECT_EQ(nn::Flatten(0, -1)(zeros({2, 3})).shape(), (Shape{6}));
  EXPECT_EQ(nn::Flatten(1, 2)(zeros({2, 3, 4, 5})).shape(), (Shape{2, 12, 5}));
  EXPECT_THROW(nn::Flatten(3)(zeros({2, 3})), IndexError);
  EXPECT_THROW(nn::Flatten(1, 0)(zeros({2, 3})), ShapeError);
}

TEST(Layers, SigmoidValues) {
  const auto v = nn::Sigmoid()(tensor({0.0, 2.0})).to_vector<double>();
  EXPECT_NEAR(v[0], 0.5, 1e-7);
  EXPECT_NEAR(v[1], 1 / (1 + std::exp(-2.0)), 1e-7);
}

TEST(Layers, DropoutTrainAndEval) {
  manual_seed(3);
  nn::Dropout d(0.25);
  const Tensor x = ones({10000});
  const auto y = d(x).to_vector<float>();
  int kept = 0;
  for (float v : y) {
    if (v != 0) {
      EXPECT_FLOAT_EQ(v, 1 / 0.75f);
      ++kept;
    }
  }
  EXPECT_NEAR(kept / 10000.0, 0.75, 0.02);
  d.eval();
  EXPECT_TRUE(d(x).is_same(x));
  d.train();
  EXPECT_EQ(nn::Dropout(1.0)(x).sum().item<float>(), 0.0f);
  EXPECT_THROW(nn::Dropout(1.5), ValueError);  // as torch (a ShapeError before)
  // Integer input: p 0 and 1 keep the dtype (1 gives zeros), between them a DTypeError (torch:
  // "result type Float can't be cast to the desired output type Long").
  const Tensor ints = tensor({3, 4});
  EXPECT_TRUE(nn::dropout(ints, 0.0).is_same(ints));
  EXPECT_EQ(nn::dropout(ints, 1.0).dtype(), DType::int64);
  EXPECT_EQ(nn::dropout(ints, 1.0).to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 0}));
  EXPECT_THROW(nn::dropout(ints, 0.5), DTypeError);
}

TEST(Losses, MseAndCrossEntropyValues) {
  EXPECT_NEAR(nn::MSELoss()(tensor({1.0, 2.0, 3.0}), tensor({1.0, 0.0, 0.0})).item<double>(),
              (4 + 9) / 3.0, 1e-6);
  EXPECT_THROW(nn::MSELoss()(zeros({2}), zeros({3})), ShapeError);

  // logits [[1, 2, 3], [1, 1, 1]], targets [2, 0]; weight [1, 2, 3].
  const Tensor logits = tensor({{1.0, 2.0, 3.0}, {1.0, 1.0, 1.0}});
  const Tensor target = tensor({2, 0});
  const double lse0 = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0)),
               lse1 = 1.0 + std::log(3.0);
  const double l0 = lse0 - 3.0, l1 = lse1 - 1.0;
  EXPECT_NEAR(nn::CrossEntropyLoss()(logits, target).item<double>(), (l0 + l1) / 2, 1e-6);
  nn::CrossEntropyLoss weighted(tensor({1.0, 2.0, 3.0}));
  EXPECT_NEAR(weighted(logits, target).item<double>(), (3 * l0 + 1 * l1) / (3 + 1), 1e-6);
  EXPECT_THROW(weighted(logits, tensor({2.0, 0.0})), DTypeError);
  EXPECT_THROW(weighted(logits, tensor({2, 0, 1})), ShapeError);
  EXPECT_THROW(nn::CrossEntropyLoss(ones({2, 2})), ShapeError);
  // A weight of another dtype than the logits: DTypeError, as torch (float64 weights beside
  // float32 logits gave a float64 loss).
  const Tensor weight64 = tensor({1.0, 2.0, 3.0}).to(DType::float64);
  EXPECT_THROW(nn::CrossEntropyLoss{weight64}(logits, target), DTypeError);
  EXPECT_THROW(weighted(logits.to(DType::float64), target), DTypeError);
  EXPECT_THROW(weighted(logits.to(DType::float16), target), DTypeError);
  EXPECT_EQ(nn::CrossEntropyLoss(weight64)(logits.to(DType::float64), target).dtype(),
            DType::float64);
}

// CrossEntropyLoss's torch arguments where the random cases of test_torch_layers do not reach
// (values from torch 1.13).
TEST(Losses, CrossEntropyReductionsIgnoreIndexAndSmoothing) {
  const Tensor x = tensor({{1.0, 2.0, 3.0}, {1.0, 1.0, 1.0}, {0.0, 5.0, 1.0}});
  const Tensor t = from_vector<std::int64_t>({2, -100, 1}, {3});
  EXPECT_NEAR(nn::CrossEntropyLoss()(x, t).item<float>(), 0.2162f, 1e-4);
  const Tensor none = nn::CrossEntropyLoss({.reduction = nn::Reduction::none})(x, t);
  ASSERT_EQ(none.shape(), (Shape{3}));
  EXPECT_NEAR(none.to_vector<float>()[0], 0.4076f, 1e-4);
  EXPECT_EQ(none.to_vector<float>()[1], 0.0f);  // ignored
  EXPECT_NEAR(nn::CrossEntropyLoss({.reduction = nn::Reduction::sum})(x, t).item<float>(), 0.4324f,
              1e-4);
  EXPECT_NEAR(nn::CrossEntropyLoss({.label_smoothing = 0.2})(x, t).item<float>(), 0.6162f, 1e-4);
  // Every target ignored: the mean of nothing, NaN (as torch).
  EXPECT_TRUE(std::isnan(
      nn::CrossEntropyLoss()(x, from_vector<std::int64_t>({-100, -100, -100}, {3})).item<float>()));
  // [N, C, d]: one loss per position.
  const Tensor x3 = arange(12).to(DType::float32).reshape({2, 3, 2}) / 5.0;
  const Tensor l3 = nn::CrossEntropyLoss({.reduction = nn::Reduction::none})(
      x3, from_vector<std::int64_t>({0, 2, 1, 1}, {2, 2}));
  ASSERT_EQ(l3.shape(), (Shape{2, 2}));
  EXPECT_NEAR(l3.to_vector<float>()[0], 1.5513f, 1e-4);
  EXPECT_NEAR(l3.to_vector<float>()[3], 1.1513f, 1e-4);
  // Unchecked targets: an ignored one counts nothing, an out-of-range one is NaN.
  EXPECT_NEAR(nn::CrossEntropyLoss({.check_targets = false})(x, t).item<float>(), 0.2162f, 1e-4);
  EXPECT_TRUE(std::isnan(
      nn::CrossEntropyLoss({.check_targets = false})(x, from_vector<std::int64_t>({2, 7, 1}, {3}))
          .item<float>()));
  EXPECT_THROW(nn::CrossEntropyLoss()(x, from_vector<std::int64_t>({2, -1, 1}, {3})), IndexError);
  EXPECT_THROW(nn::CrossEntropyLoss({.label_smoothing = 1.5}), ValueError);
  EXPECT_THROW(nn::CrossEntropyLoss({.ignore_index = 0})(x, softmax(x, 1)), ValueError);
  // Class probabilities of another floating dtype: the loss in the promoted dtype, as torch
  // 1.13 (hetero raised DTypeError); an integral target of the input's shape is torch's
  // "Expected floating point type for target with class probabilities".
  const Tensor p64 = softmax(x, 1).to(DType::float64);
  Tensor logits = x.to(DType::float32).requires_grad_();
  const Tensor promoted = nn::CrossEntropyLoss()(logits, p64);
  EXPECT_EQ(promoted.dtype(), DType::float64);
  EXPECT_NEAR(promoted.item<double>(),
              nn::CrossEntropyLoss()(x.to(DType::float64), p64).item<double>(), 1e-6);
  promoted.backward();
  EXPECT_EQ(logits.grad().dtype(), DType::float32);
  EXPECT_THROW(nn::CrossEntropyLoss()(x, ones({3, 3}, DType::int32)), DTypeError);
  EXPECT_THROW(nn::CrossEntropyLoss()(x, ones({3, 3}, DType::int64)), DTypeError);

  // 16-bit logits with more classes than the dtype counts exactly: the one-hot rows were
  // computed in the logits' dtype, where bfloat16 has classes 300 and 301 as one value (and
  // float16 2048 and 2049), so the loss was 7.44 (bfloat16) and 4.72 (float16) where the
  // float32 loss of the same logits is 3.0543 (torch 1.13's bfloat16: 3.0625).
  Tensor many = zeros({2, 3000});
  {
    NoGradGuard no_grad;
    many[0].narrow(0, 301, 1).copy_(full({1}, 5.0));
    many[1].narrow(0, 2049, 1).copy_(full({1}, 5.0));
  }
  const Tensor labels = from_vector<std::int64_t>({301, 2049}, {2});
  const float exact = nn::CrossEntropyLoss()(many, labels).item<float>();
  EXPECT_NEAR(exact, 3.0543f, 1e-4);
  for (const DType d : {DType::bfloat16, DType::float16})
    EXPECT_NEAR(nn::CrossEntropyLoss()(many.to(d), labels).to(DType::float32).item<float>(), exact,
                0.02f)
        << dtype_name(d);
}

// The regression and binary losses at the edges the random cases of test_torch_layers keep
// away from, and what they refuse (values and errors from torch 1.13).
TEST(Losses, RegressionAndBinaryLossesAtTheirEdges) {
  // BCELoss clamps each log at -100: inputs of exactly 0 and 1 give 100, not inf, and the
  // gradient is torch's (x - y) / max((1 - x) x, 1e-12), -3.3e11 and 3.3e11 here (the mean's
  // 1/3 included).
  Tensor x = from_vector<float>({0, 1, 0.5}, {3}).requires_grad_();
  const Tensor y = from_vector<float>({1, 0, 0.5}, {3});
  const Tensor each = nn::BCELoss({}, nn::Reduction::none)(x, y);
  EXPECT_EQ(each.to_vector<float>()[0], 100.0f);
  EXPECT_EQ(each.to_vector<float>()[1], 100.0f);
  EXPECT_NEAR(each.to_vector<float>()[2], 0.6931f, 1e-4);
  nn::BCELoss()(x, y).backward();
  EXPECT_NEAR(x.grad().to_vector<float>()[0], -3.3333e11f, 1e7);
  EXPECT_NEAR(x.grad().to_vector<float>()[1], 3.3333e11f, 1e7);
  EXPECT_EQ(x.grad().to_vector<float>()[2], 0.0f);
  // Logits of +-100: the stable form gives 100 where log(sigmoid) would give inf.
  const Tensor logits = nn::BCEWithLogitsLoss({.reduction = nn::Reduction::none})(
      from_vector<float>({-100, 100, 0}, {3}), from_vector<float>({1, 0, 1}, {3}));
  EXPECT_NEAR(logits.to_vector<float>()[0], 100.0f, 1e-4);
  EXPECT_NEAR(logits.to_vector<float>()[1], 100.0f, 1e-4);
  EXPECT_NEAR(logits.to_vector<float>()[2], 0.6931f, 1e-4);
  // Refused as torch refuses.
  EXPECT_THROW(nn::BCELoss()(from_vector<float>({1.5f}, {1}), y.narrow(0, 0, 1)), ValueError);
  EXPECT_THROW(nn::BCELoss()(from_vector<float>({NAN}, {1}), y.narrow(0, 0, 1)), ValueError);
  EXPECT_THROW(nn::BCELoss()(x, zeros({2})), ShapeError);
  EXPECT_THROW(nn::BCELoss()(x.detach(), y.to(DType::float64)), DTypeError);
  EXPECT_THROW(nn::BCEWithLogitsLoss({.pos_weight = ones({2})})(x.detach(), y), ShapeError);
  EXPECT_THROW(nn::SmoothL1Loss(nn::Reduction::mean, -1), ValueError);
  EXPECT_THROW(nn::HuberLoss(nn::Reduction::mean, 0), ValueError);
  EXPECT_THROW(nn::L1Loss()(x, zeros({2})), ShapeError);
  // SmoothL1Loss with beta 0 is L1Loss (no division by 0).
  EXPECT_EQ(nn::SmoothL1Loss(nn::Reduction::sum, 0)(y, zeros({3})).item<float>(), 1.5f);
  // NLLLoss of log-probabilities is CrossEntropyLoss of the logits.
  const Tensor z = tensor({{1.0, 2.0, 3.0}, {1.0, 1.0, 1.0}});
  const Tensor t = from_vector<std::int64_t>({2, 0}, {2});
  EXPECT_NEAR(nn::NLLLoss()(log_softmax(z, 1), t).item<float>(),
              nn::CrossEntropyLoss()(z, t).item<float>(), 1e-6);
  EXPECT_THROW(nn::NLLLoss()(z, from_vector<std::int64_t>({3, 0}, {2})), IndexError);
}

TEST(Losses, KLDivergenceAsTorch) {
  // torch: x = [[-1, -2, -0.5], [-0.3, -3, -1]], t = [[0, .5, .5], [.2, 0, .8]]:
  // kl_div(x, t, reduction=r) is 0.1527 (mean), 0.4582 (batchmean), 0.9165 (sum); the input's
  // gradient of the sum is -t; the target's is log t + 1 - x, NaN where t is 0.
  Tensor x = tensor({{-1.0, -2.0, -0.5}, {-0.3, -3.0, -1.0}}).requires_grad_();
  Tensor t = tensor({{0.0, 0.5, 0.5}, {0.2, 0.0, 0.8}}).requires_grad_();
  using R = nn::KLDivReduction;
  EXPECT_NEAR(nn::KLDivLoss()(x, t).item<float>(), 0.1527f, 1e-4);
  EXPECT_NEAR(nn::KLDivLoss({.reduction = R::batchmean})(x, t).item<float>(), 0.4582f, 1e-4);
  const Tensor total = nn::KLDivLoss({.reduction = R::sum})(x, t);
  EXPECT_NEAR(total.item<float>(), 0.9165f, 1e-4);
  total.backward();
  EXPECT_TRUE(equal(x.grad(), -t.detach()));
  const auto gt = t.grad().to_vector<float>();
  EXPECT_TRUE(std::isnan(gt[0]) && std::isnan(gt[4]));
  EXPECT_NEAR(gt[1], 2.3069f, 1e-4);
  // The pointwise values: 0 where t is 0; with log_target the same divergence.
  const auto each = nn::KLDivLoss({.reduction = R::none})(x, t).to_vector<float>();
  EXPECT_EQ(each[0], 0.0f);
  EXPECT_NEAR(each[1], 0.6534f, 1e-4);
  const Tensor logt = log(tensor({{0.1, 0.5, 0.4}, {0.2, 0.1, 0.7}}));
  EXPECT_NEAR(nn::KLDivLoss({.reduction = R::sum, .log_target = true})(x, logt).item<float>(),
              nn::KLDivLoss({.reduction = R::sum})(x, exp(logt)).item<float>(), 1e-5);
  // batchmean of a 0-d input is its sum; of no samples NaN (0 / 0); a target broadcasts.
  EXPECT_NEAR(
      nn::KLDivLoss({.reduction = R::batchmean})(full({}, -1.0), full({}, 0.5)).item<float>(),
      0.1534f, 1e-4);
  EXPECT_TRUE(std::isnan(
      nn::KLDivLoss({.reduction = R::batchmean})(zeros({0, 3}), zeros({0, 3})).item<float>()));
  EXPECT_NEAR(nn::KLDivLoss({.reduction = R::sum})(zeros({2, 3}), full({3}, 0.5)).item<float>(),
              -2.0794f, 1e-4);
  // "kl_div: Integral inputs not supported."; shapes that do not broadcast.
  EXPECT_THROW(nn::KLDivLoss()(zeros({2}, TensorOptions().dtype(DType::int64)), ones({2})),
               DTypeError);
  EXPECT_THROW(nn::KLDivLoss()(zeros({2}), ones({2}, TensorOptions().dtype(DType::int64))),
               DTypeError);
  EXPECT_THROW(nn::KLDivLoss()(zeros({2, 3}), zeros({3, 2})), ShapeError);
}

// As torch's named_parameters() (remove_duplicate=True): a module shared by two parents, or
// a weight tied between two modules, is listed once under its first name. Listed twice
// (before), an optimiser stepped it twice per step.
TEST(Modules, ASharedModuleOrTiedWeightIsListedOnceAndSteppedOnce) {
  auto shared = std::make_shared<nn::Linear>(2, 2);
  nn::Sequential s;
  s.push_back(shared);
  s.push_back(shared);
  std::vector<std::string> names;
  for (const auto& [n, t] : s.named_parameters()) names.push_back(n);
  EXPECT_EQ(names, (std::vector<std::string>{"0.weight", "0.bias"}));
  ASSERT_EQ(s.parameters().size(), 2u);
  const Tensor before = shared->weight().detach().clone();
  s.forward(ones({1, 2})).sum().backward();
  optim::SGD sgd(s.parameters(), {.lr = 0.5});
  sgd.step();
  const Tensor once = before - shared->weight().grad() * 0.5;
  EXPECT_TRUE(allclose(shared->weight().detach(), once)) << "stepped twice";

  // Tied weights, as a language model's embedding and output layer.
  auto first = std::make_shared<nn::Linear>(3, 3, false);
  auto second = std::make_shared<nn::Linear>(3, 3, false);
  second->parameter("weight") = first->parameter("weight");
  nn::Sequential tied;
  tied.push_back(first);
  tied.push_back(second);
  EXPECT_EQ(tied.parameters().size(), 1u);
  EXPECT_TRUE(tied.named_parameters().contains("0.weight"));
  // Saved once and loaded back into the same structure.
  const auto path = std::filesystem::temp_directory_path() / "hetero_tied_weights.safetensors";
  save(tied, path);
  EXPECT_EQ(load_file(path).size(), 1u);
  load(tied, path);
  std::filesystem::remove(path);

  // A shared BatchNorm's buffers, once each.
  auto norm = std::make_shared<nn::BatchNorm1d>(2);
  nn::Sequential norms;
  norms.push_back(norm);
  norms.push_back(norm);
  EXPECT_EQ(norms.named_buffers().size(), 3u);
}

}  // namespace
