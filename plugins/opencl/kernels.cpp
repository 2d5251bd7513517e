#include "kernels.hpp"

#include <string>

#include <hetero/error.hpp>

#include "cl_sources.hpp"
#include "kernel_call.hpp"

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
  }
  throw DTypeError("opencl backend: unsupported dtype " + std::to_string(static_cast<int>(t)));
}

void require_fp64(const OpenClDevice& dev, DType t, const char* what) {
  if (t == DType::float64 && !dev.fp64)
    throw DTypeError(std::string("opencl backend: ") + what +
                     " in float64 needs cl_khr_fp64, which device '" + dev.properties.name +
                     "' lacks");
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

cl_program program(OpenClDevice& dev, const char* name, const char* source, DType t) {
  return dev.context->programs().get(name, source, type_options(dev, t));
}

cl_command_queue queue(OpenClDevice& dev) { return dev.stream.queue(); }

// The value fill() stores, as OpenCL's T.
template <class T>
void fill_as(OpenClDevice& dev, const StridedView& out, T value) {
  KernelCall(program(dev, "elementwise", kElementwiseSource, out.dtype), "fill")
      .buffer_view(out)
      .arg(static_cast<cl_long>(out.numel()))
      .arg(value)
      .launch(queue(dev), out.numel());
}

bool unary_supported(UnaryOp op, DType t) {
  if (is_floating_point(t)) return true;
  if (t == DType::int32 || t == DType::int64)
    return op == UnaryOp::neg || op == UnaryOp::abs || op == UnaryOp::relu;
  return false;
}

}  // namespace

void fill(OpenClDevice& dev, const StridedView& out, Scalar value) {
  require_fp64(dev, out.dtype, "fill");
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
  }
}

void copy_strided(OpenClDevice& dev, const StridedView& src, const StridedView& dst) {
  require_fp64(dev, dst.dtype, "copy");
  KernelCall(program(dev, "elementwise", kElementwiseSource, dst.dtype), "copy")
      .buffer_view(src)
      .buffer_view(dst)
      .arg(static_cast<cl_long>(dst.numel()))
      .launch(queue(dev), dst.numel());
}

void cast(OpenClDevice& dev, const StridedView& src, const StridedView& dst) {
  require_fp64(dev, src.dtype, "cast");
  require_fp64(dev, dst.dtype, "cast");
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
  KernelCall(dev.context->programs().get("convert", kConvertSource, options), "convert")
      .buffer_view(src)
      .buffer_view(dst)
      .arg(static_cast<cl_long>(dst.numel()))
      .launch(queue(dev), dst.numel());
}

void unary(OpenClDevice& dev, UnaryOp op, const StridedView& in, const StridedView& out) {
  require_fp64(dev, out.dtype, "unary");
  if (!unary_supported(op, out.dtype))
    throw DTypeError("opencl backend: unary op " + std::to_string(static_cast<int>(op)) +
                     " does not support dtype " + std::string(dtype_name(out.dtype)));
  KernelCall(program(dev, "elementwise", kElementwiseSource, out.dtype), "unary")
      .arg(static_cast<cl_int>(op))
      .buffer_view(in)
      .buffer_view(out)
      .arg(static_cast<cl_long>(out.numel()))
      .launch(queue(dev), out.numel());
}

void binary(OpenClDevice& dev, BinaryOp op, const StridedView& a, const StridedView& b,
            const StridedView& out) {
  require_fp64(dev, out.dtype, "binary");
  if (out.dtype == DType::bool_)
    throw DTypeError("opencl backend: binary op " + std::to_string(static_cast<int>(op)) +
                     " does not support dtype bool");
  KernelCall(program(dev, "elementwise", kElementwiseSource, out.dtype), "binary")
      .arg(static_cast<cl_int>(op))
      .buffer_view(a)
      .buffer_view(b)
      .buffer_view(out)
      .arg(static_cast<cl_long>(out.numel()))
      .launch(queue(dev), out.numel());
}

void reduce(OpenClDevice& dev, ReduceOp op, const StridedView& in, const StridedView& out) {
  require_fp64(dev, in.dtype, "reduce");
  const auto [starts, subspace] = reduction_views(in, out);
  const cl_program p = program(dev, "reduce", kReduceSource, in.dtype);
  const bool argmax = op == ReduceOp::argmax;
  KernelCall call(p, argmax ? "argmax" : "reduce");
  if (!argmax) call.arg(static_cast<cl_int>(op));
  call.buffer_view(starts)
      .view(subspace)
      .arg(static_cast<cl_long>(subspace.numel()))
      .buffer_view(out)
      .arg(static_cast<cl_long>(out.numel()))
      .launch(queue(dev), out.numel());
}

void random(OpenClDevice& dev, RandomDistribution dist, const StridedView& out, std::uint64_t seed,
            std::uint64_t offset) {
  require_fp64(dev, out.dtype, "random");
  if (is_half(out.dtype))  // the core draws float32 and casts (Backend::random)
    throw DTypeError("opencl backend: random() fills float32 or float64, got " +
                     std::string(dtype_name(out.dtype)));
  if (dist == RandomDistribution::normal && !dev.fp64)
    throw DTypeError("opencl backend: normal random numbers need cl_khr_fp64, which device '" +
                     dev.properties.name + "' lacks");
  KernelCall(program(dev, "random", kRandomSource, out.dtype),
             dist == RandomDistribution::uniform ? "uniform" : "normal")
      .buffer_view(out)
      .arg(static_cast<cl_long>(out.numel()))
      .arg(static_cast<cl_ulong>(seed))
      .arg(static_cast<cl_ulong>(offset))
      .launch(queue(dev), out.numel());
}

}  // namespace hetero::opencl::kernels
