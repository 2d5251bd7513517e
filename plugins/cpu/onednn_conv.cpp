// SPDX-License-Identifier: Apache-2.0
// Note [Convolution on oneDNN]: float32 and bfloat16 conv2d and conv3d (conv2d with its bias,
// Conv2dOp::forward_bias, where the core has one) and its two gradients run on oneDNN's
// convolution primitives (Debian's libdnnl, the library libtorch, ONNX Runtime and
// TensorFlow call), as libtorch's cpu convolution does: the primitive picks its memory
// formats (format_tag::any: blocked layouts such as nChw8c where its JIT kernels want them),
// the plain NCHW / OIHW operands are reordered into them and the result back. A primitive
// and its reorders are built once per (op, geometry) and cached; each call brings its own
// scratchpad (scratchpad_mode::user), so concurrent calls from two cpu devices share nothing
// mutable. Threads: a batch of at least as many samples as the device's kernel threads (and a
// small weight) is split over those threads, each running its part on one OpenMP thread
// (Note [oneDNN on the kernel threads]); otherwise Debian's oneDNN runs on OpenMP with the
// calling thread's OpenMP thread count set to the device's kernel threads for the call and
// restored after it (a per-thread setting: nothing else in the process changes). The calling thread
// is the application's, never the device's worker (Note [Work that runs on the caller],
// work_queue.hpp). bfloat16 operands stay bfloat16 (the primitive sums in float32 and rounds once,
// as torch's bfloat16 convolution, which calls the same primitives); where oneDNN has no bfloat16
// kernel (a CPU without AVX-512) it declines. float64, float16 and what oneDNN declines stay on
// kernels_conv.cpp's kernels.
#include "onednn_conv.hpp"

#if HETERO_CPU_ONEDNN
#include <algorithm>
#include <array>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include <dnnl.hpp>

#include "onednn_runtime.hpp"
#include "thread_pool.hpp"
#endif

