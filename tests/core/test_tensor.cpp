// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include <hetero/hetero.hpp>

using namespace hetero;

TEST(Tensor, FactoriesGiveShapeDtypeDeviceAndValues) {
  Tensor x = tensor({1, 2, 3});
  EXPECT_EQ(x.dtype(), DType::int64);
  EXPECT_EQ(x.device(), Device("cpu"));
  EXPECT_EQ(x.to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(tensor({1.5, 2.5}).dtype(), DType::float32);
  Tensor X = ones({2, 3}, try_gpu());
  EXPECT_EQ(X.shape(), (Shape{2, 3}));
  EXPECT_EQ(X.dtype(), DType::float32);
  EXPECT_EQ(X.to_vector<float>(), std::vector<float>(6, 1.0f));
  EXPECT_EQ(zeros({4}, DType::int32).to_vector<int>(), std::vector<int>(4, 0));
  EXPECT_EQ(full({2}, 7.5, DType::float64).to_vector<double>(), (std::vector<double>{7.5, 7.5}));
  EXPECT_EQ(arange(5).to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(arange(0, 1, 0.25).to_vector<float>(), (std::vector<float>{0, 0.25f, 0.5f, 0.75f}));
  EXPECT_EQ(arange(0, 1, 0.25).dtype(), DType::float32);
  Tensor v = from_vector(std::vector<double>{1, 2, 3, 4, 5, 6}, {2, 3},
                         TensorOptions().dtype(DType::float32));
  EXPECT_EQ(v.dtype(), DType::float32);
  EXPECT_EQ(v.to_vector<float>()[5], 6.0f);
  EXPECT_EQ(tensor({{1, 2}, {3, 4}}).shape(), (Shape{2, 2}));
  EXPECT_EQ(zeros({0, 3}).numel(), 0);
  EXPECT_EQ(ones({}).item<float>(), 1.0f);
}

TEST(Tensor, RandomIsReproducibleAfterManualSeed) {
  manual_seed(123);
  const auto a = rand({100}).to_vector<float>();
  const auto n1 = randn({100}).to_vector<float>();
  manual_seed(123);
  EXPECT_EQ(rand({100}).to_vector<float>(), a);
  EXPECT_EQ(randn({100}).to_vector<float>(), n1);
  EXPECT_NE(rand({100}).to_vector<float>(), a);  // the generator advanced
  for (float v : a) {
    EXPECT_GE(v, 0.0f);
    EXPECT_LT(v, 1.0f);
  }
  EXPECT_THROW(rand({2}, DType::int64), DTypeError);
}

// Generator objects (as torch.Generator): their own stream, save/restore of the state, and
// independence from manual_seed and the default generators.
TEST(Tensor, GeneratorsHaveTheirOwnStateAndRestoreIt) {
  Generator g(7);
  EXPECT_EQ(g.initial_seed(), 7u);
  const GeneratorState start = g.get_state();
  EXPECT_EQ(start, (GeneratorState{7, 0}));
  const auto a = rand({50}, g).to_vector<float>();
  const GeneratorState after = g.get_state();
  EXPECT_EQ(after.offset, 100u);  // two counters per element
  manual_seed(1);                 // the default generators only
  const auto b = randn({50}, g, DType::float64).to_vector<double>();
  g.set_state(start);
  EXPECT_EQ(rand({50}, g).to_vector<float>(), a);
  EXPECT_EQ(randn({50}, g, DType::float64).to_vector<double>(), b);
  g.set_state(after);
  EXPECT_EQ(randn({50}, g, DType::float64).to_vector<double>(), b);
  // Another seed: another stream (Philox keys, not shifted copies).
  Generator h(8);
  EXPECT_NE(rand({50}, h).to_vector<float>(), a);
  g.manual_seed(7);
  EXPECT_EQ(g.get_state(), start);
  // The default generator of cpu draws what rand() draws, and manual_seed rewinds it.
  manual_seed(5);
  EXPECT_EQ(default_generator(Device::cpu()).get_state(), (GeneratorState{5, 0}));
  const auto c = rand({10}).to_vector<float>();
  Generator same(5);
  EXPECT_EQ(rand({10}, same).to_vector<float>(), c);
  EXPECT_THROW(default_generator(Device("cpu:7")), InvalidDeviceError);
}

TEST(Tensor, ToSharesStorageAndCopyToAllocates) {
  Tensor Z = ones({2, 3});
  // Buffers handed out: from the device or from the pool.
  auto served = [&] {
    const MemoryStats s = memory_stats(Z.device());
    return s.allocation_count + s.pool_hits;
  };
  const auto before = served();
  Tensor same = Z.to(Z.device());
  EXPECT_TRUE(same.is_same(Z));
  EXPECT_TRUE(same.shares_storage(Z));
  EXPECT_EQ(served(), before) << "to() on the same device allocated";
  Tensor copy = Z.copy_to(Z.device());
  EXPECT_FALSE(copy.is_same(Z));
  EXPECT_FALSE(copy.shares_storage(Z));
  EXPECT_EQ(served(), before + 1);
  EXPECT_EQ(copy.to_vector<float>(), Z.to_vector<float>());
  EXPECT_TRUE(Z.to(DType::float32).is_same(Z));
  EXPECT_EQ(Z.to(DType::int32).dtype(), DType::int32);
  EXPECT_TRUE(Z.cpu().is_same(Z));
}

TEST(Tensor, ViewsShareStorage) {
  Tensor a = arange(6).to(DType::float32);
  Tensor v = a.view({2, 3});
  EXPECT_TRUE(v.shares_storage(a));
  Tensor t = v.t();
  EXPECT_EQ(t.shape(), (Shape{3, 2}));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.contiguous().to_vector<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  EXPECT_THROW(t.view({6}), ShapeError);
  EXPECT_EQ(t.reshape({6}).to_vector<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(v.view({-1}).shape(), (Shape{6}));
  EXPECT_THROW(v.view({4, -1}), ShapeError);
  EXPECT_EQ(v[1].to_vector<float>(), (std::vector<float>{3, 4, 5}));
  EXPECT_EQ(v[-1][0].item<float>(), 3.0f);
  EXPECT_THROW(v[2], IndexError);
  EXPECT_THROW(v.size(2), IndexError);
  EXPECT_EQ(v.unsqueeze(0).shape(), (Shape{1, 2, 3}));
  EXPECT_EQ(v.unsqueeze(0).squeeze(0).shape(), (Shape{2, 3}));
}

// torch: x.t() of a 0-d or 1-d tensor, x.transpose(0, -1) of a 0-d one and x.squeeze(d) where
// dimension d is not 1 are new views (`y is x` is False). They returned x itself, so
// y.requires_grad_() made x require grad, and y.grad() was x's.
TEST(Tensor, ViewsThatChangeNothingAreStillNewViews) {
  Tensor vec = tensor({1.0f, 2.0f, 3.0f}), scalar = full({}, 4.0), mat = ones({2, 3});
  const std::vector<std::pair<const char*, std::pair<Tensor, Tensor>>> cases = {
      {"t() of 1-d", {vec, vec.t()}},
      {"t() of 0-d", {scalar, scalar.t()}},
      {"transpose(0, -1) of 0-d", {scalar, scalar.transpose(0, -1)}},
      {"transpose(1, 1)", {mat, mat.transpose(1, 1)}},
      {"squeeze(0) of [2, 3]", {mat, mat.squeeze(0)}},
      {"squeeze(0) of 0-d", {scalar, scalar.squeeze(0)}},
  };
  for (const auto& [what, pair] : cases) {
    SCOPED_TRACE(what);
    const auto& [x, y] = pair;
    EXPECT_FALSE(y.is_same(x));
    EXPECT_TRUE(y.shares_storage(x));
    EXPECT_EQ(y.shape(), x.shape());
    Tensor view = y;
    view.requires_grad_(true);  // a leaf of its own: x does not require grad
    EXPECT_FALSE(x.requires_grad());
  }
  // The gradient flows through such a view unchanged.
  Tensor leaf = tensor({1.0f, 2.0f, 3.0f});
  leaf.requires_grad_(true);
  Tensor through = leaf.t();
  EXPECT_FALSE(through.is_same(leaf));
  (through * tensor({1.0f, 2.0f, 3.0f})).sum().backward();
  EXPECT_EQ(leaf.grad().to_vector<float>(), (std::vector<float>{1, 2, 3}));
  Tensor sq = full({}, 5.0);
  sq.requires_grad_(true);
  (sq.squeeze(0) * 3.0).backward();
  EXPECT_EQ(sq.grad().item<float>(), 3.0f);
}

TEST(Tensor, SetDataAndCopyInPlace) {
  Tensor a = ones({2});
  Tensor alias = a;
  a.set_data(full({3}, 2.0));
  EXPECT_EQ(alias.shape(), (Shape{3}));
  Tensor dst = zeros({2, 2});
  dst.copy_(tensor({{1, 2}, {3, 4}}));
  EXPECT_EQ(dst.to_vector<float>(), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_THROW(dst.copy_(ones({3})), ShapeError);
}

TEST(Tensor, HostReadsValidate) {
  EXPECT_THROW(ones({2}).item<float>(), ShapeError);
  EXPECT_THROW(from_vector(std::vector<float>{1, 2, 3}, {2, 2}), ShapeError);
  EXPECT_THROW(ones({-1}), ShapeError);
  EXPECT_THROW(ones({1, 1, 1, 1, 1, 1, 1, 1, 1}), ShapeError);
  Tensor undefined;
  EXPECT_THROW(undefined.shape(), Error);
}

TEST(Tensor, AllocationOfFourPebibytesThrowsAndProcessGoesOn) {
  // 2^50 float32 elements = 4 PiB.
  try {
    empty({std::int64_t{1} << 50});
    FAIL() << "4 PiB allocation succeeded";
  } catch (const OutOfMemoryError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("cpu:0"), std::string::npos) << msg;
    EXPECT_NE(msg.find("4503599627370496"), std::string::npos) << msg;  // requested bytes
    EXPECT_NE(msg.find("free"), std::string::npos) << msg;
  }
  EXPECT_THROW(empty({std::int64_t{1} << 40, std::int64_t{1} << 40}), Error);  // overflows size_t
  EXPECT_EQ(ones({3}).sum().item<float>(), 3.0f);
}

namespace {

TEST(Narrow, ViewsARangeAndChecksIt) {
  using namespace hetero;
  const Tensor x = arange(0, 12, 1, DType::float32).view({3, 4});
  const Tensor n = x.narrow(1, 1, 2);
  EXPECT_TRUE(n.shares_storage(x));
  EXPECT_EQ(n.shape(), (Shape{3, 2}));
  EXPECT_EQ(n.to_vector<float>(), (std::vector<float>{1, 2, 5, 6, 9, 10}));
  EXPECT_EQ(x.narrow(0, -1, 1).to_vector<float>(), (std::vector<float>{8, 9, 10, 11}));
  EXPECT_THROW(x.narrow(0, 2, 2), IndexError);
  EXPECT_THROW(x.narrow(2, 0, 1), IndexError);
}

// The chapter's advice, counted: item() per step is one host sync per step; a device
// accumulator read once is one.
TEST(TransferStats, CountsCopiesAndHostSyncs) {
  using namespace hetero;
  const Device cpu = Device::cpu();
  reset_transfer_stats();
  EXPECT_EQ(transfer_stats(cpu).host_syncs, 0u);
  const Tensor x = from_vector(std::vector<float>{1, 2, 3}, {3});
  auto s = transfer_stats(cpu);
  EXPECT_EQ(s.host_to_device, 1u);
  EXPECT_EQ(s.host_to_device_bytes, 12u);

  reset_transfer_stats();
  for (int i = 0; i < 10; ++i) (void)(x * 2.0).sum().item<float>();
  EXPECT_EQ(transfer_stats(cpu).host_syncs, 10u);
  EXPECT_EQ(transfer_stats(cpu).device_to_host, 10u);

  reset_transfer_stats();
  Tensor total = zeros({});
  for (int i = 0; i < 10; ++i) total = total + (x * 2.0).sum();
  EXPECT_EQ(total.item<float>(), 120.0f);
  EXPECT_EQ(transfer_stats(cpu).host_syncs, 1u);

  reset_transfer_stats();
  synchronize(cpu);
  const Tensor c = x.copy_to(cpu);
  s = transfer_stats(cpu);
  EXPECT_EQ(s.host_syncs, 1u);
  EXPECT_EQ(s.device_to_device, 1u);
  EXPECT_EQ(s.device_to_device_bytes, 12u);
  EXPECT_EQ(s.staged, 0u);
}

}  // namespace

// Host reads convert as every backend's cast does (element_conversion.hpp): NaN -> 0,
// out-of-range floats saturate, anything -> bool is x != 0; so to_vector<T>() equals a
// cast to T's dtype followed by the read.
TEST(HostReads, ConvertByTheBackendsRule) {
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor t = from_vector(
      std::vector<float>{std::nanf(""), inf, -inf, 1e20f, -1e20f, 3.7f, -3.7f, -0.5f, 0.0f}, {9});
  const std::vector<std::int32_t> i32{0, INT32_MAX, INT32_MIN, INT32_MAX, INT32_MIN, 3, -3, 0, 0};
  EXPECT_EQ(t.to_vector<std::int32_t>(), i32);
  EXPECT_EQ(t.to(DType::int32).to_vector<std::int32_t>(), i32);
  const std::vector<std::int64_t> i64{0, INT64_MAX, INT64_MIN, INT64_MAX, INT64_MIN, 3, -3, 0, 0};
  EXPECT_EQ(t.to_vector<std::int64_t>(), i64);
  EXPECT_EQ(t.to(DType::int64).to_vector<std::int64_t>(), i64);
  const std::vector<bool> b{true, true, true, true, true, true, true, true, false};
  EXPECT_EQ(t.to_vector<bool>(), b);
  EXPECT_EQ(t.to(DType::bool_).to_vector<bool>(), b);
  EXPECT_EQ(t[0].item<std::int32_t>(), 0);
  EXPECT_EQ(from_vector(std::vector<double>{1e300}, {1}).item<std::int64_t>(), INT64_MAX);
}

// from_vector<T> takes T's own dtype: bytes become uint8 (as torch.tensor of torch.uint8),
// bools bool, never 4-byte floats.
TEST(HostReads, FromVectorOfBytesIsUint8AndOfBoolsIsBool) {
  const Tensor t = from_vector(std::vector<std::uint8_t>{0, 1, 7, 0, 255}, {5});
  EXPECT_EQ(t.dtype(), DType::uint8);
  EXPECT_EQ(t.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 7, 0, 255}));
  const Tensor b = from_vector(std::vector<bool>{false, true, true, false, true}, {5});
  EXPECT_EQ(b.dtype(), DType::bool_);
  EXPECT_EQ(b.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 1, 0, 1}));
}

