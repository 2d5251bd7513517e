// SPDX-License-Identifier: Apache-2.0
// Reductions. Semantics (shared with the cpu backend and checked by the conformance kit):
// floating sums, means and norms accumulate in double, integer sums in wrapping int64;
// max/min/argmax: NaN is the maximum (and the minimum), ties go to the lowest index, as
// torch.
//
// Paths, chosen from the layout (contiguous input and output; the reduced dimensions one
// block, so the input is [O, R, I] with R reduced):
//   - everything (O = I = 1): cub::DeviceReduce over the whole input, or one block
//     (cub::BlockReduce) when it has at most 16384 elements;
//   - rows (I = 1): cub::DeviceSegmentedReduce, one segment of R elements per output;
//   - columns (I > 1): a kernel with one thread per output, adjacent threads reading
//     adjacent columns (coalesced); when there are too few outputs to fill the device, the
//     R rows are split into chunks whose partial results a second kernel combines in order
//     (deterministic, no atomics);
//   - anything else (strided views, reduced dimensions not adjacent): the generic kernel,
//     one thread block per output.
// Scratch memory (CUB's temporary storage, partial results) comes from the device's
// caching allocator and is freed in stream order.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>

#include <cmath>
#include <limits>

#include <hetero/sdk/element_conversion.hpp>
#include <hetero/sdk/reduction_ops.hpp>

#include "kernels.cuh"
#include "kernels.hpp"

namespace hetero::cuda::kernels {
namespace {

// Whole-input reductions of at most this many elements run on one block.
constexpr std::int64_t kSmallWholeReduction = 16384;

// Note [Reduction semantics] (<hetero/sdk/reduction_ops.hpp>): accumulators, wrap, NaN and ties.
template <class T>
using Acc = reduction_accumulator_t<T>;

// --- sum, mean, norm: a running sum in Acc<T> -------------------------------------------

template <class T>
struct SumReducer {
  using Value = Acc<T>;
  bool square = false;  // norm: sum of squares
  __host__ __device__ Value identity() const { return Value(0); }
  __host__ __device__ Value load(T x, std::int64_t) const {
    const Value v = static_cast<Value>(x);
    return square ? v * v : v;
  }
  __host__ __device__ Value operator()(Value a, Value b) const {
    if constexpr (std::is_floating_point_v<Value>)
      return a + b;
    else
      return wrapping_add(a, b);
  }
};

// The result of sum/mean/norm from the accumulated value (the table's finish column).
template <class T>
struct SumFinish {
  ReductionOp op;
  std::int64_t count;
  __host__ __device__ T operator()(Acc<T> acc, std::int64_t = 0) const {
    if constexpr (is_floating_storage_v<T>) {
      return convert_element<T>(reduction_finish(op, static_cast<double>(acc), count));
    } else {
      return static_cast<T>(acc);  // mean and norm of integers are rejected by the core
    }
  }
};

// --- max, min, argmax: the best (value, index) pair -------------------------------------

// key: the element's index in the reduced range (-1: none yet, the identity).
template <class T>
using Best = cub::KeyValuePair<std::int64_t, T>;

template <class T>
struct BestReducer {
  using Value = Best<T>;
  bool less = false;  // min
  __host__ __device__ Value identity() const { return Value(-1, T(0)); }
  __host__ __device__ Value load(T x, std::int64_t j) const { return Value(j, x); }
  // True when b should replace a.
  __host__ __device__ bool better(const Value& b, const Value& a) const {
    if (a.key < 0) return b.key >= 0;
    if (b.key < 0) return false;
    return extremum_replaces(b.value, b.key, a.value, a.key, less);
  }
  __host__ __device__ Value operator()(const Value& a, const Value& b) const {
    return better(b, a) ? b : a;
  }
};

// (index in the whole input, value) of element j: an arg-index iterator of our own, since
// CUB's ArgIndexInputIterator has its keys rebased to each segment's start by
// DeviceSegmentedReduce (only when offset types match), which finish functors would have to
// know.
template <class T>
struct Indexed {
  const T* in;
  __host__ __device__ Best<T> operator()(std::int64_t j) const { return Best<T>(j, in[j]); }
};

// Output o's index within its row of `row` elements, from the index in the whole input.
template <class T>
struct IndexInRow {
  std::int64_t row;
  __host__ __device__ std::int64_t operator()(const Best<T>& b, std::int64_t o = 0) const {
    return b.key - o * row;
  }
};

// The key as it is (the columns kernel numbers rows within the reduced range already).
template <class T>
struct KeyOf {
  __host__ __device__ std::int64_t operator()(const Best<T>& b, std::int64_t = 0) const {
    return b.key;
  }
};

// --- max, min: the value alone (NaN wins) -------------------------------------------------

template <class T>
struct ExtremeReducer {
  using Value = T;
  bool less = false;  // min
  __host__ __device__ Value identity() const {
    if constexpr (is_floating_storage_v<T>) {
      return convert_element<T>(less ? std::numeric_limits<float>::infinity()
                                     : -std::numeric_limits<float>::infinity());
    } else {
      return less ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest();
    }
  }
  __host__ __device__ Value load(T x, std::int64_t) const { return x; }
  __host__ __device__ Value operator()(Value a, Value b) const { return extremum(a, b, less); }
};

template <class T>
struct Same {
  __host__ __device__ T operator()(T v, std::int64_t = 0) const { return v; }
};

// --- iterators over the input -----------------------------------------------------------

template <class T, class Reducer>
struct Load {
  Reducer r;
  __host__ __device__ typename Reducer::Value operator()(T x) const { return r.load(x, 0); }
};

struct RowStart {
  std::int64_t row;
  __host__ __device__ std::int64_t operator()(std::int64_t i) const { return i * row; }
};

// --- scratch memory from the device pool ------------------------------------------------

class Scratch {
 public:
  Scratch(CudaCachingAllocator& pool, std::size_t bytes) : pool_(pool) {
    if (bytes > 0) block_ = pool_.allocate(bytes);
  }
  ~Scratch() { pool_.free(block_, {}); }  // reused in stream order
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  void* get() const noexcept { return block_.ptr; }

