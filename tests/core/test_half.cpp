// SPDX-License-Identifier: Apache-2.0
// float16 / bfloat16 through the public API: promotion, arithmetic computed in float and
// rounded once, accumulation wider than the storage, IEEE overflow, GEMM, printing.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include <hetero/hetero.hpp>

namespace {
using namespace hetero;

TEST(Half, PromotionFollowsTorch) {
  const Tensor h = ones({2}, DType::float16), b = ones({2}, DType::bfloat16);
  EXPECT_EQ((h + h).dtype(), DType::float16);
  EXPECT_EQ((h + b).dtype(), DType::float32);  // as torch.promote_types(float16, bfloat16)
  EXPECT_EQ((h + ones({2})).dtype(), DType::float32);
  EXPECT_EQ((h + tensor({1, 2})).dtype(), DType::float16);
  EXPECT_EQ((b * 2.0).dtype(), DType::bfloat16);
  EXPECT_EQ(matmul(ones({2, 3}, DType::bfloat16), ones({3, 2}, DType::bfloat16)).dtype(),
            DType::bfloat16);
}

TEST(Half, SumsAccumulateWiderThanTheStorage) {
  // Adding ones in float16 itself stops at 2048 (2048 + 1 rounds back to 2048).
  EXPECT_EQ(ones({10000}, DType::float16).sum().item<double>(), 10000.0);
  EXPECT_EQ(ones({3000}, DType::bfloat16).mean().item<double>(), 1.0);
  // 10000 is not representable in bfloat16 (8 significant bits): the sum rounds once.
  EXPECT_EQ(ones({10000}, DType::bfloat16).sum().item<double>(), 9984.0);
}

TEST(Half, OverflowIsInfAsIeeeSays) {
  const Tensor big = full({2}, 60000.0, DType::float16);
  const auto v = (big * 2.0).to_vector<double>();
  EXPECT_TRUE(std::isinf(v[0]) && v[0] > 0);
  EXPECT_TRUE(std::isinf((big + big).to_vector<double>()[1]));
  EXPECT_TRUE(std::isinf((big * big).sum().item<double>()));
  // bfloat16 keeps float32's range (60000 itself rounds to 59904: 8 significant bits).
  EXPECT_EQ((full({1}, 60000.0, DType::bfloat16) * 2.0).item<double>(), 119808.0);
}

TEST(Half, MatmulMatchesFloat32WithinRounding) {
  manual_seed(4);
  const Tensor a = randn({17, 33}), b = randn({33, 9});
  const auto ref = matmul(a, b).to_vector<double>();
  for (DType t : {DType::float16, DType::bfloat16}) {
    const Tensor a16 = a.to(t), b16 = b.to(t);
    const auto exact = matmul(a16.to(DType::float32), b16.to(DType::float32)).to_vector<double>();
    const auto got = matmul(a16, b16).to_vector<double>();
    const double ulp = t == DType::float16 ? std::ldexp(1.0, -10) : std::ldexp(1.0, -7);
    for (std::size_t i = 0; i < got.size(); ++i) {
      // Accumulated in float32 from the rounded inputs, then rounded once.
      EXPECT_NEAR(got[i], exact[i], ulp * std::fabs(exact[i]) + 1e-4) << dtype_name(t) << " " << i;
      EXPECT_NEAR(got[i], ref[i], 0.1 * std::sqrt(33.0)) << dtype_name(t) << " " << i;
    }
  }
}

TEST(Half, ElementwiseAndSoftmax) {
  const Tensor x = tensor({-1.0, 0.0, 2.0}).to(DType::float16);
  const auto e = exp(x).to_vector<double>();
  EXPECT_NEAR(e[2], std::exp(2.0), std::exp(2.0) * std::ldexp(1.0, -10));
  const auto s = softmax(x, 0).to_vector<double>();
  EXPECT_NEAR(s[0] + s[1] + s[2], 1.0, 3e-3);
  EXPECT_EQ(argmax(x).item<std::int64_t>(), 2);
}

TEST(Half, PrintsItsDtype) {
  std::ostringstream os;
  os << tensor({1.5, 2.0}).to(DType::float16);
  EXPECT_EQ(os.str(), "tensor([1.5000, 2.0000], dtype=float16)");
}

}  // namespace