// Issue #25: copy_ between overlapping views of one tensor smeared silently (a one-step
// shift gave [0, 0, 0, 0, 0]; m.copy_(m.t()) was wrong). It copies as if through a
// temporary (torch raises for these; docs/semantics.md row 13).
TEST(CopyInPlace, OverlappingViewsCopyAsThroughATemporary) {
  Tensor x = arange(0, 5);
  x.narrow(0, 1, 4).copy_(x.narrow(0, 0, 4));
  EXPECT_EQ(x.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 0, 1, 2, 3}));
  Tensor y = arange(0, 5);
  y.narrow(0, 0, 4).copy_(y.narrow(0, 1, 4));
  EXPECT_EQ(y.to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 2, 3, 4, 4}));
  Tensor m = arange(0, 9).view({3, 3});
  m.copy_(m.t());
  EXPECT_EQ(m.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 3, 6, 1, 4, 7, 2, 5, 8}));
  Tensor z = arange(0, 4);
  z.copy_(z);  // the same view: nothing to do
  EXPECT_EQ(z.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 2, 3}));
  Tensor w = arange(0, 6);
  w.narrow(0, 3, 3).copy_(w.narrow(0, 0, 3));  // disjoint ranges of one storage
  EXPECT_EQ(w.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 2, 0, 1, 2}));
}

