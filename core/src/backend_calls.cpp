#include "backend_calls.hpp"

#include <initializer_list>

#include <hetero/internal_assert.hpp>

namespace hetero::detail {

Stream& Storage::stream() const { return calls::default_stream(*plugin, device.index()); }

namespace calls {
namespace {

Backend& backend(const LoadedPlugin& p) { return *p.backend; }

void check_views(const char* what, std::initializer_list<const StridedView*> views) {
  for (const StridedView* v : views)
    HETERO_INTERNAL_ASSERT(v->numel() > 0 && v->buffer != nullptr,
                           std::string(what) + " called with an empty view");
}

}  // namespace

int device_count(const LoadedPlugin& p) noexcept { return backend(p).device_count(); }
DeviceProperties device_properties(const LoadedPlugin& p, int device) {
  return backend(p).device_properties(device);
}
Capabilities capabilities(const LoadedPlugin& p, int device) {
  return backend(p).capabilities(device);
}
MemoryStats memory_stats(const LoadedPlugin& p, int device) {
  return backend(p).memory_stats(device);
}
void empty_cache(const LoadedPlugin& p, int device) { backend(p).empty_cache(device); }
std::string unavailable_reason(const LoadedPlugin& p) { return backend(p).unavailable_reason(); }

std::unique_ptr<Buffer> allocate(const LoadedPlugin& p, int device, std::size_t bytes) {
  HETERO_INTERNAL_ASSERT(bytes > 0, "allocate of 0 bytes");
  return backend(p).allocate(device, bytes);
}
std::unique_ptr<Buffer> allocate_pinned_host(const LoadedPlugin& p, std::size_t bytes) {
  HETERO_INTERNAL_ASSERT(bytes > 0, "allocate_pinned_host of 0 bytes");
  return backend(p).allocate_pinned_host(bytes);
}
Stream& default_stream(const LoadedPlugin& p, int device) {
  return backend(p).default_stream(device);
}

void copy_device_to_host(const Storage& src, std::size_t src_offset, void* dst, std::size_t bytes) {
  backend(*src.plugin).copy_device_to_host(*src.buffer, src_offset, dst, bytes, src.stream());
}
void copy_host_to_device(const void* src, const Storage& dst, std::size_t dst_offset,
                         std::size_t bytes) {
  backend(*dst.plugin).copy_host_to_device(src, *dst.buffer, dst_offset, bytes, dst.stream());
}
void copy_device_to_device(const Storage& src, std::size_t src_offset, const Storage& dst,
                           std::size_t dst_offset, std::size_t bytes) {
  HETERO_INTERNAL_ASSERT(src.plugin == dst.plugin, "device-to-device copy between two backends");
  backend(*dst.plugin)
      .copy_device_to_device(*src.buffer, src_offset, *dst.buffer, dst_offset, bytes, dst.stream());
}

bool supports(const Storage& on, OpRef op, DType dtype) noexcept {
  return on.plugin->support.supports(on.device.index(), op, dtype);
}

void check_supported(const Storage& on, OpRef op, DType dtype) {
  if (supports(on, op, dtype)) [[likely]]
    return;
  const LoadedPlugin& p = *on.plugin;
  std::string why = "backend '" + p.status.name + "' (plugin interface " +
                    p.status.interface_version + ") does not implement it";
  if (op_since(op) > p.interface_minor)
    why = "backend '" + p.status.name + "' was built for plugin interface " +
          p.status.interface_version + ", which predates this op";
  throw NotImplementedError(std::string(op_name(op)) + ": not implemented for '" +
                            std::string(dtype_name(dtype)) + "' on " + on.device.str() + " (" +
                            why + ")");
}

void fill(const Storage& on, const StridedView& out, Scalar value) {
  check_supported(on, OpFamily::fill, out.dtype);
  check_views("fill", {&out});
  backend(*on.plugin).fill(out, value, on.stream());
}

void cast(const Storage& on, const StridedView& src, const StridedView& dst) {
  check_supported(on, OpFamily::cast, src.dtype);
  check_supported(on, OpFamily::cast, dst.dtype);
  check_views("cast", {&src, &dst});
  backend(*on.plugin).cast(src, dst, on.stream());
}

void unary(const Storage& on, UnaryOp op, const StridedView& in, const StridedView& out) {
  check_supported(on, op, in.dtype);
  check_views("unary", {&in, &out});
  backend(*on.plugin).unary(op, in, out, on.stream());
}

void binary(const Storage& on, BinaryOp op, const StridedView& a, const StridedView& b,
            const StridedView& out) {
  check_supported(on, op, out.dtype);
  check_views("binary", {&a, &b, &out});
  backend(*on.plugin).binary(op, a, b, out, on.stream());
}

void reduce(const Storage& on, ReduceOp op, const StridedView& in, const StridedView& out) {
  check_supported(on, op, in.dtype);
  check_views("reduce", {&in, &out});
  backend(*on.plugin).reduce(op, in, out, on.stream());
}

void random(const Storage& on, RandomDistribution dist, const StridedView& out, std::uint64_t seed,
            std::uint64_t offset) {
  check_supported(on, dist, out.dtype);
  check_views("random", {&out});
  backend(*on.plugin).random(dist, out, seed, offset, on.stream());
}

void gemm(const Storage& on, const GemmArgs& args) {
  check_supported(on, OpFamily::gemm, args.dtype);
  HETERO_INTERNAL_ASSERT(args.m > 0 && args.n > 0 && args.k > 0 && args.batch > 0,
                         "gemm called with an empty product");
  backend(*on.plugin).gemm(args, on.stream());
}

}  // namespace calls
}  // namespace hetero::detail