 private:
  CudaCachingAllocator& pool_;
  CudaCachingAllocator::Block block_;
};

// Runs a CUB device-wide algorithm: `call(temp, bytes)` twice, first for the size.
template <class Call>
void run_cub(CudaCachingAllocator& pool, Call&& call) {
  std::size_t bytes = 0;
  HETERO_CUDA_CHECK(call(nullptr, bytes));
  Scratch temp(pool, bytes);
  HETERO_CUDA_CHECK(call(temp.get(), bytes));
}

// --- the layout ---------------------------------------------------------------------------

// [O, R, I]: outer kept, reduced, inner kept element counts of a contiguous input whose
// reduced dimensions are adjacent; `ok` false otherwise.
struct Layout {
  bool ok = false;
  std::int64_t outer = 1, reduced = 1, inner = 1;
};

Layout layout_of(const StridedView& in, const StridedView& out) {
  Layout l;
  if (!in.is_contiguous() || !out.is_contiguous()) return l;
  int phase = 0;  // 0: before the reduced block, 1: in it, 2: after it
  for (int d = 0; d < in.ndim; ++d) {
    const std::int64_t n = in.shape[d];
    if (n == 1) continue;
    const bool reduced = out.shape[d] == 1;
    if (reduced) {
      if (phase == 2) return l;  // a second reduced block
      phase = 1;
      l.reduced *= n;
    } else {
      if (phase == 1) phase = 2;
      (phase == 0 ? l.outer : l.inner) *= n;
    }
  }
  l.ok = true;
  return l;
}

// The current device's SM count.
// A whole input small enough for one block.
bool small_whole(const Layout& l) {
  return l.outer == 1 && l.inner == 1 && l.reduced <= kSmallWholeReduction;
}

int multiprocessors() {
  int device = 0, count = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return 1;
  }
  return count;
}

// --- columns: thread per output, coalesced across the inner dimension --------------------

// Partial results of rows [chunk * rows_per_chunk, ...) for output (o, i) go to
// partial[chunk * outputs + o * inner + i].
template <class T, class Reducer>
__global__ void columns_kernel(Reducer r, const T* in, typename Reducer::Value* partial,
                               std::int64_t outer, std::int64_t reduced, std::int64_t inner,
                               std::int64_t rows_per_chunk) {
  const std::int64_t outputs = outer * inner;
  const std::int64_t chunk = blockIdx.y;
  const std::int64_t first = chunk * rows_per_chunk;
  const std::int64_t last = first + rows_per_chunk < reduced ? first + rows_per_chunk : reduced;
  HETERO_GRID_STRIDE_LOOP(k, outputs) {
    const std::int64_t o = k / inner, i = k % inner;
    const T* p = in + (o * reduced) * inner + i;
    typename Reducer::Value acc = r.identity();
    for (std::int64_t j = first; j < last; ++j) acc = r(acc, r.load(p[j * inner], j));
    partial[chunk * outputs + k] = acc;
  }
}

template <class Value, class Reducer, class Out, class Finish>
__global__ void combine_chunks_kernel(Reducer r, const Value* partial, std::int64_t outputs,
                                      std::int64_t chunks, Out* out, Finish finish) {
  HETERO_GRID_STRIDE_LOOP(k, outputs) {
    Value acc = partial[k];
    for (std::int64_t c = 1; c < chunks; ++c) acc = r(acc, partial[c * outputs + k]);
    out[k] = finish(acc, k);
  }
}

template <class T, class Reducer, class Out, class Finish>
void reduce_columns(const Layout& l, Reducer r, const T* in, Out* out, Finish finish,
                    CudaCachingAllocator& pool, cudaStream_t stream) {
  using Value = typename Reducer::Value;
  const std::int64_t outputs = l.outer * l.inner;
  // Enough threads to fill the device (2048 resident per SM), at least 16 rows a chunk.
  const std::int64_t target = static_cast<std::int64_t>(multiprocessors()) * 2048;
  std::int64_t chunks = std::clamp<std::int64_t>(target / std::max<std::int64_t>(outputs, 1), 1,
                                                 std::max<std::int64_t>(l.reduced / 16, 1));
  chunks = std::min<std::int64_t>(chunks, 65535);
  const std::int64_t rows_per_chunk = (l.reduced + chunks - 1) / chunks;
  chunks = (l.reduced + rows_per_chunk - 1) / rows_per_chunk;
  Scratch partial(pool, static_cast<std::size_t>(chunks * outputs) * sizeof(Value));
  auto* p = static_cast<Value*>(partial.get());
  const dim3 grid(grid_for(outputs), static_cast<unsigned>(chunks));
  columns_kernel<T, Reducer>
      <<<grid, kThreads, 0, stream>>>(r, in, p, l.outer, l.reduced, l.inner, rows_per_chunk);
  HETERO_CUDA_CHECK_LAUNCH();
  combine_chunks_kernel<<<grid_for(outputs), kThreads, 0, stream>>>(r, p, outputs, chunks, out,
                                                                    finish);
  HETERO_CUDA_CHECK_LAUNCH();
}

// --- everything and rows: CUB -----------------------------------------------------------

// finish(v, 0): the single output of a whole-input reduction.
template <class Finish, class Value>
struct AtFirst {
  Finish finish;
  __host__ __device__ auto operator()(const Value& v) const { return finish(v, 0); }
};

template <class Value, class Out, class Finish>
__global__ void finish_kernel(const Value* in, std::int64_t n, Out* out, Finish finish) {
  HETERO_GRID_STRIDE_LOOP(k, n) { out[k] = finish(in[k], k); }
}

// The whole input (outer == 1) or rows: out[o] = finish(reduction of input row o).
template <class Input, class Reducer, class Out, class Finish>
void reduce_cub(const Layout& l, Input input, Reducer r, Out* out, Finish finish,
                CudaCachingAllocator& pool, cudaStream_t stream) {
  using Value = typename Reducer::Value;
  if (l.outer == 1) {
    auto output = thrust::make_transform_output_iterator(
        out, AtFirst<Finish, typename Reducer::Value>{finish});
    run_cub(pool, [&](void* temp, std::size_t& bytes) {
      return cub::DeviceReduce::Reduce(temp, bytes, input, output, l.reduced, r, r.identity(),
                                       stream);
    });
    return;
  }
  // Segments into a Value array (CUB takes its accumulator type from a plain output), then
  // finished into `out`.
  Scratch values(pool, static_cast<std::size_t>(l.outer) * sizeof(Value));
  auto* v = static_cast<Value*>(values.get());
  auto starts = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0),
                                                RowStart{l.reduced});
  auto ends = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(1),
                                              RowStart{l.reduced});
  run_cub(pool, [&](void* temp, std::size_t& bytes) {
    return cub::DeviceSegmentedReduce::Reduce(temp, bytes, input, v, l.outer, starts, ends, r,
                                              r.identity(), stream);
  });
  finish_kernel<<<grid_for(l.outer), kThreads, 0, stream>>>(v, l.outer, out, finish);
  HETERO_CUDA_CHECK_LAUNCH();
}