// Issue #25: arange(0, 1e12) escaped as an untyped std::bad_alloc (a host vector of 1e12
// values); the result is allocated first now, and the values written in chunks.
TEST(Factories, HugeArangeIsATypedOutOfMemoryErrorAndLongOnesAreExact) {
  EXPECT_THROW(arange(0.0, 1e12), OutOfMemoryError);
  EXPECT_THROW(arange(std::int64_t{0}, std::int64_t{1} << 45), OutOfMemoryError);
  const auto v = arange(0, 200001).to_vector<std::int64_t>();  // four chunks
  ASSERT_EQ(v.size(), 200001u);
  for (std::size_t i = 0; i < v.size(); i += 9973) EXPECT_EQ(v[i], static_cast<std::int64_t>(i));
  EXPECT_EQ(v.back(), 200000);
  const auto f =
      arange(0.0, 100000.0, 0.5, TensorOptions().dtype(DType::float64)).to_vector<double>();
  EXPECT_EQ(f[199999], 99999.5);
}

// arange of integral arguments into an integer dtype counts and steps in integers, as torch
// subtracts the bounds as integers: through double, arange(2^62, 2^62 + 3) had no elements,
// arange(2^53, 2^53 + 4) held 2^53 twice, and arange(2^63 - 3, 2^63 - 1) was refused.
TEST(Factories, IntegralArangePastTwoToThe53IsExact) {
  using V = std::vector<std::int64_t>;
  constexpr std::int64_t big = std::int64_t{1} << 62, exact = std::int64_t{1} << 53;
  constexpr std::int64_t most = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t least = std::numeric_limits<std::int64_t>::min();
  EXPECT_EQ(arange(big, big + 3).to_vector<std::int64_t>(), (V{big, big + 1, big + 2}));
  EXPECT_EQ(arange(exact, exact + 4).to_vector<std::int64_t>(),
            (V{exact, exact + 1, exact + 2, exact + 3}));
  EXPECT_EQ(arange(exact + 1, exact + 9, std::int64_t{3}).to_vector<std::int64_t>(),
            (V{exact + 1, exact + 4, exact + 7}));
  EXPECT_EQ(arange(most - 2, most).to_vector<std::int64_t>(), (V{most - 2, most - 1}));
  EXPECT_EQ(arange(least, least + 3).to_vector<std::int64_t>(), (V{least, least + 1, least + 2}));
  EXPECT_EQ(arange(-big, -big - 5, std::int64_t{-2}).to_vector<std::int64_t>(),
            (V{-big, -big - 2, -big - 4}));
  // The whole int64 range in steps of 2^63 - 1: a distance beyond int64.
  EXPECT_EQ(arange(least, most, most).to_vector<std::int64_t>(), (V{least, -1, most - 1}));
  EXPECT_THROW(arange(std::int64_t{0}, std::int64_t{5}, std::int64_t{0}), ShapeError);
  EXPECT_THROW(arange(std::int64_t{5}, std::int64_t{0}, std::int64_t{1}), ShapeError);
  EXPECT_THROW(arange(least, most), ShapeError);  // 2^64 - 1 elements
  // Into a narrower integer dtype the values wrap, as torch's.
  EXPECT_EQ(arange(std::int64_t{254}, std::int64_t{258}, std::int64_t{1},
                   TensorOptions().dtype(DType::uint8))
                .to(DType::int64)
                .to_vector<std::int64_t>(),
            (V{254, 255, 0, 1}));
  // one_hot of the largest int64 has no class count (most + 1 overflowed before).
  EXPECT_THROW(one_hot(tensor({most})), ValueError);
}

