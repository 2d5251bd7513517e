// Reductions: one thread block per output element (grid-stride over outputs); each
// thread walks the reduced sub-space in C order with stride blockDim.x, then the block
// combines the partial results in shared memory. Floating sums accumulate in double,
// integer sums in wrapping int64, as the cpu backend. max/min/argmax: NaN is the maximum
// (and the minimum), and ties go to the lowest index, as torch.
//
// Known limit: a full reduction (one output) runs on one block of kThreads threads, so it
// reads at a fraction of the device's bandwidth; a two-pass reduction would fix that.
#include <cmath>
#include <limits>

#include "kernels.cuh"
#include "kernels.hpp"

namespace hetero::cuda::kernels {
namespace {

template <class T>
using Acc = std::conditional_t<is_floating_storage_v<T>, double, std::int64_t>;

// Partial result of a block thread.
template <class T>
struct Partial {
  Acc<T> acc = 0;
  T best = T(0);
  std::int64_t index = 0;  // of `best` in the reduced sub-space
  bool has = false;
};

template <class T>
__device__ bool is_nan(T x) {
  return x != x;
}

// True when (v, i) should replace (best, best_index) for max (or min when `less`).
template <class T>
__device__ bool better(T v, std::int64_t i, T best, std::int64_t best_index, bool less) {
  if (is_nan(best)) return is_nan(v) && i < best_index;
  if (is_nan(v)) return true;
  if (less ? v < best : v > best) return true;
  return v == best && i < best_index;
}

template <class T>
__device__ void combine(ReduceOp op, Partial<T>& p, const Partial<T>& q) {
  if (!q.has) return;
  if constexpr (is_floating_storage_v<T>) p.acc += q.acc;
  else p.acc = static_cast<std::int64_t>(static_cast<std::uint64_t>(p.acc) + static_cast<std::uint64_t>(q.acc));
  if (!p.has || better(q.best, q.index, p.best, p.index, op == ReduceOp::min)) {
    p.best = q.best;
    p.index = q.index;
  }
  p.has = true;
}

template <class T>
__global__ void reduce_kernel(ReduceOp op, const T* in, T* out, std::int64_t* out_index,
                              OffsetCalc<2> outer, OffsetCalc<1> inner, std::int64_t n_out,
                              std::int64_t count) {
  __shared__ Acc<T> s_acc[kThreads];
  __shared__ T s_best[kThreads];
  __shared__ std::int64_t s_index[kThreads];
  __shared__ bool s_has[kThreads];
  const int t = threadIdx.x;
  for (std::int64_t o = blockIdx.x; o < n_out; o += gridDim.x) {
    std::int64_t off[2];
    outer.offsets(o, off);  // off[0]: output element, off[1]: start of its input range
    Partial<T> p;
    for (std::int64_t j = t; j < count; j += blockDim.x) {
      std::int64_t sub[1];
      inner.offsets(j, sub);
      const T x = in[off[1] + sub[0]];
      Partial<T> q;
      q.acc = op == ReduceOp::norm ? static_cast<Acc<T>>(x) * static_cast<Acc<T>>(x) : static_cast<Acc<T>>(x);
      q.best = x;
      q.index = j;
      q.has = true;
      combine(op, p, q);
    }
    auto store = [&](int slot, const Partial<T>& q) {
      s_acc[slot] = q.acc;
      s_best[slot] = q.best;
      s_index[slot] = q.index;
      s_has[slot] = q.has;
    };
    auto load = [&](int slot) { return Partial<T>{s_acc[slot], s_best[slot], s_index[slot], s_has[slot]}; };
    store(t, p);
    __syncthreads();
    for (int width = blockDim.x / 2; width > 0; width /= 2) {
      if (t < width) {
        Partial<T> a = load(t);
        combine(op, a, load(t + width));
        store(t, a);
      }
      __syncthreads();
    }
    if (t == 0) {
      switch (op) {
        case ReduceOp::sum: out[off[0]] = static_cast<T>(s_acc[0]); break;
        case ReduceOp::mean:
          out[off[0]] = static_cast<T>(count ? static_cast<double>(s_acc[0]) / static_cast<double>(count)
                                             : std::numeric_limits<double>::quiet_NaN());
          break;
        case ReduceOp::norm: out[off[0]] = static_cast<T>(sqrt(static_cast<double>(s_acc[0]))); break;
        case ReduceOp::max:
        case ReduceOp::min: out[off[0]] = s_best[0]; break;
        case ReduceOp::argmax: out_index[off[0]] = s_index[0]; break;
      }
    }
    __syncthreads();  // shared memory is reused by the next output
  }
}

}  // namespace

void reduce(ReduceOp op, const StridedView& in, const StridedView& out, cudaStream_t stream) {
  const std::int64_t n_out = out.numel();
  if (n_out == 0) return;
  const auto [base, sub] = reduction_views(in, out);
  const std::int64_t count = sub.numel();
  const StridedView* outer_views[2] = {&out, &base};
  const StridedView* inner_views[1] = {&sub};
  const auto outer = make_offset_calc(outer_views);
  const auto inner = make_offset_calc(inner_views);
  const unsigned blocks = static_cast<unsigned>(std::min<std::int64_t>(n_out, 1 << 20));
  dispatch(in.dtype, [&](auto tag) {
    using T = decltype(tag);
    T* dst = op == ReduceOp::argmax ? nullptr : data_of<T>(out);
    std::int64_t* dst_index = op == ReduceOp::argmax ? data_of<std::int64_t>(out) : nullptr;
    reduce_kernel<T><<<blocks, kThreads, 0, stream>>>(op, data_of<T>(in), dst, dst_index, outer,
                                                      inner, n_out, count);
    HETERO_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace hetero::cuda::kernels
