// SPDX-License-Identifier: Apache-2.0
#include "torch_peer.hpp"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/csrc/api/include/torch/version.h>

#include <cmath>
#include <memory>
#include <optional>
#include <vector>

namespace bench::torch {

void set_threads(int threads) { at::set_num_threads(threads); }
std::string version() { return "libtorch " TORCH_VERSION; }

std::function<void()> gemm(std::int64_t n, bool f64) {
  const auto dt = f64 ? at::kDouble : at::kFloat;
  at::Tensor a = at::rand({n, n}, dt), b = at::rand({n, n}, dt);
  return [a, b] { at::Tensor c = a.matmul(b); };
}

std::function<void()> add_2x3() {
  at::Tensor a = at::ones({2, 3}), b = at::ones({2, 3});
  return [a, b] { at::Tensor c = a + b; };
}

std::function<void()> ones_2x3() {
  return [] { at::Tensor c = at::ones({2, 3}); };
}

std::function<void()> matmul_2x2() {
  at::Tensor a = at::rand({2, 2}), b = at::rand({2, 2});
  return [a, b] { at::Tensor c = a.matmul(b); };
}

std::function<void()> matmul_100() {
  at::Tensor a = at::rand({100, 100}), b = at::rand({100, 100});
  return [a, b] { at::Tensor c = a.matmul(b); };
}

std::function<void()> exercise1() {
  return [] {
    for (int i = 0; i < 100; ++i) {
      at::Tensor A = at::ones({500, 500}), B = at::ones({500, 500});
      at::Tensor C = A.matmul(B);
    }
  };
}

std::function<void()> exercise3(bool per_step) {
  at::Tensor a = at::rand({100, 100}), b = at::rand({100, 100});
  return [a, b, per_step] {
    if (per_step) {
      std::vector<float> norms;
      norms.reserve(1000);
      for (int i = 0; i < 1000; ++i) norms.push_back(a.matmul(b).norm().item<float>());
    } else {
      at::Tensor log = at::empty({1000});
      for (int i = 0; i < 1000; ++i) log[i] = a.matmul(b).norm();
      std::vector<float> norms(log.data_ptr<float>(), log.data_ptr<float>() + 1000);
    }
  };
}

std::function<void()> large_op(const std::string& name, bool into_out) {
  // "<op>_f16": the same op on float16 operands, with a float16 result.
  const bool half = name.ends_with("_f16");
  const std::string op = half ? name.substr(0, name.size() - 4) : name;
  const auto type = half ? at::kHalf : at::kFloat;
  const at::Tensor x = at::rand({4096, 4096}).to(type), y = at::rand({4096, 4096}).to(type);
  const std::vector<std::int64_t> all{0, 1};
  if (op == "sum_i32" || op == "sum_u8") {  // integers 0..99, summed into int64 (torch.sum's)
    const at::Tensor xi = (x * 100).to(op == "sum_i32" ? at::kInt : at::kByte);
    at::Tensor out = at::empty({}, at::kLong);
    if (into_out) return [xi, out, all]() mutable { at::sum_out(out, xi, all); };
    return [xi] { at::Tensor r = xi.sum(); };
  }
  if (op == "rand" || op == "randn") {
    const bool normal = op == "randn";
    at::Tensor out = at::empty({4096, 4096});
    if (into_out) return [out, normal]() mutable { normal ? out.normal_() : out.uniform_(); };
    return [normal] { at::Tensor r = normal ? at::randn({4096, 4096}) : at::rand({4096, 4096}); };
  }
  if (op == "sum") {
    at::Tensor out = at::empty({}, type);
    if (into_out) return [x, out, all]() mutable { at::sum_out(out, x, all); };
    return [x] { at::Tensor r = x.sum(); };
  }
  if (op == "sum0" || op == "sum1") {
    const std::int64_t dim = op == "sum0" ? 0 : 1;
    at::Tensor out = at::empty({4096});
    if (into_out) return [x, out, dim]() mutable { at::sum_out(out, x, {dim}); };
    return [x, dim] { at::Tensor r = x.sum(dim); };
  }
  if (op == "sum_t1" || op == "max_t1") {  // a row reduction of the transposed view
    at::Tensor out = at::empty({4096}, type);
    const bool sum = op == "sum_t1";
    if (into_out)
      return [x, out, sum]() mutable {
        sum ? at::sum_out(out, x.t(), {1}) : at::amax_out(out, x.t(), {1});
      };
    return [x, sum] { at::Tensor r = sum ? x.t().sum(1) : x.t().amax(1); };
  }
  if (op == "argmax0") {
    at::Tensor out = at::empty({4096}, at::kLong);
    if (into_out) return [x, out]() mutable { at::argmax_out(out, x, 0); };
    return [x] { at::Tensor r = x.argmax(0); };
  }
  if (op == "max") {
    at::Tensor out = at::empty({}, type);
    if (into_out) return [x, out, all]() mutable { at::amax_out(out, x, all); };
    return [x] { at::Tensor r = x.max(); };
  }
  if (op == "max0") {
    at::Tensor out = at::empty({4096});
    if (into_out) return [x, out]() mutable { at::amax_out(out, x, {0}); };
    return [x] { at::Tensor r = x.amax(0); };
  }
  if (op == "argmax") {
    at::Tensor out = at::empty({}, at::kLong);
    if (into_out) return [x, out]() mutable { at::argmax_out(out, x); };
    return [x] { at::Tensor r = x.argmax(); };
  }
  if (op == "mean_rows64" || op == "max_rows64" || op == "argmax_rows64") {
    const at::Tensor rows = x.view({262144, 64});
    at::Tensor out = at::empty({262144}, op == "argmax_rows64" ? at::kLong : type);
    if (op == "mean_rows64") {
      if (into_out) return [rows, out]() mutable { at::mean_out(out, rows, {1}); };
      return [rows] { at::Tensor r = rows.mean(1); };
    }
    if (op == "max_rows64") {
      if (into_out) return [rows, out]() mutable { at::amax_out(out, rows, {1}); };
      return [rows] { at::Tensor r = rows.amax(1); };
    }
    if (into_out) return [rows, out]() mutable { at::argmax_out(out, rows, 1); };
    return [rows] { at::Tensor r = rows.argmax(1); };
  }
  if (op == "add") {
    at::Tensor out = at::empty({4096, 4096}, type);
    if (into_out) return [x, y, out]() mutable { at::add_out(out, x, y); };
    return [x, y] { at::Tensor r = x + y; };
  }
  if (op == "transpose") {
    at::Tensor out = at::empty({4096, 4096}, type);
    if (into_out) return [x, out]() mutable { out.copy_(x.t()); };
    return [x] { at::Tensor r = x.t().contiguous(); };
  }
  if (op == "to_float16" || op == "to_bfloat16") {
    const auto t = op == "to_float16" ? at::kHalf : at::kBFloat16;
    at::Tensor out = at::empty({4096, 4096}, t);
    if (into_out) return [x, out]() mutable { out.copy_(x); };
    return [x, t] { at::Tensor r = x.to(t); };
  }
  if (op == "from_float16") {
    const at::Tensor h = x.to(at::kHalf);
    at::Tensor out = at::empty({4096, 4096});
    if (into_out) return [h, out]() mutable { out.copy_(h); };
    return [h] { at::Tensor r = h.to(at::kFloat); };
  }
  if (op == "softmax1" || op == "softmax0") {
    const std::int64_t dim = op == "softmax0" ? 0 : 1;
    at::Tensor out = at::empty({4096, 4096});
    if (into_out) return [x, out, dim]() mutable { at::_softmax_out(out, x, dim, false); };
    return [x, dim] { at::Tensor r = x.softmax(dim); };
  }
  at::Tensor out = at::empty({4096, 4096}, type);
  if (op == "mul2") {
    if (into_out) return [x, out]() mutable { at::mul_out(out, x, at::scalar_tensor(2.0)); };
    return [x] { at::Tensor r = x * 2; };
  }
  if (op == "relu") {
    if (into_out) return [x, out]() mutable { at::clamp_min_out(out, x, 0); };
    return [x] { at::Tensor r = x.relu(); };
  }
  if (op == "tanh") {
    if (into_out) return [x, out]() mutable { at::tanh_out(out, x); };
    return [x] { at::Tensor r = x.tanh(); };
  }
  if (op == "sigmoid") {
    if (into_out) return [x, out]() mutable { at::sigmoid_out(out, x); };
    return [x] { at::Tensor r = x.sigmoid(); };
  }
  if (into_out) return [x, out]() mutable { at::exp_out(out, x); };  // exp
  return [x] { at::Tensor r = x.exp(); };
}

}  // namespace bench::torch

