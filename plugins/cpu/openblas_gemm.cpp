// SPDX-License-Identifier: Apache-2.0
#include "openblas_gemm.hpp"

#include <cblas.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

#include <hetero/sdk/buffer.hpp>
#include <hetero/sdk/half.hpp>

#include "thread_pool.hpp"

namespace hetero::cpu {
namespace {

// Note [GEMM on the kernel pool]: OpenBLAS runs single-threaded while hetero calls it (Note
// [OpenBLAS's thread count]) and one GEMM is split over the device's kernel threads here, each part
// one cblas call: batches, else column blocks of C, else row blocks, else (a small C with a long
// inner dimension, conv2d's weight gradient) blocks of k whose partial products are added in part
// order. OpenBLAS's own workers would spin (sched_yield) for a while after every call, competing
// for the cores with the kernel threads that run the next op; one set of threads does both now.
// Splitting m, n or the batch leaves every element's sum as one call computes it; splitting k
// changes the rounding, deterministically for a given thread count (as OpenBLAS's and torch's own
// threaded reductions).

// Note [OpenBLAS's thread count]: OpenBLAS 0.3.21 has one thread count for the whole
// process (openblas_set_num_threads; per-thread controls came in later versions), which the
// application, numpy or libtorch in the same process also use. hetero needs 1 while its
// kernel threads call cblas, and nothing else: SerialBlas sets it for the span of hetero's
// calls and puts the previous count back when the last one returns, unless someone changed
// it meanwhile (theirs is kept). The cost: an application's own GEMM that runs at the very
// same time as one of hetero's gets one thread. (The plugin used to set 1 at load for the
// rest of the process: issue #49 item 2.) Re-entrant and thread-safe: the first of
// overlapping scopes saves and sets, the last restores.
class SerialBlas {
 public:
  SerialBlas() {
    const std::lock_guard lock(mutex_);
    if (active_++ == 0) {
      saved_ = openblas_get_num_threads();
      if (saved_ != 1) openblas_set_num_threads(1);
    }
  }
  ~SerialBlas() {
    const std::lock_guard lock(mutex_);
    if (--active_ == 0 && saved_ != 1 && openblas_get_num_threads() == 1)
      openblas_set_num_threads(saved_);
  }
  SerialBlas(const SerialBlas&) = delete;
  SerialBlas& operator=(const SerialBlas&) = delete;

 private:
  static inline std::mutex mutex_;
  static inline int active_ = 0;  // scopes open, on every thread
  static inline int saved_ = 1;   // the count before the first of them
};

/// One row-major GEMM (or a batch of them) on host pointers, in elements.
template <class T>
struct Problem {
  bool ta = false, tb = false;
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  double alpha = 1, beta = 0;
  const T* a = nullptr;
  std::int64_t lda = 0, sa = 0;
  const T* b = nullptr;
  std::int64_t ldb = 0, sb = 0;
  T* c = nullptr;
  std::int64_t ldc = 0, sc = 0;
};

template <class T>
Problem<T> problem_of(const GemmArgs& g) {
  return {g.trans_a, g.trans_b,  g.m,
          g.n,       g.k,        g.batch,
          g.alpha,   g.beta,     static_cast<const T*>(g.a->handle()) + g.a_offset,
          g.lda,     g.stride_a, static_cast<const T*>(g.b->handle()) + g.b_offset,
          g.ldb,     g.stride_b, static_cast<T*>(g.c->handle()) + g.c_offset,
          g.ldc,     g.stride_c};
}

CBLAS_TRANSPOSE trans(bool t) { return t ? CblasTrans : CblasNoTrans; }

// Row-major data passed with CblasRowMajor: OpenBLAS applies the transpose identity
// C^T = B^T A^T itself, so lda/ldb/ldc are the row strides of the row-major matrices.
void call(const Problem<float>& p, const float* a, const float* b, float* c) {
  cblas_sgemm(CblasRowMajor, trans(p.ta), trans(p.tb), static_cast<blasint>(p.m),
              static_cast<blasint>(p.n), static_cast<blasint>(p.k), static_cast<float>(p.alpha), a,
              static_cast<blasint>(p.lda), b, static_cast<blasint>(p.ldb),
              static_cast<float>(p.beta), c, static_cast<blasint>(p.ldc));
}
void call(const Problem<double>& p, const double* a, const double* b, double* c) {
  cblas_dgemm(CblasRowMajor, trans(p.ta), trans(p.tb), static_cast<blasint>(p.m),
              static_cast<blasint>(p.n), static_cast<blasint>(p.k), p.alpha, a,
              static_cast<blasint>(p.lda), b, static_cast<blasint>(p.ldb), p.beta, c,
              static_cast<blasint>(p.ldc));
}

// rows x cols row-major matrix at `src` (row stride ld) <-> dense float (row stride cols).
template <class H>
void widen(const H* src, std::int64_t rows, std::int64_t cols, std::int64_t ld, float* dst) {
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) dst[i * cols + j] = static_cast<float>(src[i * ld + j]);
}
template <class H>
void narrow(const float* src, std::int64_t rows, std::int64_t cols, std::int64_t ld, H* dst) {
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) dst[i * ld + j] = H(src[i * cols + j]);
}