// relocate_storage (issue #29 item 3): the tensor and its views move to new memory with the
// same values; the old memory stays with the returned owner, and writes into it reach no
// tensor.
TEST(Tensor, RelocateStorageMovesEveryViewAndKeepsTheOldMemoryWithItsOwner) {
  Tensor x = arange(0, 8, 1, DType::float32);
  Tensor view = x.narrow(0, 2, 3);
  auto* old = static_cast<float*>(x.host_data_ptr());
  const auto version = tensor_version(x);
  std::shared_ptr<void> owner = relocate_storage(x);
  ASSERT_NE(owner, nullptr);
  EXPECT_NE(x.host_data_ptr(), static_cast<void*>(old));
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_GT(tensor_version(x), version);
  old[2] = 99.0f;  // what a late foreign write does: the old memory is still allocated
  EXPECT_EQ(view.to_vector<float>(), (std::vector<float>{2, 3, 4}));
  view.copy_(full({3}, -1.0f));  // the views write the new memory
  EXPECT_EQ(x.to_vector<float>()[2], -1.0f);
  EXPECT_EQ(old[3], 3.0f);
  owner.reset();
  EXPECT_EQ(relocate_storage(zeros({0})), nullptr);
  EXPECT_THROW(relocate_storage(Tensor{}), Error);
}

