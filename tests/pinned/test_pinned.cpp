// SPDX-License-Identifier: Apache-2.0
// Pinned host memory on a machine without a GPU: the pinnedhost test plugin provides it
// (as the cuda plugin does on a GPU machine), so the core's paths run everywhere:
// TensorOptions::pinned_memory on every factory, Tensor::pin_memory, what operations on a
// pinned tensor give, and the life of pinned memory across unload_plugins().
#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdlib>
#include <filesystem>

#include <hetero/hetero.hpp>

using namespace hetero;

namespace {

const Device kProvider("pinnedhost:0");

class Pinned : public testing::Test {
 protected:
  // Only cpu and pinnedhost, also on a GPU machine: there the cuda plugin would otherwise
  // provide the pinned memory, and the tests count pinnedhost's.
  static void SetUpTestSuite() {
    ::setenv("HETERO_BACKENDS", "cpu,pinnedhost", 1);
    unload_plugins();
    load_plugin(HETERO_TEST_PINNED_HOST_PLUGIN);
  }
  void SetUp() override { load_plugin(HETERO_TEST_PINNED_HOST_PLUGIN); }
  static std::size_t live_pinned_bytes() { return memory_stats(kProvider).allocated; }
};

TensorOptions pinned() { return TensorOptions().pinned_memory(true); }

void expect_pinned_copy_of(const Tensor& p, const Tensor& expected) {
  EXPECT_TRUE(p.is_pinned());
  EXPECT_EQ(p.device(), Device::cpu());
  EXPECT_TRUE(p.is_contiguous());
  EXPECT_EQ(p.dtype(), expected.dtype());
  EXPECT_EQ(p.shape(), expected.shape());
  EXPECT_EQ(p.to(DType::float64).to_vector<double>(),
            expected.to(DType::float64).to_vector<double>());
}

}  // namespace

TEST_F(Pinned, OptionIsOffByDefaultAndComposes) {
  EXPECT_FALSE(TensorOptions().pinned_memory());
  const TensorOptions o = TensorOptions(DType::float64).pinned_memory(true).device(Device::cpu());
  EXPECT_TRUE(o.pinned_memory());
  EXPECT_EQ(o.dtype_or(DType::int32), DType::float64);
  EXPECT_FALSE(o.pinned_memory(false).pinned_memory());
  EXPECT_FALSE(zeros({2}).is_pinned());
}

TEST_F(Pinned, EveryFactoryGivesThePinnedTwinOfItsOrdinaryResult) {
  expect_pinned_copy_of(zeros({2, 3}, pinned()), zeros({2, 3}));
  expect_pinned_copy_of(ones({4}, pinned().dtype(DType::int32)), ones({4}, DType::int32));
  expect_pinned_copy_of(full({3}, 2.5, pinned().dtype(DType::float16)),
                        full({3}, 2.5, DType::float16));
  expect_pinned_copy_of(arange(5, pinned()), arange(5));
  expect_pinned_copy_of(arange(0.0, 1.0, 0.25, pinned()), arange(0.0, 1.0, 0.25));
  expect_pinned_copy_of(tensor({1, 2, 3}, pinned()), tensor({1, 2, 3}));
  expect_pinned_copy_of(tensor({{1.5, 2.0}, {3.0, 4.0}}, pinned()),
                        tensor({{1.5, 2.0}, {3.0, 4.0}}));
  // from_vector converting its values to another dtype.
  const std::vector<float> v{1.25f, -2.0f, 3.5f, 0.0f};
  expect_pinned_copy_of(from_vector(v, {2, 2}, pinned().dtype(DType::float64)),
                        from_vector(v, {2, 2}, DType::float64));
  expect_pinned_copy_of(from_vector(v, {4}, pinned()), from_vector(v, {4}));
  Tensor e = empty({5, 7}, pinned().dtype(DType::bfloat16));
  EXPECT_TRUE(e.is_pinned());
  EXPECT_EQ(e.shape(), (Shape{5, 7}));
  EXPECT_EQ(e.dtype(), DType::bfloat16);
}

TEST_F(Pinned, RandomFactoriesDrawTheSameValuesPinnedOrNot) {
  for (DType t : {DType::float32, DType::float64, DType::float16, DType::bfloat16}) {
    SCOPED_TRACE(dtype_name(t));
    manual_seed(11);
    Tensor u = rand({3, 4}, pinned().dtype(t)), n = randn({6}, pinned().dtype(t));
    manual_seed(11);
    expect_pinned_copy_of(u, rand({3, 4}, t));
    expect_pinned_copy_of(n, randn({6}, t));
  }
}

TEST_F(Pinned, OnlyTheHostCanBePinned) {
  EXPECT_THROW(empty({2}, TensorOptions(kProvider).pinned_memory(true)), InvalidDeviceError);
  EXPECT_THROW(zeros({2}, TensorOptions(Device::cpu(1)).pinned_memory(true)), InvalidDeviceError);
  EXPECT_THROW(rand({2}, TensorOptions(kProvider).dtype(DType::float16).pinned_memory(true)),
               InvalidDeviceError);
  {
    DeviceGuard guard(kProvider);  // the default device is not the host
    EXPECT_THROW(ones({2}, pinned()), InvalidDeviceError);
    EXPECT_TRUE(ones({2}, pinned().device(Device::cpu())).is_pinned());
  }
  try {
    (void)tensor({1.0, 2.0}, TensorOptions(kProvider).pinned_memory(true));
    FAIL() << "expected InvalidDeviceError";
  } catch (const InvalidDeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("pinnedhost:0"), std::string::npos) << e.what();
  }
}

