// SPDX-License-Identifier: Apache-2.0
// The optional fused softmax (Backend::softmax, interface minor 3), where a backend runs it
// (runs(): a backend that does not is composed by the core and has nothing to test here),
// against a double reference: every dimension of a 3-d shape, a transposed (strided)
// input, long lines (vector bodies and ragged tails) and lines holding NaN or +-inf.
// Tolerance: |got - want| <= tol * (|want| + 1e-30), tol 1e-5 for float32, 1e-12 for
// float64, 1e-2 for float16/bfloat16 (one rounding of a float32 result); for log_softmax
// relative to max(|want|, 1), since its values cross zero; plus float16's subnormal spacing.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <hetero/conformance/conformance.hpp>
#include <hetero/conformance/matchers.hpp>

namespace hetero::conformance {
namespace {

double tolerance(DType t) {
  switch (t) {
    case DType::float64:
      return 1e-12;
    case DType::float32:
      return 1e-5;
    default:
      return 1e-2;
  }
}

// The reference of one line: the rule written out in double.
std::vector<double> reference_line(SoftmaxOp op, const std::vector<double>& x) {
  double m = -INFINITY;
  for (double v : x) {
    if (std::isnan(v)) return std::vector<double>(x.size(), NAN);
    m = std::max(m, v);
  }
  double s = 0;
  for (double v : x) s += std::exp(v - m);
  std::vector<double> y;
  for (double v : x)
    y.push_back(op == SoftmaxOp::softmax ? std::exp(v - m) / s : (v - m) - std::log(s));
  return y;
}

}  // namespace

TEST_P(BackendTest, FusedSoftmaxMatchesReference) {
  struct Case {
    std::vector<std::int64_t> shape;
    int dim;
    bool transposed;  // a 2-d input read through swapped strides
  };
  const std::vector<Case> cases{{{3, 5, 7}, 0, false}, {{3, 5, 7}, 1, false}, {{3, 5, 7}, 2, false},
                                {{2, 4099}, 1, false}, {{2, 4099}, 0, false}, {{1}, 0, false},
                                {{5, 7}, 1, true},     {{5, 7}, 0, true},     {{33, 19}, 1, true}};
  for (DType t : {DType::float32, DType::float64, DType::float16, DType::bfloat16})
    for (SoftmaxOp op : {SoftmaxOp::softmax, SoftmaxOp::log_softmax}) {
      if (!runs(op, t)) continue;  // optional: the core composes it for this backend
      // Offset 3e9 (issue #44): x - max must be exact; rounding max + log(sum) first gave
      // log_softmax({3e9, 3e9}) = {0, 0} instead of -log 2. Not in float16 (65504 at most).
      for (double offset : {0.0, 3e9})
        for (const Case& c : cases) {
          if (offset != 0 && t == DType::float16) continue;
          std::int64_t n = 1;
          for (std::int64_t s : c.shape) n *= s;
          auto x = sample_values(t, n, 7);
          for (double& v : x) v = v * 4 + offset;  // exp over a wider range than [-2, 2)
          if (n > 40) {  // specials in lines of their own (in element order of storage)
            x[3] = NAN;
            x[n - 2] = INFINITY;
          }
          std::vector<std::int64_t> strides;  // element strides of the input view
          if (c.transposed) strides = {1, c.shape[0]};
          DeviceArray in(backend(), 0, t, n, 3), out(backend(), 0, t, n, 1);
          in.upload(pack(t, x).data());
          backend().softmax(op, in.view(c.shape, strides), out.view(c.shape), c.dim, stream());
          std::vector<unsigned char> raw(static_cast<std::size_t>(n) * element_size(t));
          out.download(raw.data());
          const auto y = unpack(t, raw);
          // Walk every line: positions over the other dimensions, then along c.dim.
          const auto nd = static_cast<int>(c.shape.size());
          std::vector<std::int64_t> in_strides = strides, out_strides(c.shape.size(), 1);
          for (int k = nd - 2; k >= 0; --k) out_strides[k] = out_strides[k + 1] * c.shape[k + 1];
          if (in_strides.empty()) in_strides = out_strides;
          const std::int64_t lines = n / c.shape[c.dim];
          // The reference, its tolerance and the input, each in the output's element order.
          std::vector<double> expected(static_cast<std::size_t>(n)), tolerances(expected.size()),
              x_out(expected.size());
          for (std::int64_t l = 0; l < lines; ++l) {
            std::int64_t rem = l, in_off = 0, out_off = 0;
            for (int k = nd - 1; k >= 0; --k) {
              if (k == c.dim) continue;
              in_off += (rem % c.shape[k]) * in_strides[k];
              out_off += (rem % c.shape[k]) * out_strides[k];
              rem /= c.shape[k];
            }
            std::vector<double> line;
            for (std::int64_t j = 0; j < c.shape[c.dim]; ++j)
              line.push_back(unpack(t, pack(t, {x[in_off + j * in_strides[c.dim]]}))[0]);
            const auto want = reference_line(op, line);
            for (std::int64_t j = 0; j < c.shape[c.dim]; ++j) {
              const auto o = static_cast<std::size_t>(out_off + j * out_strides[c.dim]);
              const double w = want[j];
              const double scale =
                  op == SoftmaxOp::softmax ? std::abs(w) + 1e-30 : std::max(std::abs(w), 1.0);
              // float16 results below 6.1e-5 are subnormal: spaced 6e-8 apart.
              const double floor = t == DType::float16 ? 6e-8 : 0.0;
              expected[o] = w;  // NaN only where NaN is expected (ElementsNear's rule)
              tolerances[o] = std::isnan(w) ? 0.0 : tolerance(t) * scale + floor;
              x_out[o] = line[static_cast<std::size_t>(j)];
            }
          }
          EXPECT_THAT(y, ElementsNear(expected, tolerances, c.shape, {{"x", x_out}}))
              << case_name(op_name(op), t, c.shape) << ", dim " << c.dim
              << (c.transposed ? ", input transposed" : "") << ", input offset " << offset;
        }
    }
}

}  // namespace hetero::conformance
