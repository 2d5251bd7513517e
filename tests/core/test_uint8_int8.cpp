// SPDX-License-Identifier: Apache-2.0
// The uint8 and int8 dtypes (issue #24, item 2), as torch.uint8 / torch.int8: host round
// trips, promotion, wrap-around arithmetic, reductions, full()'s range check, printing and
// safetensors. Expected values are torch 1.13's; the differential test (tests/torch_diff)
// covers the general cases, and conformance the kernels of every backend.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <sstream>

#include <hetero/hetero.hpp>

using namespace hetero;

namespace {
std::vector<std::int64_t> values(const Tensor& t) {
  return t.to(DType::int64).to_vector<std::int64_t>();
}
using V = std::vector<std::int64_t>;
Tensor u8(std::vector<std::uint8_t> v) { return from_vector(v); }
Tensor i8(std::vector<std::int8_t> v) { return from_vector(v); }
}  // namespace

TEST(Uint8Int8, FromVectorRoundTripsEveryValueExactly) {
  std::vector<std::uint8_t> all_u(256);
  std::vector<std::int8_t> all_i(256);
  for (int k = 0; k < 256; ++k) {
    all_u[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(k);
    all_i[static_cast<std::size_t>(k)] = static_cast<std::int8_t>(k - 128);
  }
  const Tensor u = from_vector(all_u);
  const Tensor i = from_vector(all_i);
  EXPECT_EQ(u.dtype(), DType::uint8);
  EXPECT_EQ(i.dtype(), DType::int8);
  EXPECT_EQ(u.to_vector<std::uint8_t>(), all_u);
  EXPECT_EQ(i.to_vector<std::int8_t>(), all_i);
  EXPECT_EQ(u[200].item<std::uint8_t>(), 200);
  EXPECT_EQ(i[0].item<std::int8_t>(), -128);
  // Through every other dtype that holds them exactly, and back.
  for (DType t : {DType::int32, DType::int64, DType::float32, DType::float64, DType::float16,
                  DType::bfloat16})
    EXPECT_EQ(u.to(t).to(DType::uint8).to_vector<std::uint8_t>(), all_u) << dtype_name(t);
}

TEST(Uint8Int8, CastsWrapBetweenIntegersAsTorch) {
  EXPECT_EQ(values(tensor({300, -1, 256}).to(DType::uint8)), (V{44, 255, 0}));
  EXPECT_EQ(values(tensor({200, -129, 127}).to(DType::int8)), (V{-56, 127, 127}));
  EXPECT_EQ(values(i8({-50, 0, 1}).to(DType::uint8)), (V{206, 0, 1}));
  EXPECT_EQ(values(u8({0, 3}).to(DType::bool_)), (V{0, 1}));
  EXPECT_EQ(tensor({-3, 7}).to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{253, 7}));
}

TEST(Uint8Int8, PromotionFollowsTorch) {
  const Tensor u = u8({1, 2}), i = i8({-1, 3});
  const Tensor b = tensor({1, 0}).to(DType::bool_);
  EXPECT_EQ((u + b).dtype(), DType::uint8);
  EXPECT_EQ((i + b).dtype(), DType::int8);
  EXPECT_EQ((u + tensor({1, 1}).to(DType::int32)).dtype(), DType::int32);
  EXPECT_EQ((i * ones({2}, TensorOptions().dtype(DType::float16))).dtype(), DType::float16);
  EXPECT_EQ((u + full({}, 300, TensorOptions().dtype(DType::int64))).dtype(), DType::uint8);
  EXPECT_EQ((u + full({}, 2.5, TensorOptions().dtype(DType::float64))).dtype(), DType::float64);
  EXPECT_EQ((u / i).dtype(), DType::float32);
  EXPECT_EQ((u * 2.5).dtype(), DType::float32);
  // torch gives int16, which hetero lacks: int32, with the same values (docs/semantics.md).
  const Tensor ui = u + i;
  EXPECT_EQ(ui.dtype(), DType::int32);
  EXPECT_EQ(values(ui), (V{0, 5}));
  EXPECT_EQ(values(u8({255}) * i8({-128})), (V{-32640}));
}

