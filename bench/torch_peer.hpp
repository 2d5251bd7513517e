// SPDX-License-Identifier: Apache-2.0
#pragma once
// libtorch (Debian's libtorch-dev, ATen) as the peer of the benchmarks, behind closures so
// that only torch_peer.cpp includes its headers. Built only where libtorch is found; the
// benchmarks test HETERO_BENCH_HAVE_TORCH before using it.
#include <cstdint>
#include <functional>
#include <string>

namespace bench::torch {

/// at::set_num_threads(threads) (intra-op threads).
void set_threads(int threads);
/// "libtorch 1.13.1".
std::string version();

/// Each returns a callable that does one operation on tensors it owns (CPU, synchronous).
std::function<void()> gemm(std::int64_t n, bool f64);  ///< c = a.matmul(b), n x n
std::function<void()> add_2x3();                       ///< c = a + b, 2x3 float32
std::function<void()> ones_2x3();                      ///< at::ones({2, 3})
std::function<void()> matmul_2x2();                    ///< 2x2 float32 matmul
std::function<void()> matmul_100();                    ///< 100x100 float32 matmul
/// Exercise 1: 100 x {A = ones(500,500); B = ones(500,500); C = A.matmul(B)}.
std::function<void()> exercise1();
/// Exercise 3: 1000 products of 100x100 matrices, each Frobenius norm read with item()
/// (`per_step`) or written into a log tensor read once.
std::function<void()> exercise3(bool per_step);

/// One large-tensor op on a 4096 x 4096 float32 tensor (issue #26), by bench_large_ops' row
/// name: "sum", "sum0", "sum1", "max", "max0", "argmax", "add", "exp", "tanh", "sigmoid",
/// "relu", "mul2", "softmax0", "softmax1", "to_float16", "to_bfloat16", "from_float16",
/// "transpose" (x.t() made contiguous); NAME + "_f16" the same op on float16 operands with a
/// float16 result; "sum_i32" and "sum_u8" (integers 0..99 summed into int64); "rand" and
/// "randn" (uniform_ / normal_ into the out form). `into_out`: written into a preallocated
/// result (the *_out forms: only the kernel), else allocating its result as a user's code
/// does. bench/torch_large_ops.py is the same list for PyTorch (less the generators, whose
/// two forms cannot agree).
std::function<void()> large_op(const std::string& op, bool into_out);

/// conv2d of x [n, c, h, h] with a [o, c, k, k] weight and a bias, `stride`, `padding`:
/// forward alone, or (`backward`) forward and backward (input, weight and bias gradients)
/// (issue #27's and #49's conv2d rows); float32, or bfloat16 where `bfloat16`. With
/// `transposed`, conv_transpose2d of x with a [c, o, k, k] weight instead.
std::function<void()> conv2d_step(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t o,
                                  std::int64_t k, std::int64_t padding, std::int64_t stride = 1,
                                  bool backward = true, bool bfloat16 = false,
                                  bool transposed = false);
/// A pooling layer on x [n, c, h, h] (issue #49 item 1's pooling rows), forward alone or
/// (`backward`) forward and backward: `kind` "max" (max_pool2d, kernel k, stride s, padding p),
/// "avg" (avg_pool2d, the same), "global" (adaptive_avg_pool2d to 1x1; k, s, p unused),
/// "adaptive_max" (adaptive_max_pool2d to k x k), "unfold" (im2col: kernel k, stride s,
/// padding p) or "fold" (col2im back to h x h, of x [n, c k k, blocks]).
std::function<void()> pool2d_step(const std::string& kind, std::int64_t n, std::int64_t c,
                                  std::int64_t h, std::int64_t k, std::int64_t s, std::int64_t p,
                                  bool backward);
/// A 3-d layer on x [n, c, d, h, h], forward alone or (`backward`) forward and backward (every
/// operand's gradient): `kind` "conv3d" (a [o, c, k, k, k] weight, padding p, a bias),
/// "tconv3d" (conv_transpose3d by a [c, o, k, k, k] weight and a bias at stride k) or
/// "maxpool3d" (kernel k; o and p unused).
std::function<void()> volume_step(const std::string& kind, std::int64_t n, std::int64_t c,
                                  std::int64_t d, std::int64_t h, std::int64_t o, std::int64_t k,
                                  std::int64_t p, bool backward);
/// BatchNorm2d in training mode (batch statistics, running statistics updated, momentum 0.1,
/// eps 1e-5, affine) on x [n, c, h, h], forward alone or (`backward`) forward and backward
/// (the gradients of input, weight and bias) (issue #49 item 1's batch-norm rows).
std::function<void()> batch_norm_step(std::int64_t n, std::int64_t c, std::int64_t h,
                                      bool backward);
/// One SGD step (lr 0.9) of D2L's LeNet on a [batch, 1, 28, 28] batch: forward, cross
/// entropy, backward, update (issue #27's LeNet epoch row is 235 of these at batch 256).
std::function<void()> lenet_step(std::int64_t batch);
/// One training step of D2L's ResNet-18 (examples/resnet18_fashion_mnist/resnet.hpp, written
/// here in ATen's functional ops: convolutions with bias, BatchNorm in training mode, ReLU,
/// max-pool, residual adds, global average pool, linear) on a [batch, 1, 28, 28] batch:
/// forward, cross entropy, backward, and torch.optim.SGD's update with momentum 0.9 and weight
/// decay 5e-4 (lr 0.1), as the example trains (issue #49's ResNet-18 training step row).
std::function<void()> resnet18_step(std::int64_t batch);
/// One layer of torch.nn.LSTM or GRU (`mode` "lstm" or "gru", through at::lstm / at::gru,
/// the calls the modules make) over x [steps, batch, input] from zero states: forward alone
/// under NoGradGuard, or forward and the backward of output.sum() (every parameter's
/// gradient), parameters U(-1/sqrt(hidden), 1/sqrt(hidden)) as torch initialises them.
std::function<void()> rnn_step(const std::string& mode, std::int64_t steps, std::int64_t batch,
                               std::int64_t input, std::int64_t hidden, bool backward);

}  // namespace bench::torch
