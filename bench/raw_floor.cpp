// SPDX-License-Identifier: Apache-2.0
// The raw floor of bench_large_ops' bandwidth-bound rows (see raw_floor.hpp). Compiled at
// -O3 with OpenMP (bench/CMakeLists.txt); every loop is checked to vectorise by its clone
// for the machine (objdump shows zmm registers on AVX-512).
#include "raw_floor.hpp"

#include <immintrin.h>
#include <omp.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "common.hpp"

namespace bench::raw {
namespace {

constexpr std::int64_t kRows = 4096, kCols = 4096, kCount = kRows * kCols;

// One clone per instruction set, the best one chosen when the program loads.
#define FLOOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))

FLOOR_CLONES void add(const float* a, const float* b, float* o, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) o[i] = a[i] + b[i];
}
FLOOR_CLONES void mul2(const float* a, float* o, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) o[i] = a[i] * 2.0f;
}
FLOOR_CLONES void relu(const float* a, float* o, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) o[i] = a[i] > 0.0f ? a[i] : 0.0f;
}
FLOOR_CLONES double sum(const float* a, std::int64_t n) {  // in double, as hetero's
  double s = 0;
#pragma omp simd reduction(+ : s)
  for (std::int64_t i = 0; i < n; ++i) s += a[i];
  return s;
}
template <class T>  // an integer sum widened to int64, as torch.sum's and hetero's
FLOOR_CLONES std::int64_t sum_int(const T* a, std::int64_t n) {
  std::int64_t s = 0;
#pragma omp simd reduction(+ : s)
  for (std::int64_t i = 0; i < n; ++i) s += a[i];
  return s;
}
FLOOR_CLONES float max(const float* a, std::int64_t n) {
  float m = -std::numeric_limits<float>::infinity();
#pragma omp simd reduction(max : m)
  for (std::int64_t i = 0; i < n; ++i) m = a[i] > m ? a[i] : m;
  return m;
}
FLOOR_CLONES void add_into(const float* row, double* acc, std::int64_t n) {
  for (std::int64_t j = 0; j < n; ++j) acc[j] += row[j];
}
FLOOR_CLONES void max_into(const float* row, float* acc, std::int64_t n) {
  for (std::int64_t j = 0; j < n; ++j) acc[j] = row[j] > acc[j] ? row[j] : acc[j];
}
// Round to nearest even; NaN to the quiet 0x7FC0.
FLOOR_CLONES void to_bfloat16(const float* a, std::uint16_t* o, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    std::uint32_t u;
    std::memcpy(&u, a + i, sizeof u);
    const std::uint32_t rounded = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
    o[i] = (u & 0x7FFFFFFFu) > 0x7F800000u ? 0x7FC0u : static_cast<std::uint16_t>(rounded);
  }
}

// float16 through F16C, 8 lanes at a time (the tails converted one by one).
#define F16C_TARGET __attribute__((target("avx2,f16c")))
constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT;

F16C_TARGET __m256 load_half(const std::uint16_t* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
F16C_TARGET void store_half(std::uint16_t* p, __m256 v) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_cvtps_ph(v, kNearest));
}
F16C_TARGET float half_at(const std::uint16_t* p, std::int64_t i) { return _cvtsh_ss(p[i]); }

