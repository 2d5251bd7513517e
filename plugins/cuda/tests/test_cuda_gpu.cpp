// SPDX-License-Identifier: Apache-2.0
// The cuda plugin through the public API, compared with the cpu backend. Runs wherever a
// CUDA device is present (skips, saying so, where none is); the conformance suite
// (conformance.cuda) covers the Backend interface itself.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <vector>

#include <hetero/hetero.hpp>
#include <hetero/interop.hpp>

#include <cuda_runtime_api.h>
#include <dlpack/dlpack.h>

using namespace hetero;

namespace {

class CudaGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (device_count("cuda") == 0) {
      std::string reason = "cuda plugin not loaded";
      for (const auto& s : backend_status())
        if (s.name == "cuda") reason = s.reason;
      GTEST_SKIP() << "no CUDA device: " << reason;
    }
  }
  const Device gpu{"cuda:0"};
};

void expect_close(const Tensor& a, const Tensor& b, double tol) {
  ASSERT_EQ(a.shape(), b.shape());
  const auto x = a.cpu().to(DType::float64).to_vector<double>();
  const auto y = b.cpu().to(DType::float64).to_vector<double>();
  for (std::size_t i = 0; i < x.size(); ++i)
    EXPECT_NEAR(x[i], y[i], tol * (1 + std::fabs(y[i]))) << "at " << i;
}

}  // namespace

TEST_F(CudaGpu, ChapterPathRunsOnTheGpu) {
  EXPECT_EQ(try_gpu(), gpu);
  Tensor X = ones({2, 3}, try_gpu());
  Tensor Y = rand({2, 3}, try_gpu());
  EXPECT_EQ(X.device(), gpu);
  Tensor Z = X.to(Y.device());
  EXPECT_TRUE(Z.is_same(X));
  EXPECT_FALSE(X.copy_to(gpu).is_same(X));
  expect_close(Y + Z, Y.cpu() + X.cpu(), 1e-6);
  EXPECT_THROW((void)(X + ones({2, 3})), DeviceMismatchError);
  std::ostringstream os;
  os << X;
  EXPECT_NE(os.str().find("device='cuda:0'"), std::string::npos) << os.str();
  nn::Sequential net{nn::Linear(3, 1)};
  net.to(gpu);
  EXPECT_EQ(net(X).device(), gpu);
  EXPECT_EQ(net.named_parameters().at("0.weight").device(), gpu);
}

TEST_F(CudaGpu, MatmulMatchesCpuForOddSizesTransposesAndBatches) {
  manual_seed(3);
  for (auto [m, k, n] :
       {std::array<std::int64_t, 3>{1, 1, 1}, {7, 13, 5}, {64, 3, 129}, {257, 100, 33}}) {
    Tensor a = randn({m, k}), b = randn({k, n});
    expect_close(matmul(a.to(gpu), b.to(gpu)), matmul(a, b), 1e-4);
    Tensor at = randn({k, m}), bt = randn({n, k});
    expect_close(matmul(at.to(gpu).t(), bt.to(gpu).t()), matmul(at.t(), bt.t()), 1e-4);
  }
  Tensor a = randn({4, 6, 5}, TensorOptions().dtype(DType::float64)),
         b = randn({5, 3}, TensorOptions().dtype(DType::float64));
  expect_close(matmul(a.to(gpu), b.to(gpu)), matmul(a, b), 1e-12);
}

TEST_F(CudaGpu, ElementwiseAndReductionsMatchCpu) {
  manual_seed(11);
  Tensor a = randn({33, 70}), b = randn({1, 70});
  const Tensor ga = a.to(gpu), gb = b.to(gpu);
  expect_close(ga + gb, a + b, 1e-6);
  expect_close(ga * gb - ga / (gb.abs() + 1), a * b - a / (b.abs() + 1), 1e-5);
  expect_close(ga.exp().log(), a.exp().log(), 1e-5);
  expect_close(ga.relu().sigmoid().tanh(), a.relu().sigmoid().tanh(), 1e-6);
  expect_close(ga.sum(), a.sum(), 1e-5);
  expect_close(ga.sum(0), a.sum(0), 1e-5);
  expect_close(ga.mean(1, true), a.mean(1, true), 1e-5);
  expect_close(ga.max(1), a.max(1), 0);
  expect_close(ga.min(0), a.min(0), 0);
  expect_close(ga.norm(), a.norm(), 1e-5);
  EXPECT_EQ(ga.argmax(1).cpu().to_vector<std::int64_t>(), a.argmax(1).to_vector<std::int64_t>());
  expect_close(ga.transpose(0, 1).contiguous(), a.transpose(0, 1).contiguous(), 0);
  Tensor i = arange(10).to(gpu);
  EXPECT_EQ((i * 3 - 4).cpu().to_vector<std::int64_t>(),
            (arange(10) * 3 - 4).to_vector<std::int64_t>());
}