// Issue #47 item 4: torch::tensor(std::vector<T>) and ArrayRef forms compile with hetero's
// spelling too, with libtorch's dtypes (Debian's libtorch 1.13: int and int64_t -> int64,
// float and double -> float32, uint8_t -> uint8, int8_t -> int8).
TEST(Factories, TensorOfAVectorOrSpanTakesLibtorchsDtype) {
  const std::vector<std::int64_t> i64{1, 2, 3};
  const std::vector<int> i32{4, 5};
  const std::vector<double> f64{1.5, -2.25};
  const std::vector<float> f32{0.5f};
  const std::vector<std::uint8_t> u8{7, 255};
  const std::vector<std::int8_t> s8{-3};
  EXPECT_EQ(tensor(i64).dtype(), DType::int64);
  EXPECT_EQ(tensor(i64).to_vector<std::int64_t>(), i64);
  EXPECT_EQ(tensor(i32).dtype(), DType::int64);
  EXPECT_EQ(tensor(i32).to_vector<std::int64_t>(), (std::vector<std::int64_t>{4, 5}));
  EXPECT_EQ(tensor(f64).dtype(), DType::float32);
  EXPECT_EQ(tensor(f64).to_vector<double>(), f64);
  EXPECT_EQ(tensor(f32).dtype(), DType::float32);
  EXPECT_EQ(tensor(u8).dtype(), DType::uint8);
  EXPECT_EQ(tensor(u8).to_vector<double>(), (std::vector<double>{7, 255}));
  EXPECT_EQ(tensor(s8).dtype(), DType::int8);
  EXPECT_EQ(tensor(std::vector<bool>{true, false}).to_vector<bool>(),
            (std::vector<bool>{true, false}));
  // A span (libtorch's ArrayRef) of part of a buffer; options choose the dtype.
  const std::span<const std::int64_t> tail(i64.data() + 1, 2);
  EXPECT_EQ(tensor(tail).to_vector<std::int64_t>(), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(tensor(f64, TensorOptions().dtype(DType::float64)).dtype(), DType::float64);
  EXPECT_EQ(tensor(std::vector<double>{}).numel(), 0);
  EXPECT_EQ(tensor(std::vector<double>{}).dim(), 1);
}