namespace hetero::cpu::kernels {

#if HETERO_CPU_ONEDNN
namespace {

using dnnl::memory;
using onednn::engine;
using Dims = memory::dims;
using Tag = memory::format_tag;

// One operand: its plain (user) layout, the primitive's, and the reorder between them when
// they differ.
struct Operand {
  memory::desc user, inner;
  std::optional<dnnl::reorder> convert;  // user -> inner (inputs) or inner -> user (output)
};

// One run of whole blocks of a weight's outermost dimension (Note [oneDNN on the kernel
// threads]): a view of the plain weight (a sub-memory: its offset is in the desc), a dense
// tensor of its own in the primitive's layout at inner_offset bytes, and the reorder between
// them.
struct Chunk {
  memory::desc user, inner;
  dnnl::reorder convert;          // user -> inner (an input weight) or inner -> user (its gradient)
  std::int64_t inner_offset = 0;  // bytes
};

struct Plan {
  dnnl::primitive primitive;
  Operand a, b, out;
  memory::desc scratchpad;
  std::optional<memory::desc> bias;  // Conv2dOp::forward_bias: the bias, [o] (format x)
  int arg_a = 0, arg_b = 0, arg_out = 0;
  // The weight's chunks per thread count, made on first use (weight_chunks).
  std::mutex chunk_mutex;
  std::map<std::int64_t, std::shared_ptr<const std::vector<Chunk>>> chunks;
};

Operand operand(const memory::desc& user, const memory::desc& inner, bool is_output) {
  Operand o{user, inner, std::nullopt};
  if (user != inner)
    o.convert = is_output
                    ? dnnl::reorder(dnnl::reorder::primitive_desc(engine(), inner, engine(), user))
                    : dnnl::reorder(dnnl::reorder::primitive_desc(engine(), user, engine(), inner));
  return o;
}

// A 2-d or 3-d convolution as oneDNN describes it: the plain (user) operands' dimensions and
// formats, and the window. oneDNN's dilation counts the gaps (torch's dilation - 1); the
// right padding is torch's left one: oneDNN's output size (src - extent + l + r) / stride + 1
// is then torch's.
struct Shapes {
  Dims src, wts, dst, strides, dilates, pad;
  Tag act, wtag;   // nchw / ncdhw; oihw, goihw / oidhw, goidhw
  std::int64_t o;  // output channels (the bias's size)
};

Shapes shapes_of(const Conv2dArgs& g) {
  const bool grouped = g.groups != 1;
  return {{g.n, g.c, g.h, g.w},
          grouped ? Dims{g.groups, g.o / g.groups, g.c / g.groups, g.kh, g.kw}
                  : Dims{g.o, g.c, g.kh, g.kw},
          {g.n, g.o, g.oh, g.ow},
          {g.sh, g.sw},
          {g.dh - 1, g.dw - 1},
          {g.ph, g.pw},
          Tag::nchw,
          grouped ? Tag::goihw : Tag::oihw,
          g.o};
}

Shapes shapes_of(const Conv3dArgs& g) {
  const bool grouped = g.groups != 1;
  return {{g.n, g.c, g.d, g.h, g.w},
          grouped ? Dims{g.groups, g.o / g.groups, g.c / g.groups, g.kd, g.kh, g.kw}
                  : Dims{g.o, g.c, g.kd, g.kh, g.kw},
          {g.n, g.o, g.od, g.oh, g.ow},
          {g.sd, g.sh, g.sw},
          {g.dd - 1, g.dh - 1, g.dw - 1},
          {g.pd, g.ph, g.pw},
          Tag::ncdhw,
          grouped ? Tag::goidhw : Tag::oidhw,
          g.o};
}

// `op` (Conv2dOp's codes; a Conv3dOp maps to the code of the same name) of `sh`.
std::shared_ptr<Plan> make_plan(Conv2dOp op, const Shapes& sh, memory::data_type type) {
  const Dims &src = sh.src, &dst = sh.dst, &wts = sh.wts;
  const memory::desc src_user(src, type, sh.act), dst_user(dst, type, sh.act),
      wts_user(wts, type, sh.wtag);
  const auto any = [type](const Dims& d) { return memory::desc(d, type, Tag::any); };
  const Dims &strides = sh.strides, &dilates = sh.dilates, &pad = sh.pad;
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::convolution_forward::desc fd(dnnl::prop_kind::forward_training,
                                           dnnl::algorithm::convolution_direct, any(src), any(wts),
                                           any(dst), strides, dilates, pad, pad);
  const dnnl::convolution_forward::primitive_desc fpd(fd, attr, engine());
  auto plan = std::make_shared<Plan>();
  switch (op) {
    case Conv2dOp::forward_bias: {
      // The bias in the primitive (oneDNN adds it before the one rounding, as torch's).
      const memory::desc bias_md(Dims{sh.o}, type, Tag::x);
      const dnnl::convolution_forward::desc bd(
          dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct, any(src),
          any(wts), bias_md, any(dst), strides, dilates, pad, pad);
      const dnnl::convolution_forward::primitive_desc bpd(bd, attr, engine());
      plan->primitive = dnnl::convolution_forward(bpd);
      plan->a = operand(src_user, bpd.src_desc(), false);
      plan->b = operand(wts_user, bpd.weights_desc(), false);
      plan->out = operand(dst_user, bpd.dst_desc(), true);
      plan->bias = bpd.bias_desc();
      plan->scratchpad = bpd.scratchpad_desc();
      plan->arg_a = DNNL_ARG_SRC;
      plan->arg_b = DNNL_ARG_WEIGHTS;
      plan->arg_out = DNNL_ARG_DST;
      break;
    }
    case Conv2dOp::forward:
      plan->primitive = dnnl::convolution_forward(fpd);
      plan->a = operand(src_user, fpd.src_desc(), false);
      plan->b = operand(wts_user, fpd.weights_desc(), false);
      plan->out = operand(dst_user, fpd.dst_desc(), true);
      plan->scratchpad = fpd.scratchpad_desc();
      plan->arg_a = DNNL_ARG_SRC;
      plan->arg_b = DNNL_ARG_WEIGHTS;
      plan->arg_out = DNNL_ARG_DST;
      break;
    case Conv2dOp::backward_input: {
      const dnnl::convolution_backward_data::desc d(dnnl::algorithm::convolution_direct, any(src),
                                                    any(wts), any(dst), strides, dilates, pad, pad);
      const dnnl::convolution_backward_data::primitive_desc pd(d, attr, engine(), fpd);
      plan->primitive = dnnl::convolution_backward_data(pd);
      plan->a = operand(dst_user, pd.diff_dst_desc(), false);
      plan->b = operand(wts_user, pd.weights_desc(), false);
      plan->out = operand(src_user, pd.diff_src_desc(), true);
      plan->scratchpad = pd.scratchpad_desc();
      plan->arg_a = DNNL_ARG_DIFF_DST;
      plan->arg_b = DNNL_ARG_WEIGHTS;
      plan->arg_out = DNNL_ARG_DIFF_SRC;
      break;
    }
    case Conv2dOp::backward_weight: {
      // The gradient in float32 where oneDNN offers it (for bfloat16 operands: summed in
      // float32 and rounded once by the reorder out, or after the parts of a split call are
      // added: Note [oneDNN on the kernel threads]); else in the operands' type.
      const auto weights_pd = [&](memory::data_type gradient) {
        const dnnl::convolution_backward_weights::desc d(
            dnnl::algorithm::convolution_direct, any(src), memory::desc(wts, gradient, Tag::any),
            any(dst), strides, dilates, pad, pad);
        return dnnl::convolution_backward_weights::primitive_desc(d, attr, engine(), fpd);
      };
      dnnl::convolution_backward_weights::primitive_desc pd;
      try {
        pd = weights_pd(memory::data_type::f32);
      } catch (const dnnl::error&) {
        pd = weights_pd(type);
      }
      plan->primitive = dnnl::convolution_backward_weights(pd);
      plan->a = operand(dst_user, pd.diff_dst_desc(), false);
      plan->b = operand(src_user, pd.src_desc(), false);
      plan->out = operand(wts_user, pd.diff_weights_desc(), true);
      plan->scratchpad = pd.scratchpad_desc();
      plan->arg_a = DNNL_ARG_DIFF_DST;
      plan->arg_b = DNNL_ARG_SRC;
      plan->arg_out = DNNL_ARG_DIFF_WEIGHTS;
      break;
    }
  }
  return plan;
}

// op, dtype, OpenMP threads, then every dimension of the operands and the window (a 2-d and
// a 3-d geometry differ in length).
using Key = std::vector<std::int64_t>;

// The cached plans (built once per op, geometry and thread count; a few dozen in a ResNet), or
// nullptr where oneDNN has none. A primitive keeps the OpenMP thread count it was made with
// (its work split, and the team it starts when it runs), so each is made, and kept, for the
// `threads` it runs on.
std::shared_ptr<Plan> plan_for(Conv2dOp op, const Shapes& sh, memory::data_type type, int threads) {
  static std::mutex mutex;
  static std::map<Key, std::shared_ptr<Plan>> plans;
  constexpr std::size_t kMaxPlans = 512;  // then start again: geometries that come and go
  Key key{static_cast<std::int64_t>(op), static_cast<std::int64_t>(type), threads};
  for (const Dims* d : {&sh.src, &sh.wts, &sh.dst, &sh.strides, &sh.dilates, &sh.pad})
    key.insert(key.end(), d->begin(), d->end());
  {
    const std::lock_guard lock(mutex);
    if (const auto it = plans.find(key); it != plans.end()) return it->second;
  }
  std::shared_ptr<Plan> plan;
  try {
    const onednn::ThreadScope thread_scope(threads);
    plan = make_plan(op, sh, type);
  } catch (const dnnl::error&) {
    plan = nullptr;  // no implementation: the im2col kernels run it
  }
  const std::lock_guard lock(mutex);
  if (plans.size() >= kMaxPlans) plans.clear();
  plans.emplace(key, plan);
  return plan;
}

}  // namespace

bool onednn_available() noexcept { return true; }
bool onednn_in_use() noexcept { return onednn::enabled(); }
bool onednn_avx512() noexcept {
  static const bool avx512 = [] {
    const auto core = static_cast<unsigned>(dnnl::cpu_isa::avx512_core);
    return (static_cast<unsigned>(dnnl::get_effective_cpu_isa()) & core) == core;
  }();
  return avx512;
}
void onednn_release_kept_buffers() noexcept { onednn::release_kept_buffers(); }
std::size_t onednn_kept_bytes() noexcept { return onednn::kept_bytes(); }

namespace {

// Runs `plan` over one set of dense operands on this thread with its OpenMP thread count as
// it is: the inputs reordered into the primitive's layouts in `buffers`, the result back;
// `b_inner` / `out_inner`: that operand is in (is left in) the primitive's layout already.
void execute(const Plan& plan, const void* a, const void* b, void* out, const void* bias,
             onednn::KeptBuffers& buffers, bool b_inner = false, bool out_inner = false) {
  dnnl::stream stream(engine());
  const auto kept = [&buffers](const memory::desc& d, int slot) {
    return memory(d, engine(), buffers.get(slot, d.get_size()));
  };
  const auto input = [&](const Operand& o, const void* data, int slot) {
    memory user(o.user, engine(), const_cast<void*>(data));  // read only
    if (!o.convert) return user;
    memory inner = kept(o.inner, slot);
    o.convert->execute(stream, user, inner);
    return inner;
  };
  memory ma = input(plan.a, a, 0);
  memory mb = b_inner ? memory(plan.b.inner, engine(), const_cast<void*>(b)) : input(plan.b, b, 1);
  memory user_out(out_inner ? plan.out.inner : plan.out.user, engine(), out);
  memory mout = plan.out.convert && !out_inner ? kept(plan.out.inner, 2) : user_out;
  memory scratch = kept(plan.scratchpad, 3);
  std::unordered_map<int, memory> args{
      {plan.arg_a, ma}, {plan.arg_b, mb}, {plan.arg_out, mout}, {DNNL_ARG_SCRATCHPAD, scratch}};
  if (plan.bias) args.emplace(DNNL_ARG_BIAS, memory(*plan.bias, engine(), const_cast<void*>(bias)));
  plan.primitive.execute(stream, args);
  if (plan.out.convert && !out_inner) plan.out.convert->execute(stream, mout, user_out);
  stream.wait();
}

std::int64_t elements(const Dims& d, std::size_t from) {
  std::int64_t e = 1;
  for (std::size_t i = from; i < d.size(); ++i) e *= d[i];
  return e;
}

// The weight `w` (an operand of a part's plan, user and inner layouts) cut along the outermost
// dimension of its inner layout into at most `parts` runs of whole blocks, with their reorders
// (to the inner layout for an input weight, from it for a weight gradient), made for one
// OpenMP thread; nullptr where the inner layout has no such dimension (a run is then not a
// dense tensor of its own). Each run is a dense tensor in the inner layout, whose reorder
// writes its padding, and a view of the plain user layout (a sub-memory).
std::shared_ptr<const std::vector<Chunk>> make_chunks(const Operand& w, std::int64_t parts,
                                                      bool to_inner, std::int64_t element) {
  const dnnl_memory_desc_t& md = w.inner.data;
  if (md.format_kind != dnnl_blocked || md.offset0 != 0 || md.extra.flags != 0) return nullptr;
  const auto& blocking = md.format_desc.blocking;
  // Each dimension's inner block and outer extent (padded size / block); the outermost is the
  // one of the largest stride among those of more than one outer index (a stride of an extent
  // of one means nothing).
  std::array<std::int64_t, DNNL_MAX_NDIMS> block{}, extent_of{};
  for (int d = 0; d < md.ndims; ++d) {
    if (md.padded_offsets[d] != 0) return nullptr;
    block[d] = 1;
    for (int k = 0; k < blocking.inner_nblks; ++k)
      if (blocking.inner_idxs[k] == d) block[d] *= blocking.inner_blks[k];
    extent_of[d] = md.padded_dims[d] / block[d];
    if (extent_of[d] * block[d] != md.padded_dims[d]) return nullptr;
  }
  int outer = 0;
  for (int d = 0; d < md.ndims; ++d)
    if (extent_of[d] > 1 &&
        (extent_of[outer] == 1 || blocking.strides[d] > blocking.strides[outer]))
      outer = d;
  for (int d = 0; d < md.ndims; ++d)  // one outermost dimension: a tie is not a cut
    if (d != outer && extent_of[d] > 1 && blocking.strides[d] >= blocking.strides[outer])
      return nullptr;
  const std::int64_t blocks = extent_of[outer], stride = blocking.strides[outer];
  if (blocks * stride * element != static_cast<std::int64_t>(w.inner.get_size())) return nullptr;
  const std::int64_t extent = md.dims[outer];
  auto chunks = std::make_shared<std::vector<Chunk>>();
  const onednn::ThreadScope one_thread(1);
  for (std::int64_t p = 0; p < parts; ++p) {
    const std::int64_t b0 = blocks * p / parts, b1 = blocks * (p + 1) / parts;
    const std::int64_t start = b0 * block[outer], end = std::min(b1 * block[outer], extent);
    if (start >= end) continue;
    dnnl_memory_desc_t part = md;
    part.dims[outer] = end - start;
    part.padded_dims[outer] = (b1 - b0) * block[outer];
    Dims dims = w.user.dims(), offsets(dims.size(), 0);
    dims[static_cast<std::size_t>(outer)] = end - start;
    offsets[static_cast<std::size_t>(outer)] = start;
    Chunk c{w.user.submemory_desc(dims, offsets), memory::desc(part), dnnl::reorder(),
            b0 * stride * element};
    c.convert =
        to_inner
            ? dnnl::reorder(dnnl::reorder::primitive_desc(engine(), c.user, engine(), c.inner))
            : dnnl::reorder(dnnl::reorder::primitive_desc(engine(), c.inner, engine(), c.user));
    chunks->push_back(std::move(c));
  }
  return chunks;
}

// make_chunks, cached in `plan` per `parts` (with its nullptr).
std::shared_ptr<const std::vector<Chunk>> weight_chunks(Plan& plan, const Operand& w,
                                                        std::int64_t parts, bool to_inner,
                                                        std::int64_t element) {
  const std::lock_guard lock(plan.chunk_mutex);
  if (const auto it = plan.chunks.find(parts); it != plan.chunks.end()) return it->second;
  std::shared_ptr<const std::vector<Chunk>> chunks;
  try {
    chunks = make_chunks(w, parts, to_inner, element);
  } catch (const dnnl::error&) {
    chunks = nullptr;  // no reorder for a chunk: the call runs as one primitive
  }
  plan.chunks.emplace(parts, chunks);
  return chunks;
}

// Runs fn(i, buffers) for each i in [0, n), split over the kernel threads (parallel_ranges),
// each thread with one OpenMP thread and its own KeptBuffers (`mine` on the calling thread);
// then rethrows the first exception any of them threw.
template <class F>
void on_kernel_threads(std::int64_t n, onednn::KeptBuffers& mine, F&& fn) {
  const std::thread::id caller = std::this_thread::get_id();
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(n));
  parallel_ranges(n, [&](std::int64_t begin, std::int64_t end) {
    const onednn::ThreadScope one_thread(1);
    std::optional<onednn::KeptBuffers> own;
    if (std::this_thread::get_id() != caller) own.emplace();
    onednn::KeptBuffers& buffers = own ? *own : mine;
    for (std::int64_t i = begin; i < end; ++i) {
      try {
        fn(i, buffers);
      } catch (...) {  // on a pool thread: rethrown below, on the caller's
        errors[static_cast<std::size_t>(i)] = std::current_exception();
      }
    }
  });
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

// Note [oneDNN on the kernel threads]: where the batch has at least as many samples as the
// device has kernel threads, a call runs as that many parts, each a contiguous run of samples
// on one of the device's kernel threads (parallel_ranges) with one OpenMP thread: no OpenMP
// team is started. Debian's oneDNN parallelises over libgomp, whose idle workers spin for
// GOMP_SPINCOUNT (300,000) pause instructions after each primitive before they sleep: 10-15 ms
// where a pause takes ~140 cycles (Intel since Skylake). Every kernel the device ran next on
// its own threads then shared a core with a spinning thread: on an AVX-512 Xeon (2 threads),
// LeNet's conv1 forward + backward took 12.3 ms, 6.9 with OMP_WAIT_POLICY=passive; ResNet-18's
// stem 16.9 and 9.3 ms; the LeNet example ran 8,600 images/s, 13,000 passive (issue #49 item 1:
// never more runnable threads than the device's kernel threads). Each part's primitive is the
// geometry's with the part's batch (a plan per part size; at most two sizes). The weight is
// shared: the threads first reorder it into the primitive's layout together, each a run of
// whole blocks of its outermost dimension (weight_chunks), then run their parts on it. The
// weight's gradient sums over the batch: each part writes its own in the primitive's layout,
// then each thread adds the parts' sums over its run, in part order (the same sum for a given
// thread count), and reorders the run out (bfloat16's gradient is float32 until then: one
// rounding). Batches smaller than the thread count (one image), weights whose layout cannot
// be cut so, weights beyond kMostSplitWeight and a bfloat16 weight gradient oneDNN has no
// float32 form of run as one primitive on `threads` OpenMP threads instead.

// The largest weight (elements) of a split call. Split, the 512 -> 512 3x3 layer (2,359,296)
// ran 3-5% slower than one primitive in every run (bench_conv resnet_512_7x7 at batch 32,
// forward + backward 73-76 ms against 70; its weight gradient's second part adds 9 MiB to
// read and write); below it the split and the single primitive were within the runs' spread
// of each other, layer by layer (2026-12-01, an AVX-512 Xeon, docs/bench/conv.md).
constexpr std::int64_t kMostSplitWeight = std::int64_t{1} << 21;

bool run(Conv2dOp op, const Shapes& sh, DType dtype, const void* a, const void* b, void* out,
         int threads, const void* bias) {
  if ((op == Conv2dOp::forward_bias) != (bias != nullptr)) return false;
  if (dtype != DType::float32 && dtype != DType::bfloat16) return false;
  // HETERO_CPU_ONEDNN=0: the im2col kernels (comparisons)
  if (!onednn::enabled()) return false;
  for (const Dims* d : {&sh.src, &sh.dst})
    for (std::int64_t v : *d)
      if (v <= 0) return false;
  const memory::data_type type =
      dtype == DType::float32 ? memory::data_type::f32 : memory::data_type::bf16;
  const std::int64_t element = dtype == DType::float32 ? 4 : 2;
  const bool by_weight = op == Conv2dOp::backward_weight;
  const std::int64_t n = sh.src[0];
  const std::int64_t parts = std::min<std::int64_t>(std::max(threads, 1), n);
  const auto whole = [&] {  // one primitive on `threads` OpenMP threads
    const std::shared_ptr<Plan> plan = plan_for(op, sh, type, threads);
    if (!plan) return false;
    const onednn::ThreadScope thread_scope(threads);
    onednn::KeptBuffers buffers;  // the primitive's own layouts live in the thread's kept blocks
    execute(*plan, a, b, out, bias, buffers);
    return true;
  };
  if (parts <= 1 || elements(sh.wts, 0) > kMostSplitWeight) return whole();
  // Every part's plan and the weight's chunks first: where oneDNN declines one, nothing has
  // been written and the call runs as one primitive.
  const auto first = [n, parts](std::int64_t p) { return n * p / parts; };
  std::vector<std::shared_ptr<Plan>> plans;
  for (std::int64_t p = 0; p < parts; ++p) {
    Shapes part = sh;
    part.src[0] = part.dst[0] = first(p + 1) - first(p);
    plans.push_back(plan_for(op, part, type, 1));
    if (!plans.back()) return whole();
  }
  // The weight (forward, backward_input) or its gradient (backward_weight), in every part's
  // layout alike.
  const auto weight_of = [by_weight](const Plan& plan) -> const Operand& {
    return by_weight ? plan.out : plan.b;
  };
  const Operand& w = weight_of(*plans[0]);
  for (const std::shared_ptr<Plan>& plan : plans)
    if (weight_of(*plan).inner != w.inner || weight_of(*plan).user != w.user) return whole();
  // The parts' weight gradients are added in float32: one rounding for bfloat16.
  if (by_weight && w.inner.data_type() != memory::data_type::f32) return whole();
  const std::int64_t inner_element = w.inner.data_type() == memory::data_type::f32 ? 4 : 2;
  std::shared_ptr<const std::vector<Chunk>> chunks;
  if (w.convert) {
    chunks = weight_chunks(*plans[0], w, parts, !by_weight, inner_element);
    if (!chunks) return whole();
  }
  // The weight's bytes in the primitive's layout, and its stride between the parts' weight
  // gradients (whole cache lines).
  const auto inner_bytes = static_cast<std::int64_t>(w.inner.get_size());
  const std::int64_t part_bytes = (inner_bytes + 63) / 64 * 64;
  const std::int64_t src_bytes = elements(sh.src, 1) * element,
                     dst_bytes = elements(sh.dst, 1) * element;  // per sample
  const auto at = [](const void* base, std::int64_t bytes) {
    return const_cast<char*>(static_cast<const char*>(base) + bytes);
  };
  onednn::KeptBuffers mine;
  // The shared weight in the primitive's layout, or the parts' weight gradients.
  char* shared = by_weight || w.convert
                     ? static_cast<char*>(mine.get(
                           4, static_cast<std::size_t>((by_weight ? parts : 1) * part_bytes)))
                     : nullptr;
  if (!by_weight && w.convert)
    on_kernel_threads(static_cast<std::int64_t>(chunks->size()), mine,
                      [&](std::int64_t i, onednn::KeptBuffers&) {
                        const Chunk& c = (*chunks)[static_cast<std::size_t>(i)];
                        dnnl::stream stream(engine());
                        memory from(c.user, engine(), const_cast<void*>(b)),
                            to(c.inner, engine(), shared + c.inner_offset);
                        c.convert.execute(stream, from, to);
                        stream.wait();
                      });
  // forward: (input, weight) -> output; backward_input: (output grad, weight) -> input grad;
  // backward_weight: (output grad, input) -> the part's weight grad. Bytes per sample of a
  // and out.
  const bool a_is_src = op == Conv2dOp::forward || op == Conv2dOp::forward_bias;
  const std::int64_t a_sample = a_is_src ? src_bytes : dst_bytes,
                     out_sample = a_is_src ? dst_bytes : src_bytes;
  on_kernel_threads(parts, mine, [&](std::int64_t p, onednn::KeptBuffers& buffers) {
    const std::int64_t s0 = first(p);
    const Plan& plan = *plans[static_cast<std::size_t>(p)];
    if (by_weight)
      execute(plan, at(a, s0 * a_sample), at(b, s0 * src_bytes), shared + p * part_bytes, bias,
              buffers, false, true);
    else
      execute(plan, at(a, s0 * a_sample), w.convert ? shared : b, at(out, s0 * out_sample), bias,
              buffers, w.convert.has_value());
  });
  if (!by_weight) return true;
  // The parts' float32 sums added over each run (in the inner layout, its padding included),
  // then the run reordered into `out`; without a reorder, over ranges of the weight.
  const auto add_parts = [&](std::int64_t begin, std::int64_t end, float* into) {
    const auto* sums = reinterpret_cast<const float*>(shared);
    const std::int64_t stride = part_bytes / 4;
    for (std::int64_t i = begin; i < end; ++i) {
      float v = sums[i];
      for (std::int64_t p = 1; p < parts; ++p) v += sums[p * stride + i];
      into[i] = v;
    }
  };
  if (!w.convert) {
    parallel_ranges(inner_bytes / 4, [&](std::int64_t begin, std::int64_t end) {
      add_parts(begin, end, static_cast<float*>(out));
    });
    return true;
  }
  on_kernel_threads(
      static_cast<std::int64_t>(chunks->size()), mine, [&](std::int64_t i, onednn::KeptBuffers&) {
        const Chunk& c = (*chunks)[static_cast<std::size_t>(i)];
        const std::int64_t begin = c.inner_offset / 4;
        add_parts(begin, begin + static_cast<std::int64_t>(c.inner.get_size()) / 4,
                  reinterpret_cast<float*>(shared));
        dnnl::stream stream(engine());
        memory from(c.inner, engine(), shared + c.inner_offset), to(c.user, engine(), out);
        c.convert.execute(stream, from, to);
        stream.wait();
      });
  return true;
}

}  // namespace

bool onednn_conv2d(Conv2dOp op, const Conv2dArgs& g, DType dtype, const void* a, const void* b,
                   void* out, int threads, const void* bias) {
  return run(op, shapes_of(g), dtype, a, b, out, threads, bias);
}

bool onednn_conv3d(Conv3dOp op, const Conv3dArgs& g, DType dtype, const void* a, const void* b,
                   void* out, int threads) {
  // Conv3dOp's codes are Conv2dOp's first three.
  static_assert(
      static_cast<int>(Conv3dOp::forward) == static_cast<int>(Conv2dOp::forward) &&
      static_cast<int>(Conv3dOp::backward_input) == static_cast<int>(Conv2dOp::backward_input) &&
      static_cast<int>(Conv3dOp::backward_weight) == static_cast<int>(Conv2dOp::backward_weight));
  return run(static_cast<Conv2dOp>(op), shapes_of(g), dtype, a, b, out, threads, nullptr);
}

#else

bool onednn_available() noexcept { return false; }
bool onednn_in_use() noexcept { return false; }
bool onednn_avx512() noexcept { return false; }
void onednn_release_kept_buffers() noexcept {}
std::size_t onednn_kept_bytes() noexcept { return 0; }
bool onednn_conv2d(Conv2dOp, const Conv2dArgs&, DType, const void*, const void*, void*, int,
                   const void*) {
  return false;
}
bool onednn_conv3d(Conv3dOp, const Conv3dArgs&, DType, const void*, const void*, void*, int) {
  return false;
}

#endif

}  // namespace hetero::cpu::kernels