F16C_TARGET void to_float16(const float* a, std::uint16_t* o, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) store_half(o + i, _mm256_loadu_ps(a + i));
  for (; i < n; ++i) o[i] = _cvtss_sh(a[i], kNearest);
}
F16C_TARGET void from_float16(const std::uint16_t* a, float* o, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(o + i, load_half(a + i));
  for (; i < n; ++i) o[i] = half_at(a, i);
}
F16C_TARGET void add_f16(const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* o,
                         std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) store_half(o + i, _mm256_add_ps(load_half(a + i), load_half(b + i)));
  for (; i < n; ++i) o[i] = _cvtss_sh(half_at(a, i) + half_at(b, i), kNearest);
}
F16C_TARGET void mul2_f16(const std::uint16_t* a, std::uint16_t* o, std::int64_t n) {
  std::int64_t i = 0;
  const __m256 two = _mm256_set1_ps(2.0f);
  for (; i + 8 <= n; i += 8) store_half(o + i, _mm256_mul_ps(load_half(a + i), two));
  for (; i < n; ++i) o[i] = _cvtss_sh(half_at(a, i) * 2.0f, kNearest);
}
F16C_TARGET double sum_f16(const std::uint16_t* a, std::int64_t n) {
  __m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd();
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = load_half(a + i);
    lo = _mm256_add_pd(lo, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
    hi = _mm256_add_pd(hi, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
  }
  alignas(32) double lanes[4];
  _mm256_store_pd(lanes, _mm256_add_pd(lo, hi));
  double s = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
  for (; i < n; ++i) s += half_at(a, i);
  return s;
}
F16C_TARGET float max_f16(const std::uint16_t* a, std::int64_t n) {
  __m256 m = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) m = _mm256_max_ps(m, load_half(a + i));
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, m);
  float best = lanes[0];
  for (float l : lanes) best = l > best ? l : best;
  for (; i < n; ++i) best = half_at(a, i) > best ? half_at(a, i) : best;
  return best;
}

// f(begin, end, part) on the parts of [0, n), one per thread (bench::threads()).
template <class F>
void split(std::int64_t n, F f) {
  const int threads = bench::threads();
#pragma omp parallel num_threads(threads)
  {
    const std::int64_t p = omp_get_thread_num(), parts = omp_get_num_threads();
    f(n * p / parts, n * (p + 1) / parts, p);
  }
}

// Operands and results of one floor row; results are kept so that no loop is dead code.
struct Data {
  std::vector<float> x, y, out;
  std::vector<std::uint16_t> hx, hy, hout;
  std::vector<double> parts = std::vector<double>(static_cast<std::size_t>(bench::threads()));
  std::vector<float> line = std::vector<float>(kCols);
};

// One set of operands for all float32 rows and one for the float16 ones (each 192-288 MiB),
// made on first use; the rows run one at a time.
std::shared_ptr<Data> make_data(bool half) {
  static std::shared_ptr<Data> made[2];
  std::shared_ptr<Data>& d = made[half ? 1 : 0];
  if (d) return d;
  d = std::make_shared<Data>();
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  d->x.resize(kCount);
  d->y.resize(kCount);
  for (auto& v : d->x) v = u(gen);
  for (auto& v : d->y) v = u(gen);
  d->out.resize(kCount);
  if (half) {
    d->hx.resize(kCount);
    d->hy.resize(kCount);
    d->hout.resize(kCount);
    split(kCount, [&](std::int64_t b, std::int64_t e, std::int64_t) {
      to_float16(d->x.data() + b, d->hx.data() + b, e - b);
      to_float16(d->y.data() + b, d->hy.data() + b, e - b);
    });
  }
  return d;
}

// An element-wise floor: f(begin, end) over the parts of the whole matrix.
template <class F>
std::function<void()> each(std::shared_ptr<Data> d, F f) {
  return
      [d, f] { split(kCount, [&](std::int64_t b, std::int64_t e, std::int64_t) { f(*d, b, e); }); };
}

}  // namespace

bool has_floor(const std::string& op) {
  if (op.ends_with("_f16") && !__builtin_cpu_supports("f16c")) return false;
  return op == "sum_i32" || op == "sum_u8" || op == "add" || op == "mul2" || op == "relu" ||
         op == "sum" || op == "sum0" || op == "sum1" || op == "max" || op == "max0" ||
         op == "to_float16" || op == "to_bfloat16" || op == "from_float16" || op == "transpose" ||
         op == "add_f16" || op == "mul2_f16" || op == "sum_f16" || op == "max_f16" ||
         op == "transpose_f16";
}

