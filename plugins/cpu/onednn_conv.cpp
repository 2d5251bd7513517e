// SPDX-License-Identifier: Apache-2.0
// Note [Convolution on oneDNN]: float32 and bfloat16 conv2d and conv3d (conv2d with its bias,
// Conv2dOp::forward_bias, where the core has one) and its two gradients run on oneDNN's
// convolution primitives (Debian's libdnnl, the library libtorch, ONNX Runtime and
// TensorFlow call), as libtorch's cpu convolution does: the primitive picks its memory
// formats (format_tag::any: blocked layouts such as nChw8c where its JIT kernels want them),
// the plain NCHW / OIHW operands are reordered into them and the result back. A primitive
// and its reorders are built once per (op, geometry) and cached; each call brings its own
// scratchpad (scratchpad_mode::user), so concurrent calls from two cpu devices share nothing
// mutable. Threads: Debian's oneDNN runs on OpenMP; the calling thread's OpenMP thread count
// is set to the device's kernel threads for the call and restored after it (a per-thread
// setting: nothing else in the process changes). The calling thread is the application's,
// never the device's worker (Note [Work that runs on the caller], work_queue.hpp). bfloat16
// operands stay bfloat16 (the primitive sums in float32 and rounds once, as torch's bfloat16
// convolution, which calls the same primitives); where oneDNN has no bfloat16 kernel (a CPU
// without AVX-512) it declines. float64, float16 and what oneDNN declines stay on
// kernels_conv.cpp's kernels.
#include "onednn_conv.hpp"

#if HETERO_CPU_ONEDNN
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include <dnnl.hpp>

#include "onednn_runtime.hpp"
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

struct Plan {
  dnnl::primitive primitive;
  Operand a, b, out;
  memory::desc scratchpad;
  std::optional<memory::desc> bias;  // Conv2dOp::forward_bias: the bias, [o] (format x)
  int arg_a = 0, arg_b = 0, arg_out = 0;
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
      const dnnl::convolution_backward_weights::desc d(dnnl::algorithm::convolution_direct,
                                                       any(src), any(wts), any(dst), strides,
                                                       dilates, pad, pad);
      const dnnl::convolution_backward_weights::primitive_desc pd(d, attr, engine(), fpd);
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

// op, dtype, then every dimension of the operands and the window (a 2-d and a 3-d geometry
// differ in length).
using Key = std::vector<std::int64_t>;

// The cached plans (built once per op and geometry; a few dozen in a ResNet), or nullptr where
// oneDNN has none.
std::shared_ptr<Plan> plan_for(Conv2dOp op, const Shapes& sh, memory::data_type type) {
  static std::mutex mutex;
  static std::map<Key, std::shared_ptr<Plan>> plans;
  constexpr std::size_t kMaxPlans = 512;  // then start again: geometries that come and go
  Key key{static_cast<std::int64_t>(op), static_cast<std::int64_t>(type)};
  for (const Dims* d : {&sh.src, &sh.wts, &sh.dst, &sh.strides, &sh.dilates, &sh.pad})
    key.insert(key.end(), d->begin(), d->end());
  {
    const std::lock_guard lock(mutex);
    if (const auto it = plans.find(key); it != plans.end()) return it->second;
  }
  std::shared_ptr<Plan> plan;
  try {
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
void onednn_release_kept_buffers() noexcept { onednn::release_kept_buffers(); }
std::size_t onednn_kept_bytes() noexcept { return onednn::kept_bytes(); }

namespace {

// `op` of `sh` on oneDNN (see onednn_conv2d); false where it has no primitive.
bool run(Conv2dOp op, const Shapes& sh, DType dtype, const void* a, const void* b, void* out,
         int threads, const void* bias) {
  if ((op == Conv2dOp::forward_bias) != (bias != nullptr)) return false;
  if (dtype != DType::float32 && dtype != DType::bfloat16) return false;
  // HETERO_CPU_ONEDNN=0: the im2col kernels (comparisons)
  if (!onednn::enabled()) return false;
  for (const Dims* d : {&sh.src, &sh.dst})
    for (std::int64_t v : *d)
      if (v <= 0) return false;
  const std::shared_ptr<Plan> plan =
      plan_for(op, sh, dtype == DType::float32 ? memory::data_type::f32 : memory::data_type::bf16);
  if (!plan) return false;
  const onednn::ThreadScope thread_scope(threads);
  onednn::KeptBuffers buffers;  // the primitive's own layouts live in the thread's kept blocks
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
  memory ma = input(plan->a, a, 0), mb = input(plan->b, b, 1);
  memory user_out(plan->out.user, engine(), out);
  memory mout = plan->out.convert ? kept(plan->out.inner, 2) : user_out;
  memory scratch = kept(plan->scratchpad, 3);
  std::unordered_map<int, memory> args{
      {plan->arg_a, ma}, {plan->arg_b, mb}, {plan->arg_out, mout}, {DNNL_ARG_SCRATCHPAD, scratch}};
  if (plan->bias)
    args.emplace(DNNL_ARG_BIAS, memory(*plan->bias, engine(), const_cast<void*>(bias)));
  plan->primitive.execute(stream, args);
  if (plan->out.convert) plan->out.convert->execute(stream, mout, user_out);
  stream.wait();
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
