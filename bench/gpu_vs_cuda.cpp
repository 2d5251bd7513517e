// SPDX-License-Identifier: Apache-2.0
// The cuda plugin against raw CUDA in the same process: GEMM through hetero (matmul,
// result allocation included) vs raw cublasSgemm/cublasDgemm on the same device data,
// n = 256 ... 8192; element-wise ops and reductions (result allocation included) vs raw
// CUDA kernels and CUB (raw_cuda.cu); the 2x3 add (launch-bound) vs a raw launch with and
// without cudaMallocAsync; and host<->device copies through hetero vs raw cudaMemcpy, from
// pageable and from pinned memory. bench/torch_gpu.py prints the same op rows for PyTorch. Median
// of N repetitions, interleaved; ratios are hetero / raw throughput (1.00 = parity). Without a CUDA
// device it says why and exits 0. Usage: bench_gpu [--quick] [--gemm]
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include <hetero/hetero.hpp>
#include <hetero/sdk/find_backend.hpp>

#include "raw_cuda.hpp"

namespace {

using namespace hetero;

double seconds(auto&& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median_time(int reps, auto&& fn) {
  fn();  // warm-up: first-use costs (pool blocks, lazy loading, page mapping) are not timed
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) t.push_back(seconds(fn));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Medians of `ours` and `raw`, timed alternately (after one warm-up of each), so that a
// drift of the GPU's clocks or of the host hits both alike. Returns {ours, raw} seconds.
std::pair<double, double> median_pair(int reps, auto&& ours, auto&& raw) {
  ours();
  raw();
  std::vector<double> a, b;
  for (int r = 0; r < reps; ++r) {
    a.push_back(seconds(ours));
    b.push_back(seconds(raw));
  }
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return {a[a.size() / 2], b[b.size() / 2]};
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(std::string(what) + ": " + cudaGetErrorString(e));
}
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw Error(std::string(what) + ": " + cublasGetStatusString(s));
}

template <class T>
void gemm_row(cublasHandle_t handle, std::int64_t n, int reps) {
  const Device gpu("cuda:0");
  const DType dt = dtype_of<T>;
  Tensor a = rand({n, n}, TensorOptions().device(gpu).dtype(dt));
  Tensor b = rand({n, n}, TensorOptions().device(gpu).dtype(dt));
  const auto bytes = static_cast<std::size_t>(n * n) * sizeof(T);
  T *A = nullptr, *B = nullptr, *C = nullptr;
  check(cudaMalloc(&A, bytes), "cudaMalloc");
  check(cudaMalloc(&B, bytes), "cudaMalloc");
  check(cudaMalloc(&C, bytes), "cudaMalloc");
  const auto host_a = a.cpu().to_vector<T>(), host_b = b.cpu().to_vector<T>();
  check(cudaMemcpy(A, host_a.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaMemcpy(B, host_b.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  const T one = 1, zero = 0;
  auto raw = [&] {
    // Row-major C = A B as column-major C^T = B^T A^T (same identity as the plugin).
    if constexpr (sizeof(T) == 4)
      check(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, C, n),
            "sgemm");
    else
      check(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, C, n),
            "dgemm");
    check(cudaDeviceSynchronize(), "sync");
  };
  Tensor c;
  auto ours = [&] {
    c = matmul(a, b);
    synchronize(gpu);
  };
  const auto [t_ours, t_raw] = median_pair(reps, ours, raw);
  const double flop = 2.0 * static_cast<double>(n) * n * n;
  std::printf("%-5s %6lld %12.1f %12.1f %8.2f\n", sizeof(T) == 4 ? "f32" : "f64",
              static_cast<long long>(n), flop / t_ours * 1e-9, flop / t_raw * 1e-9, t_raw / t_ours);
  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
}

// A device array of n floats, uniform in [0, 1) (filled through hetero, copied raw).
struct RawFloats {
  float* ptr = nullptr;
  explicit RawFloats(std::int64_t n, std::uint64_t seed = 7) {
    manual_seed(seed);
    const auto host = rand({n}).to_vector<float>();
    check(cudaMalloc(&ptr, host.size() * sizeof(float)), "cudaMalloc");
    check(cudaMemcpy(ptr, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice),
          "cudaMemcpy");
  }
  ~RawFloats() { cudaFree(ptr); }
  RawFloats(const RawFloats&) = delete;
  RawFloats& operator=(const RawFloats&) = delete;
};

void op_row(const char* name, const char* size, double bytes, double t_ours, double t_raw) {
  auto gbps = [&](double t) { return bytes / t * 1e-9; };
  if (t_raw > 0)
    std::printf("%-22s %-10s %12.1f %12.1f %8.2f\n", name, size, gbps(t_ours), gbps(t_raw),
                t_raw / t_ours);
  else
    std::printf("%-22s %-10s %12.1f %12s %8s\n", name, size, gbps(t_ours), "-", "-");
}

void sync() { check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }

// Element-wise ops and reductions on 64M float32 (256 MiB) and an 8192 x 8192 matrix, in
// GB/s of memory traffic (bytes read + written once).
void op_rows(int reps) {
  const Device gpu("cuda:0");
  const std::int64_t n = std::int64_t{64} << 20;
  const double f = sizeof(float);
  manual_seed(1);
  Tensor x = rand({n}, gpu), y = rand({n}, gpu);
  RawFloats a(n, 1), b(n, 2), c(n, 3);
  std::uint16_t* half = nullptr;
  check(cudaMalloc(&half, static_cast<std::size_t>(n) * 2), "cudaMalloc");
  std::size_t temp_bytes =
      std::max(bench_raw::sum_temp_bytes(n), bench_raw::row_sums_temp_bytes(8192, 8192));
  void* temp = nullptr;
  check(cudaMalloc(&temp, temp_bytes), "cudaMalloc");
  Tensor z;
  auto ours = [&](auto&& op) {
    op();  // warm-up (pool, first launch)
    synchronize(gpu);
    return median_time(reps, [&] {
      op();
      synchronize(gpu);
    });
  };
  auto raw = [&](auto&& op) {
    op();
    sync();
    return median_time(reps, [&] {
      op();
      sync();
    });
  };
  op_row("x + y", "64M f32", 3 * f * n, ours([&] { z = x + y; }),
         raw([&] { bench_raw::add(a.ptr, b.ptr, c.ptr, n); }));
  op_row("exp(x)", "64M f32", 2 * f * n, ours([&] { z = x.exp(); }),
         raw([&] { bench_raw::exp(a.ptr, c.ptr, n); }));
  op_row("x.to(float16)", "64M f32", 6.0 * n, ours([&] { z = x.to(DType::float16); }),
         raw([&] { bench_raw::to_half(a.ptr, half, n); }));
  float result = 0;
  op_row("x.sum().item()", "64M f32", f * n, ours([&] { result = x.sum().item<float>(); }),
         raw([&] {
           bench_raw::sum(a.ptr, c.ptr, n, temp, temp_bytes);
           check(cudaMemcpy(&result, c.ptr, sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
         }));
  op_row("x.max().item()", "64M f32", f * n, ours([&] { result = x.max().item<float>(); }), 0);
  op_row("x.norm().item()", "64M f32", f * n, ours([&] { result = x.norm().item<float>(); }), 0);
  const Tensor m = x.view({8192, 8192});
  op_row("m.sum(1)", "8192^2 f32", f * n, ours([&] { z = m.sum(1); }),
         raw([&] { bench_raw::row_sums(a.ptr, c.ptr, 8192, 8192, temp, temp_bytes); }));
  op_row("m.sum(0)", "8192^2 f32", f * n, ours([&] { z = m.sum(0); }), 0);
  op_row("m.argmax(1)", "8192^2 f32", f * n, ours([&] { z = m.argmax(1); }), 0);
  cudaFree(half);
  cudaFree(temp);
}

// The 2x3 add, back to back (launch-bound): microseconds per op.
void small_add_rows() {
  const Device gpu("cuda:0");
  Tensor x = ones({2, 3}, gpu), y = ones({2, 3}, gpu), z;
  RawFloats a(6, 1), b(6, 2), c(6, 3);
  const int ops = 2000;
  auto per_op = [&](auto&& op) {
    for (int i = 0; i < 100; ++i) op();
    sync();
    return median_time(5,
                       [&] {
                         for (int i = 0; i < ops; ++i) op();
                         sync();
                       }) /
           ops * 1e6;
  };
  const double ours = per_op([&] { z = x + y; });
  const double raw = per_op([&] { bench_raw::add(a.ptr, b.ptr, c.ptr, 6); });
  const double raw_alloc = per_op([&] { bench_raw::add_allocating(a.ptr, b.ptr, 6); });
  std::printf(
      "%-22s %10.2f us/op   raw launch %.2f us (%.2fx)   raw + cudaMallocAsync %.2f us (%.2fx)\n",
      "2x3 add", ours, raw, ours / raw, raw_alloc, ours / raw_alloc);
}

// Exercise 3 with item() every step (1000 products of 100x100 matrices, each norm read on
// the host) and an MLP training step (256 x 64 -> 512 -> 512 -> 10, ReLU, cross entropy,
// SGD): milliseconds, for bench/libtorch_gpu.cpp (libtorch C++ on the same GPU).
void training_rows() {
  const Device gpu("cuda:0");
  const auto opt = TensorOptions().device(gpu);
  manual_seed(5);
  Tensor a = rand({100, 100}, opt), b = rand({100, 100}, opt);
  float sink = 0;
  auto exercise3 = [&] {
    for (int i = 0; i < 1000; ++i) sink += matmul(a, b).norm().item<float>();
  };
  exercise3();
  const double t3 = median_time(5, exercise3);
  nn::Sequential net{nn::Linear(64, 512), nn::ReLU(), nn::Linear(512, 512), nn::ReLU(),
                     nn::Linear(512, 10)};
  net.to(gpu);
  nn::CrossEntropyLoss criterion;
  optim::SGD sgd(net.parameters(), {.lr = 0.01});
  const Tensor x = randn({256, 64}, opt);
  std::vector<std::int64_t> labels(256);
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<std::int64_t>(i % 10);
  const Tensor y = from_vector(labels, {256}, gpu);
  auto step = [&] {
    sgd.zero_grad();
    Tensor loss = criterion(net(x), y);
    loss.backward();
    sgd.step();
  };
  for (int i = 0; i < 20; ++i) step();
  synchronize(gpu);
  const int steps = 200;
  const double tmlp = median_time(5,
                                  [&] {
                                    for (int i = 0; i < steps; ++i) step();
                                    synchronize(gpu);
                                  }) /
                      steps;
  std::printf("%-40s %10.2f ms\n", "exercise 3, item() per step (1000 steps)", t3 * 1e3);
  std::printf("%-40s %10.3f ms\n", "MLP train step (256x64->512->512->10)", tmlp * 1e3);
  (void)sink;
}

// Host time of one GEMM call, 2 x 2 (the device work is negligible; calls queue without
// waiting): what each matmul adds before the GPU starts, against a raw cublasSgemm call,
// split into its parts so that a gap can be attributed in one run: the cuda plugin's
// Backend::gemm alone (no core: preallocated buffers, as the raw call), the result
// allocation alone (empty({2, 2})), and synchronize() of an idle device against
// cudaDeviceSynchronize (every GEMM row ends with one).
void gemm_call_cost(cublasHandle_t handle) {
  const Device gpu("cuda:0");
  Tensor a = rand({2, 2}, gpu), b = rand({2, 2}, gpu), c;
  RawFloats A(4, 1), B(4, 2), C(4, 3);
  const float one = 1, zero = 0;
  const int calls = 2000;
  auto per_call = [&](double t) { return t / calls * 1e6; };
  const auto [ours, raw] = median_pair(
      7,
      [&] {
        for (int i = 0; i < calls; ++i) c = matmul(a, b);
        synchronize(gpu);
      },
      [&] {
        for (int i = 0; i < calls; ++i)
          check(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, B.ptr, 2, A.ptr, 2,
                            &zero, C.ptr, 2),
                "sgemm");
        sync();
      });
  // The plugin alone: Backend::gemm on buffers allocated once.
  double backend_only = 0;
  {
    const std::shared_ptr<Backend> cuda = find_backend("cuda");
    std::unique_ptr<Buffer> ba = cuda->allocate(0, 16), bb = cuda->allocate(0, 16),
                            bc = cuda->allocate(0, 16);
    GemmArgs g;
    g.m = g.n = g.k = 2;
    g.a = ba.get();
    g.b = bb.get();
    g.c = bc.get();
    g.lda = g.ldb = g.ldc = 2;
    Stream& stream = cuda->default_stream(0);
    backend_only = median_time(7, [&] {
      for (int i = 0; i < calls; ++i) cuda->gemm(g, stream);
      stream.synchronize();
    });
  }
  const double allocation = median_time(7, [&] {
    for (int i = 0; i < calls; ++i) c = empty({2, 2}, gpu);
    synchronize(gpu);
  });
  const auto [sync_ours, sync_raw] = median_pair(
      7,
      [&] {
        for (int i = 0; i < calls; ++i) synchronize(gpu);
      },
      [&] {
        for (int i = 0; i < calls; ++i) check(cudaDeviceSynchronize(), "sync");
      });
  // The raw call on a non-blocking stream (as hetero's handle), without and with a
  // workspace of its own: which part of the difference is the stream's.
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  cublasHandle_t on_stream = nullptr;
  check(cublasCreate(&on_stream), "cublasCreate");
  check(cublasSetStream(on_stream, stream), "cublasSetStream");
  auto raw_on = [&](cublasHandle_t h) {
    for (int i = 0; i < calls; ++i)
      check(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, B.ptr, 2, A.ptr, 2, &zero,
                        C.ptr, 2),
            "sgemm");
    check(cudaStreamSynchronize(stream), "sync");
  };
  const double raw_stream = median_time(7, [&] { raw_on(on_stream); });
  void* workspace = nullptr;
  check(cudaMalloc(&workspace, std::size_t{32} << 20), "cudaMalloc");
  check(cublasSetWorkspace(on_stream, workspace, std::size_t{32} << 20), "cublasSetWorkspace");
  const double raw_workspace = median_time(7, [&] { raw_on(on_stream); });
  cublasDestroy(on_stream);
  cudaFree(workspace);
  cudaStreamDestroy(stream);
  std::printf(
      "%-22s %10.2f us/call (raw cublasSgemm %.2f; on a non-blocking stream %.2f, with a workspace "
      "%.2f)\n",
      "matmul 2x2 call", per_call(ours), per_call(raw), per_call(raw_stream),
      per_call(raw_workspace));
  std::printf(
      "%-22s %10.2f us/call (cuda Backend::gemm alone %.2f; empty({2, 2}) alone %.2f; "
      "synchronize() idle %.2f vs cudaDeviceSynchronize %.2f)\n",
      "matmul 2x2 parts", per_call(ours), per_call(backend_only), per_call(allocation),
      per_call(sync_ours), per_call(sync_raw));
}

void copy_rows(std::size_t mib, int reps) {
  const Device gpu("cuda:0");
  const std::size_t bytes = mib << 20;
  const auto n = static_cast<std::int64_t>(bytes / sizeof(float));
  Tensor host = ones({n});
  Tensor pinned = host.pin_memory();
  Tensor dev = ones({n}, gpu);
  void* raw_dev = nullptr;
  void* raw_pinned = nullptr;
  std::vector<char> raw_pageable(bytes, 1);
  check(cudaMalloc(&raw_dev, bytes), "cudaMalloc");
  check(cudaMallocHost(&raw_pinned, bytes), "cudaMallocHost");
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  std::memset(raw_pinned, 1, bytes);
  auto gbps = [&](double t) { return static_cast<double>(bytes) / t * 1e-9; };
  struct Row {
    const char* name;
    double ours, raw;
  };
  auto row = [&](const char* name, auto&& ours, auto&& raw) {
    const auto [t_ours, t_raw] = median_pair(reps, ours, raw);
    return Row{name, t_ours, t_raw};
  };
  const Row rows[] = {
      row(
          "H2D pageable",
          [&] {
            dev.copy_(host);
            synchronize(gpu);
          },
          [&] {
            check(cudaMemcpy(raw_dev, raw_pageable.data(), bytes, cudaMemcpyHostToDevice), "H2D");
          }),
      row(
          "H2D pinned",
          [&] {
            dev.copy_(pinned);
            synchronize(gpu);
          },
          [&] { check(cudaMemcpy(raw_dev, raw_pinned, bytes, cudaMemcpyHostToDevice), "H2D"); }),
      row(
          "D2H pageable", [&] { host.copy_(dev); },
          [&] {
            check(cudaMemcpy(raw_pageable.data(), raw_dev, bytes, cudaMemcpyDeviceToHost), "D2H");
          }),
      row(
          "D2H pinned", [&] { pinned.copy_(dev); },
          [&] { check(cudaMemcpy(raw_pinned, raw_dev, bytes, cudaMemcpyDeviceToHost), "D2H"); }),
      // A new host tensor (pageable) from the device, as x.cpu() / x.to("cpu"); the peer is
      // a new malloc'ed array (its pages are mapped by the copy).
      row(
          "D2H dev.cpu()", [&] { Tensor h = dev.cpu(); },
          [&] {
            auto fresh = std::make_unique_for_overwrite<char[]>(bytes);
            check(cudaMemcpy(fresh.get(), raw_dev, bytes, cudaMemcpyDeviceToHost), "D2H");
          }),
      // The same pinned upload as cudaMemcpyAsync + cudaStreamSynchronize on a non-blocking
      // stream (what the plugin issues), to tell API cost from transfer.
      row(
          "H2D pinned async",
          [&] {
            dev.copy_(pinned);
            synchronize(gpu);
          },
          [&] {
            check(cudaMemcpyAsync(raw_dev, raw_pinned, bytes, cudaMemcpyHostToDevice, stream),
                  "H2D");
            check(cudaStreamSynchronize(stream), "sync");
          }),
  };
  for (const auto& r : rows)
    std::printf("%-17s %6zu %12.2f %12.2f %8.2f\n", r.name, mib, gbps(r.ours), gbps(r.raw),
                r.raw / r.ours);
  cudaStreamDestroy(stream);
  cudaFree(raw_dev);
  cudaFreeHost(raw_pinned);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The cuda plugin against raw CUDA, cuBLAS and CUB in the same process"};
  bool quick = false, gemm_only = false;
  app.add_flag("--quick", quick, "few repetitions and sizes (a smoke run)");
  app.add_flag("--gemm", gemm_only,
               "only the GEMM rows and the cost of a GEMM call, at full repetitions");
  CLI11_PARSE(app, argc, argv);
  if (device_count("cuda") == 0) {
    std::string reason = "the cuda plugin is not loaded";
    for (const auto& s : backend_status())
      if (s.name == "cuda") reason = s.reason;
    std::printf("bench_gpu: no CUDA device (%s); nothing to measure\n", reason.c_str());
    return 0;
  }
  try {
    std::printf("device: %s\n\n", device_info(Device("cuda:0")).properties.name.c_str());
    cublasHandle_t handle = nullptr;
    check(cublasCreate(&handle), "cublasCreate");
    std::printf("%-5s %6s %12s %12s %8s\n", "dtype", "n", "hetero GF/s", "cuBLAS GF/s", "ratio");
    const std::vector<std::int64_t> sizes =
        quick ? std::vector<std::int64_t>{256, 1024}
              : std::vector<std::int64_t>{256, 512, 1024, 2048, 4096, 8192};
    // Small products take tens of microseconds: more repetitions for a steady median.
    auto reps_for = [&](std::int64_t n, int large) { return quick ? 3 : n <= 1024 ? 101 : large; };
    for (auto n : sizes) gemm_row<float>(handle, n, reps_for(n, 10));
    for (auto n : sizes) gemm_row<double>(handle, n, reps_for(n, 5));
    gemm_call_cost(handle);
    cublasDestroy(handle);
    if (gemm_only) return 0;
    std::printf("\n%-22s %-10s %12s %12s %8s\n", "op", "size", "hetero GB/s", "raw GB/s", "ratio");
    op_rows(quick ? 3 : 10);
    small_add_rows();
    std::printf("\n");
    training_rows();
    std::printf("\n%-17s %6s %12s %12s %8s\n", "copy", "MiB", "hetero GB/s", "raw GB/s", "ratio");
    for (std::size_t mib : {std::size_t{1}, std::size_t{64}, std::size_t{256}})
      copy_rows(mib, quick ? 3 : 10);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_gpu: %s\n", e.what());
    return 1;
  }
  return 0;
}