template <class T>
void run_serial(const Problem<T>& p) {
  for (std::int64_t i = 0; i < p.batch; ++i)
    call(p, p.a + i * p.sa, p.b + i * p.sb, p.c + i * p.sc);
}

// float16 / bfloat16: each batch's operands widened to float32, one cblas_sgemm
// (float32 accumulation, as torch on CPU), the result rounded to nearest even.
template <class H>
void run_serial_half(const Problem<H>& p) {
  const std::int64_t ar = p.ta ? p.k : p.m, ac = p.ta ? p.m : p.k;
  const std::int64_t br = p.tb ? p.n : p.k, bc = p.tb ? p.k : p.n;
  std::vector<float> fa(static_cast<std::size_t>(ar * ac)), fb(static_cast<std::size_t>(br * bc)),
      fc(static_cast<std::size_t>(p.m * p.n));
  Problem<float> f{p.ta, p.tb, p.m,     p.n, p.k, 1,       p.alpha, p.beta, nullptr,
                   ac,   0,    nullptr, bc,  0,   nullptr, p.n,     0};
  for (std::int64_t i = 0; i < p.batch; ++i) {
    H* c = p.c + i * p.sc;
    if (p.beta != 0) widen(c, p.m, p.n, p.ldc, fc.data());
    widen(p.a + i * p.sa, ar, ac, p.lda, fa.data());
    widen(p.b + i * p.sb, br, bc, p.ldb, fb.data());
    call(f, fa.data(), fb.data(), fc.data());
    narrow(fc.data(), p.m, p.n, p.ldc, c);
  }
}

template <class T>
void run_part(const Problem<T>& p) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
    run_serial(p);
  else
    run_serial_half(p);
}

enum class Split { none, batch, n, m, k };

/// Multiply-adds per thread: a GEMM runs on min(threads, macs / kParallelMacs) threads, one
/// when that is below 2. OpenBLAS 0.3's own rule (interface/gemm.c: m * n * k / (4 * 65536)
/// threads, one up to 4 * 65536): a 64^3 product split in two took 10 us against 6-8 us for
/// OpenBLAS and libtorch on one thread (2 us of work per half, the hand-off as much).
constexpr std::int64_t kParallelMacs = std::int64_t{1} << 18;

/// The threads for `p` out of the pool's `threads` (kParallelMacs).
template <class T>
std::int64_t threads_for(const Problem<T>& p, std::int64_t threads) {
  const std::int64_t macs = p.m * p.n * std::max<std::int64_t>(p.k, 1) * p.batch;
  return std::max<std::int64_t>(1, std::min(threads, macs / kParallelMacs));
}
/// Column blocks start at multiples of this many elements (a 64-byte line of float32), so
/// that the parts write no common cache line of C.
constexpr std::int64_t kColumnAlign = 16;

template <class T>
Split choose_split(const Problem<T>& p, std::int64_t parts) {
  if (parts < 2) return Split::none;
  if (p.batch >= parts) return Split::batch;
  if (p.batch == 1) {
    if (p.n >= p.m && p.n >= parts * kColumnAlign) return Split::n;
    if (p.m >= parts * 4) return Split::m;
    constexpr bool exact_type = std::is_same_v<T, float> || std::is_same_v<T, double>;
    if (exact_type && p.k >= parts * 256) return Split::k;
  }
  return Split::none;
}