namespace bench::torch {

std::function<void()> conv2d_step(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t o,
                                  std::int64_t k, std::int64_t padding, std::int64_t stride,
                                  bool backward, bool bfloat16, bool transposed) {
  const auto dtype = bfloat16 ? at::kBFloat16 : at::kFloat;
  at::Tensor x = at::rand({n, c, h, h}).to(dtype).requires_grad_(backward),
             w = (transposed ? at::rand({c, o, k, k}) : at::rand({o, c, k, k}))
                     .to(dtype)
                     .requires_grad_(backward),
             b = at::rand({o}).to(dtype).requires_grad_(backward);
  return [x, w, b, padding, stride, backward, transposed]() mutable {
    at::Tensor y = transposed ? at::conv_transpose2d(x, w, b, stride, padding)
                              : at::conv2d(x, w, b, stride, padding);
    if (!backward) return;
    y.backward(at::ones_like(y));
    x.mutable_grad().reset();
    w.mutable_grad().reset();
    b.mutable_grad().reset();
  };
}

std::function<void()> pool2d_step(const std::string& kind, std::int64_t n, std::int64_t c,
                                  std::int64_t h, std::int64_t k, std::int64_t s, std::int64_t p,
                                  bool backward) {
  const std::int64_t blocks = (h + 2 * p - k) / s + 1;  // fold's input: unfold's output
  at::Tensor x =
      (kind == "fold" ? at::rand({n, c * k * k, blocks * blocks}) : at::rand({n, c, h, h}))
          .requires_grad_(backward);
  return [x, kind, h, k, s, p, backward]() mutable {
    at::Tensor y = kind == "max"            ? at::max_pool2d(x, k, s, p)
                   : kind == "avg"          ? at::avg_pool2d(x, k, s, p)
                   : kind == "adaptive_max" ? std::get<0>(at::adaptive_max_pool2d(x, {k, k}))
                   : kind == "unfold"       ? at::im2col(x, {k, k}, {1, 1}, {p, p}, {s, s})
                   : kind == "fold"         ? at::col2im(x, {h, h}, {k, k}, {1, 1}, {p, p}, {s, s})
                                            : at::adaptive_avg_pool2d(x, {1, 1});
    if (!backward) return;
    y.backward(at::ones_like(y));
    x.mutable_grad().reset();
  };
}

std::function<void()> volume_step(const std::string& kind, std::int64_t n, std::int64_t c,
                                  std::int64_t d, std::int64_t h, std::int64_t o, std::int64_t k,
                                  std::int64_t p, bool backward) {
  at::Tensor x = at::rand({n, c, d, h, h}).requires_grad_(backward),
             w = (kind == "tconv3d" ? at::rand({c, o, k, k, k}) : at::rand({o, c, k, k, k}))
                     .requires_grad_(backward),
             b = at::rand({o}).requires_grad_(backward);
  return [x, w, b, kind, k, p, backward]() mutable {
    at::Tensor y = kind == "conv3d"    ? at::conv3d(x, w, b, 1, p)
                   : kind == "tconv3d" ? at::conv_transpose3d(x, w, b, k)
                                       : at::max_pool3d(x, k);
    if (!backward) return;
    y.backward(at::ones_like(y));
    for (at::Tensor* t : {&x, &w, &b})
      if (t->mutable_grad().defined()) t->mutable_grad().reset();
  };
}

std::function<void()> batch_norm_step(std::int64_t n, std::int64_t c, std::int64_t h,
                                      bool backward) {
  at::Tensor x = at::rand({n, c, h, h}).requires_grad_(backward),
             w = at::ones({c}).requires_grad_(backward),
             b = at::zeros({c}).requires_grad_(backward), mean = at::zeros({c}),
             var = at::ones({c});
  return [x, w, b, mean, var, backward]() mutable {
    at::Tensor y = at::batch_norm(x, w, b, mean, var, true, 0.1, 1e-5, false);
    if (!backward) return;
    y.backward(at::ones_like(y));
    x.mutable_grad().reset();
    w.mutable_grad().reset();
    b.mutable_grad().reset();
  };
}

std::function<void()> lenet_step(std::int64_t batch) {
  struct LeNet {
    std::vector<at::Tensor> p;  // c1 w b, c2 w b, f1 w b, f2 w b, f3 w b
  };
  auto net = std::make_shared<LeNet>();
  for (const auto& s : std::vector<std::vector<std::int64_t>>{{6, 1, 5, 5},
                                                              {6},
                                                              {16, 6, 5, 5},
                                                              {16},
                                                              {120, 400},
                                                              {120},
                                                              {84, 120},
                                                              {84},
                                                              {10, 84},
                                                              {10}})
    net->p.push_back((at::rand(s) * 0.2 - 0.1).requires_grad_());
  at::Tensor x = at::rand({batch, 1, 28, 28}), y = at::randint(0, 10, {batch});
  return [net, x, y] {
    auto& p = net->p;
    at::Tensor h = at::avg_pool2d(at::sigmoid(at::conv2d(x, p[0], p[1], 1, 2)), 2, 2);
    h = at::avg_pool2d(at::sigmoid(at::conv2d(h, p[2], p[3])), 2, 2).flatten(1);
    h = at::sigmoid(at::linear(h, p[4], p[5]));
    h = at::sigmoid(at::linear(h, p[6], p[7]));
    at::Tensor loss = at::cross_entropy_loss(at::linear(h, p[8], p[9]), y);
    loss.backward();
    at::NoGradGuard no_grad;
    for (auto& t : p) {
      t.sub_(t.grad() * 0.9);
      t.mutable_grad().reset();
    }
  };
}

namespace {

// torch's default initialisation of a layer's weight and bias: uniform in +-1/sqrt(fan_in).
at::Tensor uniform_param(at::IntArrayRef shape, std::int64_t fan_in) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
  return ((at::rand(shape) * 2 - 1) * bound).requires_grad_();
}

struct Conv {
  at::Tensor w, b;
  std::int64_t stride, padding;
  Conv(std::int64_t in, std::int64_t out, std::int64_t k, std::int64_t stride_,
       std::int64_t padding_)
      : w(uniform_param({out, in, k, k}, in * k * k)),
        b(uniform_param({out}, in * k * k)),
        stride(stride_),
        padding(padding_) {}
  at::Tensor operator()(const at::Tensor& x) const { return at::conv2d(x, w, b, stride, padding); }
};

// BatchNorm2d in training mode (momentum 0.1, eps 1e-5), its running statistics updated.
struct BatchNorm {
  at::Tensor w, b, mean, var;
  explicit BatchNorm(std::int64_t c)
      : w(at::ones({c}).requires_grad_()),
        b(at::zeros({c}).requires_grad_()),
        mean(at::zeros({c})),
        var(at::ones({c})) {}
  at::Tensor operator()(const at::Tensor& x) const {
    return at::batch_norm(x, w, b, mean, var, true, 0.1, 1e-5, false);
  }
};

// D2L's Residual: relu(bn2(conv2(relu(bn1(conv1(x))))) + shortcut(x)).
struct Residual {
  Conv conv1, conv2;
  std::optional<Conv> conv3;
  BatchNorm bn1, bn2;
  Residual(std::int64_t in, std::int64_t c, bool use_1x1, std::int64_t stride)
      : conv1(in, c, 3, stride, 1), conv2(c, c, 3, 1, 1), bn1(c), bn2(c) {
    if (use_1x1) conv3.emplace(in, c, 1, stride, 0);
  }
  at::Tensor operator()(const at::Tensor& x) const {
    const at::Tensor y = bn2(conv2(at::relu(bn1(conv1(x)))));
    return at::relu(y + (conv3 ? (*conv3)(x) : x));
  }
};

struct ResNet18 {
  Conv stem{1, 64, 7, 2, 3};
  BatchNorm stem_bn{64};
  std::vector<Residual> blocks;
  at::Tensor fc_w = uniform_param({10, 512}, 512), fc_b = uniform_param({10}, 512);
  std::vector<at::Tensor> params, momentum;

