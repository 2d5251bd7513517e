// SPDX-License-Identifier: Apache-2.0
#include "kernels.hpp"

#include <algorithm>
#include <array>
#include <string>

#include <hetero/error.hpp>
#include <hetero/internal_assert.hpp>
#include <hetero/sdk/merge_dims.hpp>

#include "cl_sources.hpp"
#include "kernel_call.hpp"
#include "op_rules.hpp"
#include "opencl_memory.hpp"

namespace hetero::opencl::kernels {
namespace {

// How each hetero dtype is spelled in OpenCL C: the type kernels compute in, and how
// elements are stored (common.cl: kind 1 float16 as `half`, kind 2 bfloat16 as ushort
// bits; both computed in float).
struct ClType {
  const char* name;
  const char* unsigned_name;
  bool is_float;
  bool is_bool;
  const char* min;  // range, for float -> integer saturation
  const char* max;
  const char* storage;
  int kind;
};

ClType cl_type(DType t) {
  switch (t) {
    case DType::float32:
      return {"float", "uint", true, false, "0", "0", "float", 0};
    case DType::float64:
      return {"double", "ulong", true, false, "0", "0", "double", 0};
    case DType::int32:
      return {"int", "uint", false, false, "INT_MIN", "INT_MAX", "int", 0};
    case DType::int64:
      return {"long", "ulong", false, false, "LONG_MIN", "LONG_MAX", "long", 0};
    case DType::bool_:
      return {"uchar", "uchar", false, true, "0", "1", "uchar", 0};
    case DType::float16:
      return {"float", "uint", true, false, "0", "0", "half", 1};
    case DType::bfloat16:
      return {"float", "uint", true, false, "0", "0", "ushort", 2};
    case DType::uint8:
      return {"uchar", "uchar", false, false, "0", "UCHAR_MAX", "uchar", 0};
    case DType::int8:
      return {"char", "uchar", false, false, "CHAR_MIN", "CHAR_MAX", "char", 0};
  }
  HETERO_INTERNAL_ASSERT(false, "opencl backend: dtype " + std::to_string(static_cast<int>(t)));
}

// Options of elementwise.cl / reduce.cl / random.cl for element type `t`.
std::string type_options(const OpenClDevice& dev, DType t) {
  const ClType c = cl_type(t);
  std::string o = std::string("-DT=") + c.name + " -DUT=" + c.unsigned_name + " -DAS_T=as_" +
                  c.name + " -DIS_FLOAT=" + (c.is_float ? "1" : "0") +
                  " -DIS_BOOL=" + (c.is_bool ? "1" : "0") +
                  " -DIS_DOUBLE=" + (t == DType::float64 ? "1" : "0") + " -DST=" + c.storage +
                  " -DKIND=" + std::to_string(c.kind);
  if (c.is_float)
    o += dev.fp64 ? " -DACC=double" : " -DACC=float";
  else
    o += " -DACC=long";
  return o;
}

// elementwise.cl and reduce.cl after the op tables' rules (op_rules.hpp).
const char* with_rules(const char* source) {
  static const std::string elementwise = op_rules_prelude() + kElementwiseSource;
  static const std::string reduce = op_rules_prelude() + kReduceSource;
  if (source == kElementwiseSource) return elementwise.c_str();
  if (source == kReduceSource) return reduce.c_str();
  return source;
}

cl_program program(OpenClDevice& dev, const char* name, const char* source, DType t) {
  return dev.context->programs().get(name, with_rules(source), type_options(dev, t));
}

cl_command_queue queue(OpenClDevice& dev) { return dev.stream.queue(); }

// Copies of `views` (one shape) with hetero::merge_dims applied: the same elements in the
// same order in the fewest dimensions, so that common.cl's view_offset indexes a
// contiguous operand without a division.
template <class... Views>
std::array<StridedView, sizeof...(Views)> merged(const Views&... views) {
  const std::array<const StridedView*, sizeof...(Views)> pointers{&views...};
  return merged_dims<sizeof...(Views)>(pointers);
}

// The value fill() stores, as OpenCL's T.
template <class T>
void fill_as(OpenClDevice& dev, const StridedView& out, T value) {
  KernelCall(program(dev, "elementwise", kElementwiseSource, out.dtype), "fill")
      .buffer_view(merged(out)[0])
      .arg(static_cast<cl_long>(out.numel()))
      .arg(value)
      .launch(queue(dev), out.numel());
}

}  // namespace

void fill(OpenClDevice& dev, const StridedView& out, Scalar value) {
  switch (out.dtype) {
    case DType::float32:
      return fill_as(dev, out, static_cast<cl_float>(value.f));
    case DType::float64:
      return fill_as(dev, out, static_cast<cl_double>(value.f));
    case DType::int32:
      return fill_as(dev, out, static_cast<cl_int>(value.i));
    case DType::int64:
      return fill_as(dev, out, static_cast<cl_long>(value.i));
    case DType::bool_:
      return fill_as(dev, out, static_cast<cl_uchar>(value.i != 0 ? 1 : 0));
    case DType::float16:
    case DType::bfloat16:
      return fill_as(dev, out, static_cast<cl_float>(value.f));  // rounded by STORE
    case DType::uint8:  // the low 8 bits, as scalar_as (element_conversion.hpp)
      return fill_as(dev, out, static_cast<cl_uchar>(static_cast<std::uint8_t>(value.i)));
    case DType::int8:
      return fill_as(dev, out, static_cast<cl_char>(static_cast<std::int8_t>(value.i)));
  }
}

namespace {
void copy_strided(OpenClDevice& dev, const StridedView& src, const StridedView& dst) {
  const auto [ms, md] = merged(src, dst);
  KernelCall(program(dev, "elementwise", kElementwiseSource, dst.dtype), "copy")
      .buffer_view(ms)
      .buffer_view(md)
      .arg(static_cast<cl_long>(dst.numel()))
      .launch(queue(dev), dst.numel());
}
}  // namespace

void cast(OpenClDevice& dev, const StridedView& src, const StridedView& dst) {
  if (src.dtype == dst.dtype) return copy_strided(dev, src, dst);
  const ClType s = cl_type(src.dtype);
  const ClType d = cl_type(dst.dtype);
  const std::string options =
      std::string("-DS=") + s.name + " -DD=" + d.name + " -DS_FLOAT=" + (s.is_float ? "1" : "0") +
      " -DD_FLOAT=" + (d.is_float ? "1" : "0") + " -DD_BOOL=" + (d.is_bool ? "1" : "0") +
      " -DD_MIN=" + d.min + " -DD_MAX=" + d.max + " -DS_ST=" + s.storage + " -DD_ST=" + d.storage +
      " -DS_KIND=" + std::to_string(s.kind) + " -DD_KIND=" + std::to_string(d.kind) +
      " -DD_HALF=" + (is_half(dst.dtype) ? "1" : "0") + " -DS_WIDE=" +
      (src.dtype == DType::float64 || src.dtype == DType::int64 || src.dtype == DType::int32 ? "1"
                                                                                             : "0");
  const auto [ms, md] = merged(src, dst);
  KernelCall(dev.context->programs().get("convert", kConvertSource, options), "convert")
      .buffer_view(ms)
      .buffer_view(md)
      .arg(static_cast<cl_long>(dst.numel()))
      .launch(queue(dev), dst.numel());
}

void unary(OpenClDevice& dev, UnaryOp op, const StridedView& in, const StridedView& out) {
  const auto [mi, mo] = merged(in, out);
  KernelCall(program(dev, "elementwise", kElementwiseSource, out.dtype), "unary")
      .arg(static_cast<cl_int>(op))
      .buffer_view(mi)
      .buffer_view(mo)
      .arg(static_cast<cl_long>(out.numel()))
      .launch(queue(dev), out.numel());
}

void binary(OpenClDevice& dev, BinaryOp op, const StridedView& a, const StridedView& b,
            const StridedView& out) {
  const auto [ma, mb, mo] = merged(a, b, out);
  KernelCall(program(dev, "elementwise", kElementwiseSource, out.dtype), "binary")
      .arg(static_cast<cl_int>(op))
      .buffer_view(ma)
      .buffer_view(mb)
      .buffer_view(mo)
      .arg(static_cast<cl_long>(out.numel()))
      .launch(queue(dev), out.numel());
}

void ternary(OpenClDevice& dev, TernaryOp op, const StridedView& c, const StridedView& x,
             const StridedView& y, const StridedView& out) {
  const auto [mc, mx, my, mo] = merged(c, x, y, out);
  KernelCall(program(dev, "elementwise", kElementwiseSource, out.dtype), "ternary")
      .arg(static_cast<cl_int>(op))
      .buffer_view(mc)
      .buffer_view(mx)
      .buffer_view(my)
      .buffer_view(mo)
      .arg(static_cast<cl_long>(out.numel()))
      .launch(queue(dev), out.numel());
}

void gather(OpenClDevice& dev, const StridedView& src, const StridedView& index, int dim,
            const StridedView& out) {
  const GatherViews g = gather_views(src, out, dim);
  const auto [mo, mx, ms] = merged(out, index, g.start);
  KernelCall(program(dev, "index", kIndexSource, out.dtype), "gather")
      .buffer_view(ms)
      .buffer_view(mx)
      .buffer_view(mo)
      .arg(static_cast<cl_long>(g.dim_stride))
      .arg(static_cast<cl_long>(out.numel()))
      .launch(queue(dev), out.numel());
}

void scatter_add(OpenClDevice& dev, const StridedView& out, const StridedView& index, int dim,
                 const StridedView& src) {
  const ScatterFibers f = scatter_fibers(out, index, src, dim);
  const auto [mo, mx, ms] = merged(f.out, f.index, f.src);
  const std::int64_t fibers = f.out.numel();
  KernelCall(program(dev, "index", kIndexSource, out.dtype), "scatter_add")
      .buffer_view(mo)
      .buffer_view(mx)
      .buffer_view(ms)
      .arg(static_cast<cl_long>(f.length))
      .arg(static_cast<cl_long>(f.out_stride))
      .arg(static_cast<cl_long>(f.index_stride))
      .arg(static_cast<cl_long>(f.src_stride))
      .arg(static_cast<cl_long>(fibers))
      .launch(queue(dev), fibers);
}

// How a reduction splits each output's `count` elements (reduce.cl): `chunks` work items per
// output (1: one pass), each scanning every chunks-th block of `block` elements. Two passes
// when the outputs alone would leave the device idle (fewer than ~256 work items per
// compute unit), with at least kMinScan elements per work item so that the second pass
// stays small. Blocks of one element on GPUs (neighbouring work items read neighbouring
// elements), one block per work item elsewhere (a CPU thread reads one contiguous range).
struct ReductionSplit {
  std::int64_t chunks = 1, block = 1;
};
ReductionSplit reduction_split(const OpenClDevice& dev, std::int64_t outputs, std::int64_t count) {
  constexpr std::int64_t kMinScan = 4096;
  const std::int64_t fill = std::int64_t{256} * std::max(1, dev.properties.multiprocessor_count);
  if (outputs >= fill || count < 2 * kMinScan) return {1, count};
  const std::int64_t chunks = std::min((fill + outputs - 1) / outputs, count / kMinScan);
  if (dev.properties.kind == DeviceKind::gpu) return {chunks, 1};
  const std::int64_t block = (count + chunks - 1) / chunks;
  return {(count + block - 1) / block, block};  // no empty chunk
}

void reduce(OpenClDevice& dev, ReductionOp op, const StridedView& in, const StridedView& out) {
  const auto views = reduction_views(in, out);
  // The outputs and their starts walk out's shape together; the sub-space on its own.
  const auto [starts, outs] = merged(views.starts, out);
  const StridedView subspace = merged(views.subspace)[0];
  const cl_program p = program(dev, "reduce", kReduceSource, in.dtype);
  // argmax and the widening sums (OpenClBackend::reduces_into) write long (reduce_long).
  const bool to_long =
      op == ReductionOp::argmax || (out.dtype == DType::int64 && in.dtype != DType::int64);
  const std::int64_t outputs = out.numel(), count = subspace.numel();
  const auto [chunks, block] = reduction_split(dev, outputs, count);
  if (chunks == 1) {
    KernelCall call(p, to_long ? "reduce_long" : "reduce");
    call.arg(static_cast<cl_int>(op))
        .buffer_view(starts)
        .view(subspace)
        .arg(static_cast<cl_long>(count))
        .buffer_view(outs)
        .arg(static_cast<cl_long>(outputs))
        .launch(queue(dev), outputs);
    return;
  }
  // Partials (ACC values and long indices) from the device's pool, given back once both
  // passes are queued: the pool hands them out again only in queue order.
  const std::size_t acc_bytes = is_floating_point(in.dtype) && !dev.fp64 ? 4 : 8;
  const auto partials = static_cast<std::size_t>(outputs * chunks);
  const auto value = allocate_buffer(dev, partials * acc_bytes, "partials of a reduction");
  const auto index = allocate_buffer(dev, partials * 8, "partial indices of a reduction");
  KernelCall(p, "reduce_partial")
      .arg(static_cast<cl_int>(op))
      .buffer_view(starts)
      .view(subspace)
      .arg(static_cast<cl_long>(count))
      .arg(static_cast<cl_long>(chunks))
      .arg(static_cast<cl_long>(block))
      .mem(value.get())
      .mem(index.get())
      .arg(static_cast<cl_long>(outputs))
      .launch(queue(dev), static_cast<std::int64_t>(partials));
  KernelCall combine(p, to_long ? "reduce_long_combine" : "reduce_combine");
  combine.arg(static_cast<cl_int>(op)).mem(value.get()).mem(index.get());
  combine.arg(static_cast<cl_long>(chunks));
  if (!to_long) combine.arg(static_cast<cl_long>(count));
  combine.buffer_view(outs).arg(static_cast<cl_long>(outputs)).launch(queue(dev), outputs);
}

void random(OpenClDevice& dev, RandomDistribution dist, const StridedView& out, std::uint64_t seed,
            std::uint64_t offset) {
  KernelCall(program(dev, "random", kRandomSource, out.dtype),
             dist == RandomDistribution::uniform ? "uniform" : "normal")
      .buffer_view(out)
      .arg(static_cast<cl_long>(out.numel()))
      .arg(static_cast<cl_ulong>(seed))
      .arg(static_cast<cl_ulong>(offset))
      .launch(queue(dev), out.numel());
}

}  // namespace hetero::opencl::kernels