TEST_F(CudaGpu, SeedGivesTheSameNumbersAsTheCpu) {
  manual_seed(42);
  Tensor c = rand({1000});
  Tensor cn = randn({999});
  manual_seed(42);
  Tensor g = rand({1000}, gpu);
  Tensor gn = randn({999}, gpu);
  EXPECT_EQ(g.cpu().to_vector<float>(), c.to_vector<float>());
  expect_close(gn, cn, 1e-6);
}

TEST_F(CudaGpu, CachingAllocatorReusesFreedBlocksAndEmptiesItsCache) {
  synchronize(gpu);
  empty_cache(gpu);
  const MemoryStats before = memory_stats(gpu);
  { Tensor t = empty({1024, 1024}, gpu); }
  const MemoryStats after_first = memory_stats(gpu);
  { Tensor t = empty({1024, 1024}, gpu); }
  const MemoryStats after_second = memory_stats(gpu);
  EXPECT_EQ(after_second.allocation_count, after_first.allocation_count);  // no new cudaMalloc
  EXPECT_EQ(after_second.pool_hits, after_first.pool_hits + 1);
  EXPECT_GE(after_second.reserved, before.reserved + 4u * 1024 * 1024);
  EXPECT_GE(after_second.peak_allocated, 4u * 1024 * 1024);
  empty_cache(gpu);
  const MemoryStats emptied = memory_stats(gpu);
  EXPECT_EQ(emptied.reserved, emptied.allocated);
}

TEST_F(CudaGpu, OutOfMemoryIsTypedNamesTheDeviceAndLeavesItUsable) {
  try {
    (void)empty({std::int64_t{1} << 40}, gpu);  // 4 TiB of float32
    FAIL() << "allocated 4 TiB";
  } catch (const OutOfMemoryError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("cuda:0"), std::string::npos) << m;
    EXPECT_NE(m.find("4398046511104"), std::string::npos) << m;
    EXPECT_NE(m.find("free"), std::string::npos) << m;
  }
  EXPECT_EQ(ones({4}, gpu).sum().item<float>(), 4.0f);
}

TEST_F(CudaGpu, PinnedMemoryCopiesAsynchronouslyAndCorrectly) {
  Tensor host = arange(0, 1 << 20, 1, TensorOptions().dtype(DType::float32));
  Tensor pinned = host.pin_memory();
  EXPECT_TRUE(pinned.is_pinned());
  EXPECT_EQ(pinned.device(), Device::cpu());
  EXPECT_TRUE(pinned.pin_memory().is_same(pinned));
  Tensor on_gpu = pinned.to(gpu);
  pinned = Tensor();  // freed while the copy may still be queued: the pool keeps it
  expect_close(on_gpu, host, 0);
  expect_close(on_gpu.to(Device::cpu()).pin_memory() * 2, host * 2, 0);
  EXPECT_THROW((void)on_gpu.pin_memory(), InvalidDeviceError);
  // A pinned factory result (torch.empty(..., pin_memory=True)) as the target of a copy back.
  Tensor back = empty({1 << 20}, TensorOptions().pinned_memory(true));
  EXPECT_TRUE(back.is_pinned());
  back.copy_(on_gpu * 3.0);
  expect_close(back, host * 3, 0);
  EXPECT_THROW(empty({2}, TensorOptions(gpu).pinned_memory(true)), InvalidDeviceError);
}