  ResNet18() {
    const std::int64_t widths[] = {64, 64, 128, 256, 512};
    for (int s = 1; s <= 4; ++s) {
      blocks.emplace_back(widths[s - 1], widths[s], s > 1, s > 1 ? 2 : 1);
      blocks.emplace_back(widths[s], widths[s], false, 1);
    }
    params = {stem.w, stem.b, stem_bn.w, stem_bn.b, fc_w, fc_b};
    for (const Residual& r : blocks) {
      for (const Conv* c : {&r.conv1, &r.conv2}) params.insert(params.end(), {c->w, c->b});
      if (r.conv3) params.insert(params.end(), {r.conv3->w, r.conv3->b});
      for (const BatchNorm* n : {&r.bn1, &r.bn2}) params.insert(params.end(), {n->w, n->b});
    }
    momentum.resize(params.size());
  }
  at::Tensor operator()(const at::Tensor& x) const {
    at::Tensor h = at::max_pool2d(at::relu(stem_bn(stem(x))), 3, 2, 1);
    for (const Residual& r : blocks) h = r(h);
    return at::linear(at::adaptive_avg_pool2d(h, {1, 1}).flatten(1), fc_w, fc_b);
  }
};

}  // namespace

std::function<void()> resnet18_step(std::int64_t batch) {
  auto net = std::make_shared<ResNet18>();
  at::Tensor x = at::rand({batch, 1, 28, 28}), y = at::randint(0, 10, {batch});
  return [net, x, y] {
    at::Tensor loss = at::cross_entropy_loss((*net)(x), y);
    loss.backward();
    at::NoGradGuard no_grad;
    // torch.optim.SGD (foreach=False): d = g + wd p; buf = m buf + d (buf = d at the first
    // step); p -= lr buf.
    for (std::size_t i = 0; i < net->params.size(); ++i) {
      at::Tensor& p = net->params[i];
      const at::Tensor d = p.grad().add(p, 5e-4);
      at::Tensor& buf = net->momentum[i];
      if (buf.defined())
        buf.mul_(0.9).add_(d);
      else
        buf = d.clone();
      p.add_(buf, -0.1);
      p.mutable_grad().reset();
    }
  };
}