// A small whole input on one block (cub::BlockReduce): one launch, no CUB size query and
// no scratch (exercise 3 takes the norm of a 100 x 100 product every step).
template <class T, class Reducer, class Out, class Finish>
__global__ void one_block_kernel(Reducer r, const T* in, std::int64_t n, Out* out, Finish finish) {
  using Value = typename Reducer::Value;
  using BlockReduce = cub::BlockReduce<Value, kThreads>;
  __shared__ typename BlockReduce::TempStorage temp;
  Value acc = r.identity();
  for (std::int64_t j = threadIdx.x; j < n; j += kThreads) acc = r(acc, r.load(in[j], j));
  const Value total = BlockReduce(temp).Reduce(acc, r);
  if (threadIdx.x == 0) *out = finish(total, 0);
}

template <class T, class Reducer, class Out, class Finish>
void reduce_one_block(const Layout& l, Reducer r, const T* in, Out* out, Finish finish,
                      cudaStream_t stream) {
  one_block_kernel<<<1, kThreads, 0, stream>>>(r, in, l.reduced, out, finish);
  HETERO_CUDA_CHECK_LAUNCH();
}

template <class T>
void reduce_fast(ReductionOp op, const Layout& l, const T* in, const StridedView& out,
                 CudaCachingAllocator& pool, cudaStream_t stream) {
  if (op == ReductionOp::sum || op == ReductionOp::mean || op == ReductionOp::norm) {
    const SumReducer<T> r{op == ReductionOp::norm};
    const SumFinish<T> finish{op, l.reduced};
    T* dst = element_pointer<T>(out);
    if (small_whole(l)) return reduce_one_block(l, r, in, dst, finish, stream);
    if (l.inner > 1) return reduce_columns(l, r, in, dst, finish, pool, stream);
    auto input = thrust::make_transform_iterator(in, Load<T, SumReducer<T>>{r});
    return reduce_cub(l, input, r, dst, finish, pool, stream);
  }
  if (op == ReductionOp::argmax) {
    const BestReducer<T> r{false};
    std::int64_t* dst = element_pointer<std::int64_t>(out);
    const IndexInRow<T> finish{l.reduced};
    if (small_whole(l)) return reduce_one_block(l, r, in, dst, KeyOf<T>{}, stream);
    if (l.inner > 1) return reduce_columns(l, r, in, dst, KeyOf<T>{}, pool, stream);
    auto input =
        thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), Indexed<T>{in});
    return reduce_cub(l, input, r, dst, finish, pool, stream);
  }
  const ExtremeReducer<T> r{op == ReductionOp::min};
  T* dst = element_pointer<T>(out);
  if (small_whole(l)) return reduce_one_block(l, r, in, dst, Same<T>{}, stream);
  if (l.inner > 1) return reduce_columns(l, r, in, dst, Same<T>{}, pool, stream);
  reduce_cub(l, in, r, dst, Same<T>{}, pool, stream);
}