TEST_F(CudaGpu, CopiesBetweenTwoGpus) {
  if (device_count("cuda") < 2) GTEST_SKIP() << "needs two CUDA devices";
  const Device gpu1("cuda:1");
  Tensor a = randn({300, 301}, gpu);
  Tensor b = a.to(gpu1);
  EXPECT_EQ(b.device(), gpu1);
  expect_close(b, a, 0);
  EXPECT_THROW((void)(a + b), DeviceMismatchError);
  expect_close((b * 2).to(gpu), a * 2, 0);
}

namespace {

// Values as float64 with NaN equal to NaN.
void expect_same_values(const Tensor& got, const Tensor& want, double tol,
                        const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  const auto x = got.cpu().to(DType::float64).to_vector<double>();
  const auto y = want.to(DType::float64).to_vector<double>();
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(y[i])) {
      EXPECT_TRUE(std::isnan(x[i])) << what << " at " << i << ": " << x[i] << ", expected NaN";
      continue;
    }
    if (std::isinf(y[i])) {  // a float16 sum may overflow: to the same infinity
      EXPECT_EQ(x[i], y[i]) << what << " at " << i;
      continue;
    }
    ASSERT_NEAR(x[i], y[i], tol * (1 + std::fabs(y[i]))) << what << " at " << i;
  }
}

// Host data with ties (values on a grid of 1/4) and, when `nans`, a NaN every 997 elements
// (the first one late in each range, so "NaN wins" and "first NaN" are both exercised).
Tensor reduction_input(const Shape& shape, DType dtype, bool nans) {
  std::int64_t n = 1;
  for (auto s : shape) n *= s;
  std::vector<double> v(static_cast<std::size_t>(n));
  std::uint64_t state = 12345;
  for (auto& x : v) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    x = static_cast<double>(static_cast<int>((state >> 33) % 200) - 100) / 4.0;
  }
  if (nans)
    for (std::size_t i = 500; i < v.size(); i += 997) v[i] = std::nan("");
  return from_vector(v, shape).to(dtype);
}

}  // namespace

// Every reduction path of the cuda plugin against the cpu backend: CUB over the whole input
// (many blocks), one block for a small whole input, CUB over rows, the column kernel with and
// without the reduced rows split into chunks, and the generic kernel for strided views; every op,
// with ties and NaNs.
TEST_F(CudaGpu, EveryReductionPathMatchesCpu) {
  struct Case {
    Shape shape;
    std::int64_t dim;  // -1: everything
    bool transpose;    // reduce a transposed (strided) view: the generic kernel
  };
  const std::vector<Case> cases = {
      {{3 << 20}, -1, false},    {{300, 1000}, 1, false}, {{300, 1000}, 0, false},
      {{7, 50, 3000}, 1, false}, {{4096, 33}, 0, false},  {{33, 4096}, 1, false},
      {{5, 1}, 1, false},        {{300, 1000}, 1, true},  {{64, 9000}, -1, false},
      {{100, 100}, -1, false},
  };
  for (const DType dtype :
       {DType::float32, DType::float64, DType::int32, DType::int64, DType::float16}) {
    const bool floating = is_floating_point(dtype);
    for (const bool nans : {false, true}) {
      if (nans && !floating) continue;
      for (const auto& c : cases) {
        Tensor a = reduction_input(c.shape, dtype, nans);
        Tensor g = a.to(gpu);  // a copy between devices is contiguous: transpose both after
        if (c.transpose) {
          a = a.t();
          g = g.t();
        }
        if (c.transpose) {
          ASSERT_FALSE(g.is_contiguous());
        }
        std::ostringstream what;
        what << dtype_name(dtype) << (nans ? " with NaNs" : "") << " shape " << c.shape.size()
             << "-d dim " << c.dim << (c.transpose ? " transposed" : "");
        const double tol = dtype == DType::float16 ? 2e-3 : 1e-9;
        if (c.dim < 0) {
          expect_same_values(g.sum(), a.sum(), tol, what.str() + " sum");
          expect_same_values(g.max(), a.max(), 0, what.str() + " max");
          expect_same_values(g.min(), a.min(), 0, what.str() + " min");
          EXPECT_EQ(g.argmax().item<std::int64_t>(), a.argmax().item<std::int64_t>())
              << what.str() << " argmax";
          if (floating) {
            expect_same_values(g.mean(), a.mean(), tol, what.str() + " mean");
            expect_same_values(g.norm(), a.norm(), tol, what.str() + " norm");
          }
        } else {
          expect_same_values(g.sum(c.dim), a.sum(c.dim), tol, what.str() + " sum");
          expect_same_values(g.max(c.dim), a.max(c.dim), 0, what.str() + " max");
          expect_same_values(g.min(c.dim, true), a.min(c.dim, true), 0, what.str() + " min");
          EXPECT_EQ(g.argmax(c.dim).cpu().to_vector<std::int64_t>(),
                    a.argmax(c.dim).to_vector<std::int64_t>())
              << what.str() << " argmax";
          if (floating) expect_same_values(g.mean(c.dim), a.mean(c.dim), tol, what.str() + " mean");
        }
      }
    }
  }
}