/// Part `i` of `parts` of p along `split` (empty when the range is).
template <class T>
Problem<T> part_of(const Problem<T>& p, Split split, std::int64_t i, std::int64_t parts) {
  Problem<T> q = p;
  const auto range = [&](std::int64_t extent, std::int64_t align) {
    const auto at = [&](std::int64_t j) {
      const std::int64_t e = extent * j / parts;
      return j == parts ? extent : std::min(extent, (e + align - 1) / align * align);
    };
    return std::pair{at(i), at(i + 1)};
  };
  switch (split) {
    case Split::batch: {
      const auto [lo, hi] = range(p.batch, 1);
      q.batch = hi - lo;
      q.a += lo * p.sa;
      q.b += lo * p.sb;
      q.c += lo * p.sc;
      break;
    }
    case Split::n: {
      const auto [lo, hi] = range(p.n, kColumnAlign);
      q.n = hi - lo;
      q.b += p.tb ? lo * p.ldb : lo;
      q.c += lo;
      break;
    }
    case Split::m: {
      const auto [lo, hi] = range(p.m, 1);
      q.m = hi - lo;
      q.a += p.ta ? lo : lo * p.lda;
      q.c += lo * p.ldc;
      break;
    }
    case Split::k: {
      const auto [lo, hi] = range(p.k, 1);
      q.k = hi - lo;
      q.a += p.ta ? lo * p.lda : lo;
      q.b += p.tb ? lo : lo * p.ldb;
      break;
    }
    case Split::none:
      break;
  }
  return q;
}

// Split k: part 0 into C (with beta), the others into dense scratch, added in part order.
template <class T>
void run_split_k(const Problem<T>& p, ThreadPool& pool, std::int64_t parts) {
  const std::int64_t mn = p.m * p.n;
  std::vector<T> partial(static_cast<std::size_t>(mn * (parts - 1)));
  pool.parallel_for(parts, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      Problem<T> q = part_of(p, Split::k, i, parts);
      if (i > 0) {
        q.c = partial.data() + (i - 1) * mn;
        q.ldc = p.n;
        q.beta = 0;
      }
      run_part(q);
    }
  });
  for (std::int64_t i = 0; i < p.m; ++i) {
    T* row = p.c + i * p.ldc;
    for (std::int64_t j = 1; j < parts; ++j) {
      const T* add = partial.data() + (j - 1) * mn + i * p.n;
      for (std::int64_t x = 0; x < p.n; ++x) row[x] += add[x];
    }
  }
}

template <class T>
void run(const GemmArgs& args) {
  const Problem<T> p = problem_of<T>(args);
  ThreadPool* pool = kernel_pool();
  const std::int64_t parts = pool ? threads_for(p, pool->size()) : 1;
  const Split split = choose_split(p, parts);
  if (split == Split::none) return run_part(p);
  if (split != Split::k) {
    pool->parallel_for(parts, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t i = begin; i < end; ++i) {
        const Problem<T> q = part_of(p, split, i, parts);
        if (q.batch > 0 && q.m > 0 && q.n > 0) run_part(q);
      }
    });
    return;
  }
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) run_split_k(p, *pool, parts);
}

}  // namespace

void gemm(const GemmArgs& a) {
  const SerialBlas serial;  // around the parts, which run within this call
  switch (a.dtype) {
    case DType::float64:
      return run<double>(a);
    case DType::float16:
      return run<Half>(a);
    case DType::bfloat16:
      return run<BFloat16>(a);
    default:
      return run<float>(a);
  }
}

void gemm_on_this_thread(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k,
                         float alpha, const float* a, std::int64_t lda, const float* b,
                         std::int64_t ldb, float beta, float* c, std::int64_t ldc) {
  const Problem<float> p{ta, tb, m, n, k, 1, alpha, beta, a, lda, 0, b, ldb, 0, c, ldc, 0};
  const SerialBlas serial;
  call(p, a, b, c);
}
void gemm_on_this_thread(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k,
                         double alpha, const double* a, std::int64_t lda, const double* b,
                         std::int64_t ldb, double beta, double* c, std::int64_t ldc) {
  const Problem<double> p{ta, tb, m, n, k, 1, alpha, beta, a, lda, 0, b, ldb, 0, c, ldc, 0};
  const SerialBlas serial;
  call(p, a, b, c);
}

std::string blas_version() {
  return openblas_get_config();  // "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ..."
}

}  // namespace hetero::cpu
