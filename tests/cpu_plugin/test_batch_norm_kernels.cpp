// SPDX-License-Identifier: Apache-2.0
// The cpu plugin's batch normalisation kernels (kernels_batch_norm.cpp, Note [Batch norm
// kernels on the cpu]) against its reference (the rule in double, one element at a time) and
// the formula's consequences written out here (y's channel mean is the bias; dbias = sum(dy)),
// forward (y, mean, biased variance) and backward (dL/dx, dL/dweight, dL/dbias), float32 and
// float64, on one thread and on a pool of three, over shapes with one image, one channel, odd
// sizes (ragged 16-lane tails) and inputs far from zero. torch_layers.* checks the layer
// against PyTorch through the core.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>
#include <vector>

#include "kernels.hpp"
#include "thread_pool.hpp"
#include "vector_buffer.hpp"

using namespace hetero;
namespace kernels = hetero::cpu::kernels;

namespace {

using test::VectorBuffer;

template <class T>
StridedView view_of(VectorBuffer<T>& b, std::size_t numel) {
  StridedView v;
  v.buffer = &b;
  v.dtype = std::is_same_v<T, float> ? DType::float32 : DType::float64;
  v.ndim = 1;
  v.shape[0] = static_cast<std::int64_t>(numel);
  v.strides[0] = 1;
  return v;
}

template <class T>
std::vector<T> random_values(std::size_t n, double centre, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> v(n);
  for (auto& e : v) e = static_cast<T>(centre + u(rng));
  return v;
}

template <class T>
struct Results {
  std::vector<T> y, stats, dx, dwb;
};

// Forward and backward of `a` by the kernels or the reference.
template <class T>
Results<T> run(const BatchNormArgs& a, std::vector<T> x, std::vector<T> wb, std::vector<T> dy,
               bool reference) {
  const std::size_t data = x.size(), ch = wb.size();
  Results<T> r{std::vector<T>(data), std::vector<T>(ch), std::vector<T>(data), std::vector<T>(ch)};
  VectorBuffer<T> bx(x), bwb(wb), bdy(dy), by(r.y), bs(r.stats), bdx(r.dx), bdwb(r.dwb);
  const auto kernel = reference ? kernels::batch_norm_reference : kernels::batch_norm;
  BatchNormViews f;
  f.input = view_of(bx, data);
  f.weight_bias = view_of(bwb, ch);
  f.stats = view_of(bs, ch);
  f.output = view_of(by, data);
  kernel(BatchNormOp::forward_training, a, f);
  const BatchNormViews b{view_of(bx, data), view_of(bdy, data), view_of(bwb, ch),
                         view_of(bs, ch),   view_of(bdx, data), view_of(bdwb, ch)};
  kernel(BatchNormOp::backward, a, b);
  return r;
}

template <class T>
void expect_near(const std::vector<T>& got, const std::vector<T>& want, double tol,
                 const char* what) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tol * (1 + std::abs(want[i])))
        << what << " element " << i << ": got " << got[i] << ", want " << want[i];
}

using Shape =
    std::tuple<std::int64_t, std::int64_t, std::int64_t, double, int>;  // n c s mean threads

template <class T>
void check(const Shape& shape, double tol) {
  const auto [n, c, s, centre, threads] = shape;
  const BatchNormArgs a{n, c, s, 1e-5};
  std::mt19937 rng(static_cast<unsigned>(n * 1000 + c * 10 + s));
  const auto data = static_cast<std::size_t>(n * c * s);
  const std::vector<T> x = random_values<T>(data, centre, rng),
                       wb = random_values<T>(static_cast<std::size_t>(2 * c), 0.5, rng),
                       dy = random_values<T>(data, 0.0, rng);
  cpu::ThreadPool pool(threads);
  const cpu::ScopedKernelPool scope(threads > 1 ? &pool : nullptr);
  const Results<T> got = run(a, x, wb, dy, false), want = run(a, x, wb, dy, true);
  expect_near(got.stats, want.stats, tol, "stats");
  expect_near(got.y, want.y, tol * 10, "y");
  expect_near(got.dx, want.dx, tol * 100, "dx");
  expect_near(got.dwb, want.dwb, tol * 10, "dweight/dbias");
  // The formula, for each channel: y's mean is the bias; dbias = sum(dy).
  for (std::int64_t k = 0; k < c; ++k) {
    double mean_y = 0, sum_dy = 0;
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < s; ++j) {
        const auto at = static_cast<std::size_t>((i * c + k) * s + j);
        mean_y += got.y[at];
        sum_dy += dy[at];
      }
    EXPECT_NEAR(mean_y / static_cast<double>(n * s), wb[static_cast<std::size_t>(c + k)], tol * 10);
    EXPECT_NEAR(got.dwb[static_cast<std::size_t>(c + k)], sum_dy,
                tol * 10 * (1 + std::abs(sum_dy)));
  }
}

class BatchNormKernels : public ::testing::TestWithParam<Shape> {};

TEST_P(BatchNormKernels, Float32AgreesWithTheReferenceAndTheFormula) {
  check<float>(GetParam(), 1e-5);
}
TEST_P(BatchNormKernels, Float64AgreesWithTheReferenceAndTheFormula) {
  check<double>(GetParam(), 1e-12);
}

INSTANTIATE_TEST_SUITE_P(Shapes, BatchNormKernels,
                         ::testing::Values(Shape{2, 3, 5, 0, 1}, Shape{1, 1, 7, 0, 1},
                                           Shape{8, 16, 1, 0, 3}, Shape{4, 64, 49, 0, 3},
                                           Shape{3, 5, 33, 1000, 3}, Shape{32, 8, 196, 0, 2},
                                           Shape{2, 1, 4099, 0, 3}));

}  // namespace