// --- the generic path: one block per output ------------------------------------------------

// Partial result of a block thread.
template <class T>
struct Partial {
  Acc<T> acc = 0;
  T best = T(0);
  std::int64_t index = 0;  // of `best` in the reduced sub-space
  bool has = false;
};

template <class T>
__device__ void combine(ReductionOp op, Partial<T>& p, const Partial<T>& q) {
  if (!q.has) return;
  if constexpr (is_floating_storage_v<T>)
    p.acc += q.acc;
  else
    p.acc = wrapping_add(p.acc, q.acc);
  const BestReducer<T> r{op == ReductionOp::min};
  if (!p.has || r.better(Best<T>(q.index, q.best), Best<T>(p.index, p.best))) {
    p.best = q.best;
    p.index = q.index;
  }
  p.has = true;
}

template <class T>
__global__ void generic_reduce_kernel(ReductionOp op, const T* in, T* out, std::int64_t* out_index,
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
      q.acc = op == ReductionOp::norm ? static_cast<Acc<T>>(x) * static_cast<Acc<T>>(x)
                                      : static_cast<Acc<T>>(x);
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
    auto load = [&](int slot) {
      return Partial<T>{s_acc[slot], s_best[slot], s_index[slot], s_has[slot]};
    };
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
        case ReductionOp::sum:
        case ReductionOp::mean:
        case ReductionOp::norm:
          out[off[0]] = SumFinish<T>{op, count}(s_acc[0]);
          break;
        case ReductionOp::max:
        case ReductionOp::min:
          out[off[0]] = s_best[0];
          break;
        case ReductionOp::argmax:
          out_index[off[0]] = s_index[0];
          break;
      }
    }
    __syncthreads();  // shared memory is reused by the next output
  }
}

