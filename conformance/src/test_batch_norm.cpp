// SPDX-License-Identifier: Apache-2.0
// The optional batch normalisation kernels (Backend::batch_norm, interface minor 13), where a
// backend runs them (runs(): one that does not is composed by the core, and the layer tests
// cover that), against the formula written out in double: forward_training's y, mean and
// biased variance, backward's dL/dx, dL/dweight and dL/dbias, over shapes with one image, one
// channel, one element per image, odd sizes, and inputs far from zero (mean 1000), where a
// one-pass variance loses every digit. A failure names the op, dtype, device, shape, array
// and the first differing element with both values. Tolerance: |got - want| <= tol * (1 +
// |want|), tol 1e-4 for float32 (1e-3 for dL/dx, a difference of sums), 1e-10 for float64,
// 2e-2 for 16-bit dtypes.
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <hetero/conformance/conformance.hpp>

namespace hetero::conformance {
namespace {

double tolerance(DType t) {
  switch (t) {
    case DType::float64:
      return 1e-10;
    case DType::float32:
      return 1e-4;
    default:
      return 2e-2;
  }
}

struct Reference {
  std::vector<double> y, stats, dx, dwb;
};

// Per channel in double: mean, biased variance, y; dx = w invstd (dy - mean(dy) - (x - mean)
// invstd^2 mean(dy (x - mean))), dw = invstd sum(dy (x - mean)), db = sum(dy); x and dy as the
// backend holds them (rounded to the dtype), stats as it returned them (backward reads those).
Reference reference(const BatchNormArgs& a, const std::vector<double>& x,
                    const std::vector<double>& wb, const std::vector<double>& dy) {
  const auto at = [&](std::int64_t n, std::int64_t c, std::int64_t i) {
    return static_cast<std::size_t>((n * a.c + c) * a.spatial + i);
  };
  const auto m = static_cast<double>(a.n * a.spatial);
  Reference r{std::vector<double>(x.size()), std::vector<double>(static_cast<std::size_t>(2 * a.c)),
              std::vector<double>(x.size()),
              std::vector<double>(static_cast<std::size_t>(2 * a.c))};
  for (std::int64_t c = 0; c < a.c; ++c) {
    double sum = 0, sq = 0, sum_dy = 0, sum_dy_xmu = 0;
    for (std::int64_t n = 0; n < a.n; ++n)
      for (std::int64_t i = 0; i < a.spatial; ++i) sum += x[at(n, c, i)];
    const double mean = sum / m;
    for (std::int64_t n = 0; n < a.n; ++n)
      for (std::int64_t i = 0; i < a.spatial; ++i) {
        const double d = x[at(n, c, i)] - mean;
        sq += d * d;
        sum_dy += dy[at(n, c, i)];
        sum_dy_xmu += dy[at(n, c, i)] * d;
      }
    const double var = sq / m, invstd = 1 / std::sqrt(var + a.eps);
    const double w = wb[static_cast<std::size_t>(c)], b = wb[static_cast<std::size_t>(a.c + c)];
    r.stats[static_cast<std::size_t>(c)] = mean;
    r.stats[static_cast<std::size_t>(a.c + c)] = var;
    r.dwb[static_cast<std::size_t>(c)] = sum_dy_xmu * invstd;
    r.dwb[static_cast<std::size_t>(a.c + c)] = sum_dy;
    for (std::int64_t n = 0; n < a.n; ++n)
      for (std::int64_t i = 0; i < a.spatial; ++i) {
        const std::size_t k = at(n, c, i);
        const double d = x[k] - mean;
        r.y[k] = d * invstd * w + b;
        r.dx[k] = w * invstd * (dy[k] - sum_dy / m - d * invstd * invstd * sum_dy_xmu / m);
      }
  }
  return r;
}

// "" when got matches want within tol; else the first element that does not, with both values.
std::string first_difference(const char* array, const std::vector<double>& got,
                             const std::vector<double>& want, double tol) {
  for (std::size_t i = 0; i < want.size(); ++i)
    if (!(std::abs(got[i] - want[i]) <= tol * (1 + std::abs(want[i])))) {
      std::ostringstream s;
      s.precision(9);
      s << array << "[" << i << "]: got " << got[i] << ", want " << want[i] << " (tolerance " << tol
        << " * (1 + |want|))";
      return s.str();
    }
  return "";
}

}  // namespace

TEST_P(BackendTest, BatchNormKernelsMatchTheFormula) {
  struct Case {
    std::int64_t n, c, spatial;
    double centre;  // the inputs' mean
  };
  const std::vector<Case> cases{{2, 3, 5, 0},   {1, 1, 7, 0},     {8, 16, 1, 0},
                                {4, 64, 49, 0}, {3, 5, 33, 1000}, {2, 2, 1, 0}};
  for (DType t : {DType::float32, DType::float64, DType::float16, DType::bfloat16}) {
    if (!runs(BatchNormOp::forward_training, t) || !runs(BatchNormOp::backward, t)) continue;
    for (const Case& c : cases) {
      if (c.centre > 256 && (t == DType::float16 || t == DType::bfloat16)) continue;
      const BatchNormArgs a{c.n, c.c, c.spatial, 1e-5};
      const std::int64_t numel = c.n * c.c * c.spatial;
      std::ostringstream what;
      what << "batch_norm " << dtype_name(t) << " on " << backend().name() << ":0, input [" << c.n
           << ", " << c.c << ", " << c.spatial << "], mean " << c.centre;
      SCOPED_TRACE(what.str());
      auto x = sample_values(t, numel, 11);
      for (double& v : x) v += c.centre;
      auto wb = sample_values(t, 2 * c.c, 12);
      const auto dy = sample_values(t, numel, 13);
      // As the device holds them: rounded to t.
      x = unpack(t, pack(t, x));
      wb = unpack(t, pack(t, wb));
      DeviceArray dx_in(backend(), 0, t, numel, 2), dwb_in(backend(), 0, t, 2 * c.c, 1),
          ddy(backend(), 0, t, numel, 3), dy_out(backend(), 0, t, numel, 1),
          dstats(backend(), 0, t, 2 * c.c), dgx(backend(), 0, t, numel),
          dgwb(backend(), 0, t, 2 * c.c);
      dx_in.upload(pack(t, x).data());
      dwb_in.upload(pack(t, wb).data());
      ddy.upload(pack(t, dy).data());
      BatchNormViews f;
      f.input = dx_in.view({c.n, c.c, c.spatial});
      f.weight_bias = dwb_in.view({2, c.c});
      f.stats = dstats.view({2, c.c});
      f.output = dy_out.view({c.n, c.c, c.spatial});
      backend().batch_norm(BatchNormOp::forward_training, a, f, stream());
      const std::vector<double> stats = dstats.values();
      BatchNormViews b = f;
      b.grad_output = ddy.view({c.n, c.c, c.spatial});
      b.output = dgx.view({c.n, c.c, c.spatial});
      b.grad_weight_bias = dgwb.view({2, c.c});
      backend().batch_norm(BatchNormOp::backward, a, b, stream());
      const Reference want = reference(a, x, wb, dy);
      const double tol = tolerance(t);
      // The mean relative to the spread of x (1), not to its size: 1000 +- 1 in float32 holds
      // the mean to ~6e-5 absolute.
      std::vector<double> centred_stats = stats, centred_want = want.stats;
      for (std::int64_t k = 0; k < c.c; ++k) {
        centred_stats[static_cast<std::size_t>(k)] -= c.centre;
        centred_want[static_cast<std::size_t>(k)] -= c.centre;
      }
      for (const std::string& failure :
           {first_difference("stats", centred_stats, centred_want, tol),
            first_difference("y", dy_out.values(), want.y, tol * (1 + c.centre / 100)),
            first_difference("grad_input", dgx.values(), want.dx, tol * 10 * (1 + c.centre / 100)),
            first_difference("grad_weight_bias", dgwb.values(), want.dwb, tol * 10)})
        EXPECT_EQ(failure, "");
    }
  }
}

}  // namespace hetero::conformance