// Issue #28: DLPack import of cuda memory (Backend::adopt, interface 3.7): the round trip
// shares the device memory, kernels run on the imported tensor, and the producer's deleter
// runs once, after the last use.
TEST_F(CudaGpu, DlpackImportOfDeviceMemoryIsZeroCopy) {
  Tensor original = arange(0, 12, 1, TensorOptions(gpu).dtype(DType::float32)).view({3, 4});
  DLManagedTensor* exported = to_dlpack(original);
  ASSERT_EQ(exported->dl_tensor.device.device_type, kDLCUDA);
  void* const pointer = exported->dl_tensor.data;
  {
    Tensor imported = from_dlpack(exported);
    EXPECT_EQ(imported.device(), gpu);
    EXPECT_EQ((imported * 2.0).sum().item<double>(), 132.0);
    Tensor view = imported.narrow(0, 1, 1);
    view.copy_(zeros({1, 4}, gpu));  // written through the import: seen by the original
    EXPECT_EQ(original.sum().item<double>(), 66.0 - (4 + 5 + 6 + 7));
    DLManagedTensor* again = to_dlpack(imported);
    EXPECT_EQ(again->dl_tensor.data, pointer);
    again->deleter(again);
  }
  // From a raw device pointer with a deleter (as torch.from_blob on cuda).
  int released = 0;
  DLManagedTensor* keep = to_dlpack(original);  // keeps the memory alive for the blob
  {
    Tensor blob = from_blob(keep->dl_tensor.data, {12}, DType::float32, gpu, [&](void*) {
      ++released;
      keep->deleter(keep);
    });
    EXPECT_EQ(blob.sum().item<double>(), original.sum().item<double>());
    EXPECT_EQ(released, 0);
  }
  EXPECT_EQ(released, 1);
}

// from_blob on cuda:0 of host memory (pageable or pinned) raises ValueError naming what the
// pointer is, without calling the deleter; managed memory is adopted.
TEST_F(CudaGpu, FromBlobRefusesHostMemoryAndAdoptsManagedMemory) {
  std::vector<float> host(4, 1.0f);
  int called = 0;
  auto count = [&](void*) { ++called; };
  try {
    (void)from_blob(host.data(), {4}, DType::float32, gpu, count);
    ADD_FAILURE() << "from_blob of a std::vector's memory on cuda:0 did not throw";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("host memory"), std::string::npos) << e.what();
  }
  Tensor pinned = ones({4}, TensorOptions().pinned_memory(true));
  EXPECT_THROW((void)from_blob(pinned.host_data_ptr(), {4}, DType::float32, gpu, count),
               ValueError);
  EXPECT_EQ(called, 0);
  void* managed = nullptr;
  ASSERT_EQ(cudaMallocManaged(&managed, 4 * sizeof(float)), cudaSuccess);
  {
    Tensor m = from_blob(managed, {4}, DType::float32, gpu, [&](void* p) {
      ++called;
      cudaFree(p);
    });
    m.copy_(ones({4}, gpu) * 2.0);
    EXPECT_EQ(m.sum().item<double>(), 8.0);
  }
  EXPECT_EQ(called, 1);
}