template <class T>
void reduce_generic(ReductionOp op, const StridedView& in, const StridedView& out,
                    cudaStream_t stream) {
  const std::int64_t n_out = out.numel();
  const auto [base, sub] = reduction_views(in, out);
  const StridedView* outer_views[2] = {&out, &base};
  const StridedView* inner_views[1] = {&sub};
  const auto outer = make_offset_calc(outer_views);
  const auto inner = make_offset_calc(inner_views);
  const unsigned blocks = static_cast<unsigned>(std::min<std::int64_t>(n_out, 1 << 20));
  T* dst = op == ReductionOp::argmax ? nullptr : data_of<T>(out);
  std::int64_t* dst_index = op == ReductionOp::argmax ? data_of<std::int64_t>(out) : nullptr;
  generic_reduce_kernel<T><<<blocks, kThreads, 0, stream>>>(op, data_of<T>(in), dst, dst_index,
                                                            outer, inner, n_out, sub.numel());
  HETERO_CUDA_CHECK_LAUNCH();
}

}  // namespace

void reduce(ReductionOp op, const StridedView& in, const StridedView& out,
            CudaCachingAllocator& pool, cudaStream_t stream) {
  if (out.numel() == 0) return;
  const Layout l = layout_of(in, out);
  dispatch(in.dtype, [&](auto tag) {
    using T = decltype(tag);
    // An empty reduced range (sum 0, mean NaN) and the trivial R == 1 go the generic way.
    if (l.ok && l.reduced > 1)
      reduce_fast<T>(op, l, element_pointer<T>(in), out, pool, stream);
    else
      reduce_generic<T>(op, in, out, stream);
  });
}

}  // namespace hetero::cuda::kernels