std::function<void()> rnn_step(const std::string& mode, std::int64_t steps, std::int64_t batch,
                               std::int64_t input, std::int64_t hidden, bool backward) {
  const bool lstm = mode == "lstm";
  const std::int64_t rows = (lstm ? 4 : 3) * hidden;
  const double bound = 1 / std::sqrt(static_cast<double>(hidden));
  auto params = std::make_shared<std::vector<at::Tensor>>();
  for (const auto& s : std::vector<std::vector<std::int64_t>>{
           {rows, input}, {rows, hidden}, {rows}, {rows}})  // w_ih, w_hh, b_ih, b_hh
    params->push_back((at::rand(s) * (2 * bound) - bound).requires_grad_());
  const at::Tensor x = at::rand({steps, batch, input});
  const at::Tensor h0 = at::zeros({1, batch, hidden});
  return [params, x, h0, lstm, backward] {
    std::optional<at::NoGradGuard> no_grad;
    if (!backward) no_grad.emplace();
    const at::Tensor y =
        lstm ? std::get<0>(at::lstm(x, {h0, h0}, *params, true, 1, 0.0, true, false, false))
             : std::get<0>(at::gru(x, h0, *params, true, 1, 0.0, true, false, false));
    if (!backward) return;
    y.sum().backward();
    for (at::Tensor& p : *params) p.mutable_grad().reset();
  };
}

}  // namespace bench::torch