TEST(Uint8Int8, ArithmeticWrapsModulo256) {
  EXPECT_EQ(values(u8({200}) * u8({2})), (V{144}));
  EXPECT_EQ(values(u8({1, 2}) - u8({3, 3})), (V{254, 255}));
  EXPECT_EQ(values(-u8({1, 2})), (V{255, 254}));
  EXPECT_EQ(values(i8({100}) + i8({100})), (V{-56}));
  EXPECT_EQ(values(-i8({-128})), (V{-128}));
  EXPECT_EQ(values(abs(i8({-128, -5, 5}))), (V{-128, 5, 5}));
  EXPECT_EQ(values(relu(i8({-5, 5}))), (V{0, 5}));
  EXPECT_EQ(values(u8({10}) + 300), (V{54}));  // an integral scalar wraps, as torch
  EXPECT_EQ((u8({10}) + 300).dtype(), DType::uint8);
  EXPECT_EQ(values(maximum(u8({1, 255}), u8({5, 0}))), (V{5, 255}));
  const auto q = (u8({7}) / u8({2})).to_vector<float>();
  EXPECT_EQ(q[0], 3.5f);
  EXPECT_EQ(exp(u8({0})).dtype(), DType::float32);
}

TEST(Uint8Int8, ReductionsFollowTorch) {
  const Tensor u = u8({200, 100, 255});
  EXPECT_EQ(u.sum().dtype(), DType::int64);
  EXPECT_EQ(u.sum().item<std::int64_t>(), 555);  // not wrapped
  EXPECT_EQ(i8({-128, -128}).sum().item<std::int64_t>(), -256);
  EXPECT_EQ(u.max().dtype(), DType::uint8);
  EXPECT_EQ(u.max().item<std::int64_t>(), 255);
  EXPECT_EQ(u.min().item<std::int64_t>(), 100);
  EXPECT_EQ(u.argmax().item<std::int64_t>(), 2);
  EXPECT_THROW(u.mean(), DTypeError);
  EXPECT_THROW(i8({1}).norm(), DTypeError);
}

TEST(Uint8Int8, FullChecksTheRangeAsTorch) {
  const auto u = TensorOptions().dtype(DType::uint8), i = TensorOptions().dtype(DType::int8);
  EXPECT_EQ(values(full({2}, 255, u)), (V{255, 255}));
  EXPECT_EQ(values(full({1}, -128, i)), (V{-128}));
  for (double bad : {255.5, -0.5, -1.0, 256.0, std::nan("")})
    EXPECT_THROW(full({1}, bad, u), DTypeError);
  for (double bad : {127.9, -128.5, 200.0}) EXPECT_THROW(full({1}, bad, i), DTypeError);
  EXPECT_THROW(full({1}, 2147483647.5, TensorOptions().dtype(DType::int32)), DTypeError);
  EXPECT_EQ(values(arange(0, 5, 1, u)), (V{0, 1, 2, 3, 4}));
  EXPECT_EQ(zeros({3}, i).dtype(), DType::int8);
}

TEST(Uint8Int8, PrintsAsTorch) {
  std::ostringstream os;
  os << u8({1, 200});
  EXPECT_EQ(os.str(), "tensor([  1, 200], dtype=uint8)");
  std::ostringstream os2;
  os2 << i8({-5});
  EXPECT_EQ(os2.str(), "tensor([-5], dtype=int8)");
}

TEST(Uint8Int8, SafetensorsStoresU8AndI8) {
  const auto path = std::filesystem::temp_directory_path() / "hetero_test_uint8_int8.safetensors";
  nn::NamedTensors ts;
  ts.push_back("image", u8({0, 128, 255}));
  ts.push_back("quantised", i8({-128, 0, 127}));
  save(ts, path);
  const nn::NamedTensors back = load_file(path);
  EXPECT_EQ(back.at("image").dtype(), DType::uint8);
  EXPECT_EQ(back.at("quantised").dtype(), DType::int8);
  EXPECT_EQ(values(back.at("image")), (V{0, 128, 255}));
  EXPECT_EQ(values(back.at("quantised")), (V{-128, 0, 127}));
  std::filesystem::remove(path);
}