TEST_F(Pinned, PinMemoryCopiesOnceAndKeepsAPinnedTensor) {
  Tensor x = arange(6, DType::float32).view({2, 3}).t();  // not contiguous
  Tensor p = x.pin_memory();
  expect_pinned_copy_of(p, x.contiguous());
  EXPECT_FALSE(x.is_pinned());
  EXPECT_TRUE(p.pin_memory().is_same(p));
  EXPECT_TRUE(p.to(Device::cpu()).is_same(p));  // as torch: already on the device
}

// As torch's pin_memory, the pinned copy of a tensor that requires grad carries its history
// (Note [copy_ and autograd]); before, it raised NotImplementedError.
TEST_F(Pinned, PinMemoryOfATensorThatRequiresGradKeepsItsHistory) {
  Tensor x = tensor({1.0f, 2.0f, 3.0f}).requires_grad_();
  Tensor p = (x * 2.0).pin_memory();
  EXPECT_TRUE(p.is_pinned());
  EXPECT_TRUE(p.requires_grad());
  (p * p).sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{8, 16, 24}));
  Tensor leaf_copy = x.pin_memory();  // of a leaf: a non-leaf pinned copy
  EXPECT_FALSE(leaf_copy.is_leaf());
  {
    NoGradGuard no_grad;
    EXPECT_FALSE(x.pin_memory().requires_grad());
  }
}

TEST_F(Pinned, OperationsOnPinnedTensorsGiveOrdinaryCpuTensors) {
  Tensor p = arange(4, pinned().dtype(DType::float32));
  for (const Tensor& r : {p + 1.0, p.clone(), p.to(DType::float64), exp(p), p.sum(),
                          matmul(p.view({2, 2}), p.view({2, 2}))}) {
    EXPECT_FALSE(r.is_pinned());
    EXPECT_EQ(r.device(), Device::cpu());
  }
  EXPECT_EQ((p * 2.0).to_vector<float>(), (std::vector<float>{0, 2, 4, 6}));
  // Written in place, it stays pinned.
  p.copy_(tensor({9.0, 8.0, 7.0, 6.0}));
  EXPECT_TRUE(p.is_pinned());
  EXPECT_EQ(p.to_vector<float>(), (std::vector<float>{9, 8, 7, 6}));
  // Views share the pinned storage.
  EXPECT_TRUE(p.view({2, 2}).is_pinned());
  EXPECT_TRUE(p.narrow(0, 1, 2).is_pinned());
}

TEST_F(Pinned, EmptyPinnedTensorsTakeNoMemory) {
  const std::size_t before = live_pinned_bytes();
  Tensor p = zeros({0, 3}, pinned());
  Tensor q = zeros({0}).pin_memory();
  EXPECT_TRUE(p.is_pinned());
  EXPECT_TRUE(q.is_pinned());
  EXPECT_EQ(p.shape(), (Shape{0, 3}));
  EXPECT_EQ(live_pinned_bytes(), before);
}

TEST_F(Pinned, MemoryGoesBackWhenTheLastTensorDies) {
  const std::size_t before = live_pinned_bytes();
  {
    Tensor a = empty({1000}, pinned().dtype(DType::float64));
    Tensor view = a.narrow(0, 10, 20);
    a = Tensor();
    EXPECT_EQ(live_pinned_bytes(), before + 8000);  // the view holds the storage
    Tensor b = ones({3}).pin_memory();
    EXPECT_EQ(live_pinned_bytes(), before + 8012);
  }
  EXPECT_EQ(live_pinned_bytes(), before);
}

TEST_F(Pinned, PinnedTensorsOutliveUnloadingThePlugins) {
  Tensor p = arange(8, pinned().dtype(DType::float32));
  unload_plugins();  // the tensor holds the plugin that made its memory
  p.copy_(p * 3.0);
  EXPECT_EQ(p.to_vector<float>(), (std::vector<float>{0, 3, 6, 9, 12, 15, 18, 21}));
  EXPECT_TRUE(p.is_pinned());
  p = Tensor();
  load_plugin(HETERO_TEST_PINNED_HOST_PLUGIN);  // the same library, still loaded
  EXPECT_EQ(live_pinned_bytes(), 0U);
}

TEST_F(Pinned, PinnedTensorsSaveAndLoadAsAnyOther) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("hetero_pinned_" + std::to_string(::getpid()) + ".safetensors");
  Tensor p = tensor({{1.0, 2.0}, {3.0, 4.0}}, pinned());
  nn::NamedTensors tensors;
  tensors.push_back("p", p);
  save(tensors, path);
  const auto loaded = load_file(path);
  std::filesystem::remove(path);
  ASSERT_EQ(loaded.size(), 1U);
  EXPECT_FALSE(loaded.at("p").is_pinned());
  EXPECT_EQ(loaded.at("p").to_vector<float>(), p.to_vector<float>());
}