std::function<void()> floor(const std::string& op) {
  if (!has_floor(op)) return {};
  const bool half = op.ends_with("_f16");
  if (op == "sum_i32" || op == "sum_u8") {  // integer operands of their own: values 0..99
    auto ints = std::make_shared<std::vector<std::int32_t>>(kCount);
    auto bytes = std::make_shared<std::vector<std::uint8_t>>(kCount);
    for (std::int64_t i = 0; i < kCount; ++i)
      (*ints)[i] = static_cast<std::int32_t>((*bytes)[i] = static_cast<std::uint8_t>(i * 7 % 100));
    auto parts = std::make_shared<std::vector<std::int64_t>>(bench::threads());
    const bool i32 = op == "sum_i32";
    return [ints, bytes, parts, i32] {
      split(kCount, [&](std::int64_t b, std::int64_t e, std::int64_t p) {
        (*parts)[p] = i32 ? sum_int(ints->data() + b, e - b) : sum_int(bytes->data() + b, e - b);
      });
    };
  }
  if (!has_floor(op)) return {};
  auto d = make_data(half || op == "from_float16");  // from_float16 reads the float16 copy
  using D = Data;
  using I = std::int64_t;
  if (op == "add") return each(d, [](D& s, I b, I e) { add(&s.x[b], &s.y[b], &s.out[b], e - b); });
  if (op == "mul2") return each(d, [](D& s, I b, I e) { mul2(&s.x[b], &s.out[b], e - b); });
  if (op == "relu") return each(d, [](D& s, I b, I e) { relu(&s.x[b], &s.out[b], e - b); });
  if (op == "to_float16")
    return each(d, [](D& s, I b, I e) {
      to_float16(&s.x[b], reinterpret_cast<std::uint16_t*>(&s.out[0]) + b, e - b);
    });
  if (op == "to_bfloat16")
    return each(d, [](D& s, I b, I e) {
      to_bfloat16(&s.x[b], reinterpret_cast<std::uint16_t*>(&s.out[0]) + b, e - b);
    });
  if (op == "from_float16")
    return each(d, [](D& s, I b, I e) { from_float16(&s.hx[b], &s.out[b], e - b); });
  if (op == "add_f16")
    return each(d, [](D& s, I b, I e) { add_f16(&s.hx[b], &s.hy[b], &s.hout[b], e - b); });
  if (op == "mul2_f16")
    return each(d, [](D& s, I b, I e) { mul2_f16(&s.hx[b], &s.hout[b], e - b); });
  if (op == "transpose" || op == "transpose_f16") {  // the copy's floor: memcpy
    return each(d, [half](D& s, I b, I e) {
      if (half)
        std::memcpy(&s.hout[b], &s.hx[b], static_cast<std::size_t>(e - b) * 2);
      else
        std::memcpy(&s.out[b], &s.x[b], static_cast<std::size_t>(e - b) * 4);
    });
  }
  if (op == "sum" || op == "sum_f16" || op == "max" || op == "max_f16") {
    const bool is_sum = op.starts_with("sum");
    return [d, half, is_sum] {
      split(kCount, [&](I b, I e, I p) {
        d->parts[p] = is_sum ? (half ? sum_f16(&d->hx[b], e - b) : sum(&d->x[b], e - b))
                             : (half ? max_f16(&d->hx[b], e - b) : max(&d->x[b], e - b));
      });
    };
  }
  if (op == "sum1")  // a sum per row, the rows split over the threads
    return [d] {
      split(kRows, [&](I b, I e, I) {
        for (I r = b; r < e; ++r) d->line[r] = static_cast<float>(sum(&d->x[r * kCols], kCols));
      });
    };
  // sum0, max0: each thread adds or compares the rows' runs of its columns into a block
  // of accumulators, then writes its columns.
  const bool is_sum = op == "sum0";
  return [d, is_sum] {
    split(kCols, [&](I b, I e, I) {
      std::vector<double> acc(is_sum ? e - b : 0);
      std::vector<float> best(d->x.begin() + b, d->x.begin() + e);
      for (I r = 0; r < kRows; ++r) {
        if (is_sum)
          add_into(&d->x[r * kCols + b], acc.data(), e - b);
        else if (r > 0)
          max_into(&d->x[r * kCols + b], best.data(), e - b);
      }
      for (I j = b; j < e; ++j) d->line[j] = is_sum ? static_cast<float>(acc[j - b]) : best[j - b];
    });
  };
}

}  // namespace bench::raw
