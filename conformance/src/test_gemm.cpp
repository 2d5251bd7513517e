// SPDX-License-Identifier: Apache-2.0
// GEMM against a double reference: both dtypes, all transposes, shapes including 0, 1,
// primes and non-multiples of vector widths, padded leading dimensions, batches with
// strides (including 0: a broadcast operand), alpha and beta.
// Tolerance: |C - ref| <= eps * sqrt(k) * sum_l |alpha a_il b_lj| + eps * |beta c|, with
// eps = 1e-5 (float32), 1e-12 (float64).
#include <algorithm>
#include <array>
#include <cmath>

#include <hetero/conformance/conformance.hpp>
#include <hetero/conformance/matchers.hpp>

namespace hetero::conformance {
namespace {

struct Case {
  std::int64_t m, n, k, batch;
  bool ta, tb;
  double alpha, beta;
  bool broadcast_b;
};

void check(Backend& be, Stream& s, DType t, const Case& c, const std::string& device) {
  const std::int64_t pad = 3;  // leading-dimension padding
  const std::int64_t ar = c.ta ? c.k : c.m, ac = c.ta ? c.m : c.k;
  const std::int64_t br = c.tb ? c.n : c.k, bc = c.tb ? c.k : c.n;
  const std::int64_t lda = ac + pad, ldb = bc + pad, ldc = c.n + pad;
  const std::int64_t sa = ar * lda, sb = c.broadcast_b ? 0 : br * ldb, sc = c.m * ldc;
  const std::int64_t na = std::max<std::int64_t>(sa * c.batch, 1);
  const std::int64_t nb = std::max<std::int64_t>(c.broadcast_b ? br * ldb : sb * c.batch, 1);
  const std::int64_t nc = std::max<std::int64_t>(sc * c.batch, 1);
  const auto A = sample_values(t, na, 31), B = sample_values(t, nb, 32),
             C0 = sample_values(t, nc, 33);
  DeviceArray da(be, 0, t, na, 1), db(be, 0, t, nb, 2), dc(be, 0, t, nc, 5);
  da.upload(pack(t, A).data());
  db.upload(pack(t, B).data());
  dc.upload(pack(t, C0).data());
  GemmArgs g;
  g.dtype = t;
  g.trans_a = c.ta;
  g.trans_b = c.tb;
  g.m = c.m;
  g.n = c.n;
  g.k = c.k;
  g.batch = c.batch;
  g.alpha = c.alpha;
  g.beta = c.beta;
  g.a = da.buffer.get();
  g.a_offset = da.pad;
  g.lda = lda;
  g.stride_a = sa;
  g.b = db.buffer.get();
  g.b_offset = db.pad;
  g.ldb = ldb;
  g.stride_b = sb;
  g.c = dc.buffer.get();
  g.c_offset = dc.pad;
  g.ldc = ldc;
  g.stride_c = sc;
  be.gemm(g, s);
  std::vector<unsigned char> raw(static_cast<std::size_t>(nc) * element_size(t));
  dc.download(raw.data());
  const auto C = unpack(t, raw);
  // float16/bfloat16 accumulate in float32 and round the result once: half an ulp of
  // the result on top of float32's accumulation error.
  const bool half = t == DType::float16 || t == DType::bfloat16;
  const double eps = t == DType::float64 ? 1e-12 : 1e-5;
  std::vector<double> got, expected, tolerances;
  for (std::int64_t b = 0; b < c.batch; ++b)
    for (std::int64_t i = 0; i < c.m; ++i)
      for (std::int64_t j = 0; j < c.n; ++j) {
        double acc = 0, mag = 0;
        for (std::int64_t l = 0; l < c.k; ++l) {
          const double a = A[b * sa + (c.ta ? l * lda + i : i * lda + l)];
          const double bb = B[b * sb + (c.tb ? j * ldb + l : l * ldb + j)];
          acc += a * bb;
          mag += std::abs(c.alpha * a * bb);
        }
        const double old = C0[b * sc + i * ldc + j];
        const double e = c.alpha * acc + c.beta * old;
        const double tol =
            eps * std::sqrt(static_cast<double>(std::max<std::int64_t>(c.k, 1))) * mag +
            eps * std::abs(c.beta * old) + (half ? epsilon(t) * std::abs(e) + 1e-6 : 0) + 1e-30;
        got.push_back(C[b * sc + i * ldc + j]);
        expected.push_back(e);
        tolerances.push_back(tol);
      }
  ASSERT_THAT(got, ElementsNear(expected, tolerances, {c.batch, c.m, c.n}))
      << describe_case("gemm", t, device, {c.batch, c.m, c.n}) << ": C = " << c.alpha
      << " * op(A) op(B) + " << c.beta << " * C, k " << c.k << (c.ta ? ", A transposed" : "")
      << (c.tb ? ", B transposed" : "");
  // Padding between rows is untouched.
  for (std::int64_t b = 0; b < c.batch; ++b)
    for (std::int64_t i = 0; i < c.m; ++i)
      for (std::int64_t j = c.n; j < ldc; ++j)
        ASSERT_EQ(C[b * sc + i * ldc + j], C0[b * sc + i * ldc + j])
            << describe_case("gemm", t, device, {c.batch, c.m, c.n}) << ": wrote into the padding "
            << "after row " << i << " of batch " << b << " (column " << j << " of ldc " << ldc
            << ")";
}

const std::vector<DType>& gemm_dtypes() {
  static const std::vector<DType> v{DType::float32, DType::float64, DType::float16,
                                    DType::bfloat16};
  return v;
}

}  // namespace

TEST_P(BackendTest, GemmMatchesReference) {
  const std::vector<std::array<std::int64_t, 3>> mnk{
      {1, 1, 1}, {1, 13, 7}, {13, 1, 7}, {7, 13, 1}, {17, 31, 29}, {64, 65, 63}, {127, 3, 131}};
  int cases = 0;
  for (DType t : gemm_dtypes()) {
    if (!runs(OpFamily::gemm, t)) continue;
    ++cases;
    for (const auto& s : mnk)
      for (bool ta : {false, true})
        for (bool tb : {false, true})
          check(backend(), stream(), t, {s[0], s[1], s[2], 1, ta, tb, 1.0, 0.0, false},
                device_name());
  }
  if (cases == 0) GTEST_SKIP() << "the backend runs no GEMM";
}

TEST_P(BackendTest, GemmBatchedAlphaBetaAndBroadcast) {
  for (DType t : gemm_dtypes()) {
    if (!runs(OpFamily::gemm, t)) continue;
    check(backend(), stream(), t, {5, 7, 3, 4, false, false, 1.0, 0.0, false}, device_name());
    check(backend(), stream(), t, {5, 7, 3, 4, true, false, 0.5, 2.0, false}, device_name());
    check(backend(), stream(), t, {5, 7, 3, 3, false, true, 1.0, 0.0, true}, device_name());
  }
}

}  // namespace hetero::conformance
