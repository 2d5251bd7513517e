// SPDX-License-Identifier: Apache-2.0
#include "cpu_backend.hpp"
#include <hetero/config.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>

#include <hetero/host_cores.hpp>
#include <hetero/internal_assert.hpp>
#include <hetero/sdk/memory_policy.hpp>

#include "kernels.hpp"
#include "onednn_conv.hpp"
#include "openblas_gemm.hpp"
#include "process_limits.hpp"
#include "queued_kernel.hpp"

namespace hetero::cpu {
namespace {

// A count from the configuration table (config.hpp: the range is the table's); Error naming
// the variable and its range when malformed.
int env_int(const char* name, int fallback) {
  return static_cast<int>(config::integer(name, fallback));
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos && colon + 2 <= line.size()) return line.substr(colon + 2);
    }
  return "host CPU";
}

std::size_t pages_bytes(int which) {
  const long pages = sysconf(which), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page)
                               : 0;
}

// Note [Finish queued work at exit]: the core never destroys backends at process exit
// (Note [Exit without teardown], core/src/registry.cpp), so nothing would join the device
// workers, and queued work could still be running OpenBLAS while its library destructor
// runs. This object's destructor, run by exit() before any library destructor, finishes
// the queued work of every live backend and joins its workers; later work (a buffer freed
// by another static destructor) then runs on the caller. When the plugin is unloaded
// while the program runs, every backend is gone first and the list is empty.
class LiveBackends {
 public:
  void add(CpuBackend* b) {
    std::lock_guard lock(mutex_);
    live_.push_back(b);
  }
  void remove(CpuBackend* b) {
    std::lock_guard lock(mutex_);
    std::erase(live_, b);
  }
  ~LiveBackends() {
    std::lock_guard lock(mutex_);
    for (CpuBackend* b : live_) b->shutdown_workers();
  }

 private:
  std::mutex mutex_;
  std::vector<CpuBackend*> live_;
};
LiveBackends g_live_backends;

}  // namespace

CpuBackend::CpuBackend() {
  const int devices = env_int("HETERO_CPU_DEVICES", 1);
  // The cores in this process's affinity mask, as libgomp's (and so torch's) default: under
  // taskset or a container's cpuset, one kernel thread per usable core, not per host core.
  const int threads = env_int("HETERO_CPU_THREADS", usable_cores());
  const int per_device = std::max(1, threads / devices);
  const int inline_limit = env_int("HETERO_CPU_INLINE_LIMIT", 1 << 20);
  total_memory_ = pages_bytes(_SC_PHYS_PAGES);
  const bool pooling = memory_pool_enabled();
  // The virtual devices share the host's memory: each caches a share of the limit.
  const std::size_t cache_limit = memory_cache_limit(total_memory_ / devices);
  for (int i = 0; i < devices; ++i)
    devices_.push_back(
        std::make_shared<CpuDevice>(i, per_device, inline_limit, pooling, cache_limit));
  g_live_backends.add(this);
}

CpuBackend::~CpuBackend() {
  g_live_backends.remove(this);
  shutdown_workers();
}

void CpuBackend::shutdown_workers() noexcept {
  // Buffers that outlive the backend free their blocks on the caller's thread.
  for (auto& d : devices_) d->queue().shutdown();
}

DeviceProperties CpuBackend::device_properties(int device) const {
  DeviceProperties p;
  static const std::string model = cpu_model();
  p.name = model;
  if (device_count() > 1)
    p.name += " (virtual device " + std::to_string(device) + " of " +
              std::to_string(device_count()) + ")";
  p.kind = DeviceKind::cpu;
  p.total_memory = total_memory_;
  p.free_memory = pages_bytes(_SC_AVPHYS_PAGES);
  p.multiprocessor_count = cpu_device(device).threads();
  return p;
}

Capabilities CpuBackend::capabilities(int) const {
  Capabilities c;
  c.async_copy = true;  // copies and kernels are queued on the device's worker
  c.pinned_memory = false;
  c.peer_copy = true;  // all virtual devices share the host's address space
  c.events = true;
  c.max_allocation = total_memory_;
  return c;
}

MemoryStats CpuBackend::memory_stats(int device) const { return cpu_device(device).memory_stats(); }

void CpuBackend::empty_cache(int device) {
  cpu_device(device).memory().empty_cache();
  // And the blocks oneDNN's convolutions keep per thread (not per device: every device's).
  kernels::onednn_release_kept_buffers();
}

std::unique_ptr<Buffer> CpuBackend::adopt(int device, void* handle, std::size_t bytes,
                                          std::function<void()> release) {
  cpu_device(device);  // the index was checked by the core; asserts otherwise
  return std::make_unique<AdoptedBuffer>(handle, bytes, devices_[static_cast<std::size_t>(device)],
                                         std::move(release));
}

std::unique_ptr<Event> CpuBackend::record_timestamp(Stream& stream) {
  auto* cpu = dynamic_cast<CpuStream*>(&stream);
  if (cpu == nullptr) throw Error("record_timestamp: the stream is not one of the cpu backend");
  return cpu->record_timestamp();
}

double CpuBackend::elapsed_seconds(Event& start, Event& end) {
  const auto stamp_of = [](Event& e, const char* which) {
    auto* cpu = dynamic_cast<CpuEvent*>(&e);
    if (cpu == nullptr || cpu->stamp() == nullptr)
      throw Error(std::string("elapsed_seconds: the ") + which +
                  " event is not a timestamp of the cpu backend (record_timestamp)");
    if (!cpu->query())
      throw Error(std::string("elapsed_seconds: the ") + which +
                  " timestamp is not complete yet (synchronize it first)");
    return std::make_pair(cpu->device().get(), cpu->stamp()->load(std::memory_order_acquire));
  };
  const auto [start_device, t0] = stamp_of(start, "start");
  const auto [end_device, t1] = stamp_of(end, "end");
  if (start_device != end_device)
    throw Error("elapsed_seconds: the two timestamps are of different cpu devices");
  return static_cast<double>(t1 - t0) * 1e-9;
}

std::unique_ptr<Buffer> CpuBackend::allocate(int device, std::size_t bytes) {
  CpuDevice& d = cpu_device(device);
  auto oom = [&] {
    return out_of_memory_error({"cpu:" + std::to_string(device), bytes,
                                pages_bytes(_SC_AVPHYS_PAGES), total_memory_,
                                d.memory_stats().reserved, "memory", process_memory_limits()});
  };
  // Larger than the machine: refuse before asking malloc (overcommit would accept some).
  if (bytes > total_memory_) throw oom();
  // Note [Out-of-memory policy]: the cached blocks' release is queued behind the device's
  // work, so let that run before the second try.
  auto release_cached = [&] {
    d.memory().empty_cache();
    kernels::onednn_release_kept_buffers();
    try {
      d.queue().synchronize();
    } catch (...) {
      // A failure of earlier work is reported by the next synchronize, not here.
    }
  };
  const CachingAllocator::Block block =
      allocate_with_retry([&] { return d.memory().allocate(bytes); }, release_cached);
  if (!block) throw oom();
  return std::make_unique<CpuBuffer>(block, bytes, devices_[static_cast<std::size_t>(device)]);
}

// --- copies: byte ranges, queued --------------------------------------------------
// Pointers are taken now: the Buffer objects may be gone when the copy runs, their
// memory is not (Note [Stream-ordered reuse]).

void CpuBackend::copy_host_to_device(const void* src, Buffer& dst, std::size_t dst_offset,
                                     std::size_t bytes, Stream& stream) {
  char* to = static_cast<char*>(dst.handle()) + dst_offset;
  on(stream).run_sized(static_cast<std::int64_t>(bytes / 4),
                       [src, to, bytes] { std::memcpy(to, src, bytes); });
}

void CpuBackend::copy_device_to_host(const Buffer& src, std::size_t src_offset, void* dst,
                                     std::size_t bytes, Stream& stream) {
  const char* from = static_cast<const char*>(src.handle()) + src_offset;
  const KernelName name{"copy to host", std::nullopt, on(stream).index()};
  on(stream).run_sized(static_cast<std::int64_t>(bytes / 4),
                       [from, dst, bytes, name, id = buffer_id(&src)] {
                         // Writes host memory, which no poison mark follows.
                         run_kernel(
                             name, [id] { return std::array{id}; }, [] { return std::uint64_t{0}; },
                             [&] { std::memcpy(dst, from, bytes); });
                       });
}

void CpuBackend::copy_device_to_device(const Buffer& src, std::size_t src_offset, Buffer& dst,
                                       std::size_t dst_offset, std::size_t bytes, Stream& stream) {
  const char* from = static_cast<const char*>(src.handle()) + src_offset;
  char* to = static_cast<char*>(dst.handle()) + dst_offset;
  const KernelName name{"copy", std::nullopt, on(stream).index()};
  on(stream).run_sized(static_cast<std::int64_t>(bytes / 4),
                       [from, to, bytes, name, in = buffer_id(&src), out = buffer_id(&dst)] {
                         run_kernel(
                             name, [in] { return std::array{in}; }, [out] { return out; },
                             [&] { std::memmove(to, from, bytes); });
                       });
}

// --- kernels ----------------------------------------------------------------------

void CpuBackend::fill(const StridedView& out, Scalar value, Stream& stream) {
  submit_views(
      on(stream), "fill", out.numel(), [value](const StridedView& o) { kernels::fill(o, value); },
      out);
}
void CpuBackend::cast(const StridedView& src, const StridedView& dst, Stream& stream) {
  submit_views(
      on(stream), "cast", dst.numel(),
      [](const StridedView& s, const StridedView& d) { kernels::convert(s, d); }, src, dst);
}
void CpuBackend::unary(UnaryOp op, const StridedView& in, const StridedView& out, Stream& stream) {
  submit_views(
      on(stream), op_name(op), out.numel(),
      [op](const StridedView& i, const StridedView& o) { kernels::unary(op, i, o); }, in, out);
}
void CpuBackend::binary(BinaryOp op, const StridedView& a, const StridedView& b,
                        const StridedView& out, Stream& stream) {
  submit_views(
      on(stream), op_name(op), out.numel(),
      [op](const StridedView& x, const StridedView& y, const StridedView& o) {
        kernels::binary(op, x, y, o);
      },
      a, b, out);
}
void CpuBackend::ternary(TernaryOp op, const StridedView& c, const StridedView& x,
                         const StridedView& y, const StridedView& out, Stream& stream) {
  submit_views(
      on(stream), op_name(op), out.numel(),
      [op](const StridedView& w, const StridedView& a, const StridedView& b, const StridedView& o) {
        kernels::ternary(op, w, a, b, o);
      },
      c, x, y, out);
}
void CpuBackend::reduce(ReductionOp op, const StridedView& in, const StridedView& out,
                        Stream& stream) {
  submit_views(
      on(stream), op_name(op), in.numel(),
      [op](const StridedView& i, const StridedView& o) { kernels::reduce(op, i, o); }, in, out);
}
void CpuBackend::softmax(SoftmaxOp op, const StridedView& in, const StridedView& out, int dim,
                         Stream& stream) {
  submit_views(
      on(stream), op_name(op), in.numel(),
      [op, dim](const StridedView& i, const StridedView& o) { kernels::softmax(op, i, o, dim); },
      in, out);
}
namespace {
// A convolution's cost in element units, as the GEMM's: multiply-adds / 32.
std::int64_t conv_cost(const Conv2dArgs& a) noexcept {
  return a.n * a.o * a.oh * a.ow * (a.c / a.groups) * a.kh * a.kw / 32;
}
// Convolutions may call oneDNN, whose OpenMP team belongs to the calling thread, and whose
// objects exit() destroys: they run on the thread that submits them (Note [Work that runs on
// the caller], work_queue.hpp). Without oneDNN they run on the kernel pool, from anywhere.
WorkQueue::Runs conv_runs() noexcept {
  return kernels::onednn_in_use() ? WorkQueue::Runs::on_caller : WorkQueue::Runs::anywhere;
}
}  // namespace
void CpuBackend::conv2d(Conv2dOp op, const Conv2dArgs& args, const StridedView& a,
                        const StridedView& b, const StridedView& out, Stream& stream) {
  const std::int64_t cost = conv_cost(args);
  submit_views_where<1>(
      on(stream), op_name(op), cost, conv_runs(),
      [op, args](const StridedView& x, const StridedView& y, const StridedView& o) {
        kernels::conv2d(op, args, x, y, o);
      },
      a, b, out);
}
void CpuBackend::conv3d(Conv3dOp op, const Conv3dArgs& args, const StridedView& a,
                        const StridedView& b, const StridedView& out, Stream& stream) {
  // Multiply-adds / 32, as conv_cost. oneDNN runs on the caller (conv_runs(): supports()
  // offers conv3d only where oneDNN is in use).
  const std::int64_t cost = args.n * args.o * args.od * args.oh * args.ow * (args.c / args.groups) *
                            args.kd * args.kh * args.kw / 32;
  submit_views_where<1>(
      on(stream), op_name(op), cost, conv_runs(),
      [op, args](const StridedView& x, const StridedView& y, const StridedView& o) {
        kernels::conv3d(op, args, x, y, o);
      },
      a, b, out);
}
void CpuBackend::conv2d_bias(const Conv2dArgs& args, const StridedView& input,
                             const StridedView& weight, const StridedView& bias,
                             const StridedView& out, Stream& stream) {
  const std::int64_t cost = conv_cost(args);
  submit_views_where<1>(
      on(stream), op_name(Conv2dOp::forward_bias), cost, conv_runs(),
      [args](const StridedView& x, const StridedView& w, const StridedView& b,
             const StridedView& o) { kernels::conv2d_bias(args, x, w, b, o); },
      input, weight, bias, out);
}
void CpuBackend::batch_norm(BatchNormOp op, const BatchNormArgs& args, const BatchNormViews& v,
                            Stream& stream) {
  const std::int64_t cost = args.n * args.c * args.spatial * 3;  // passes over the data
  if (op == BatchNormOp::forward_training) {
    submit_views_writing<2>(
        on(stream), op_name(op), cost,
        [op, args](const StridedView& x, const StridedView& wb, const StridedView& y,
                   const StridedView& stats) {
          BatchNormViews views;
          views.input = x;
          views.weight_bias = wb;
          views.output = y;
          views.stats = stats;
          kernels::batch_norm(op, args, views);
        },
        v.input, v.weight_bias, v.output, v.stats);
    return;
  }
  submit_views_writing<2>(
      on(stream), op_name(op), cost,
      [op, args](const StridedView& x, const StridedView& dy, const StridedView& wb,
                 const StridedView& stats, const StridedView& dwb, const StridedView& dx) {
        const BatchNormViews views{x, dy, wb, stats, dx, dwb};
        kernels::batch_norm(op, args, views);
      },
      v.input, v.grad_output, v.weight_bias, v.stats, v.grad_weight_bias, v.output);
}
void CpuBackend::pool2d(Pool2dOp op, const Pool2dArgs& args, const Pool2dViews& v, Stream& stream) {
  const std::int64_t cost = args.n * args.c * args.oh * args.ow * args.kh * args.kw;
  // Each kernel gets (what it reads..., what it writes); the last `a` of the backward ops is
  // dL/dx, their first dL/dy.
  const auto run = [op, args](const StridedView& a, const StridedView& b, const StridedView& c) {
    switch (op) {
      case Pool2dOp::max_forward:  // (x, indices, y)
        return kernels::pool2d(op, args, {a, c, b, {}});
      case Pool2dOp::max_backward:  // (dy, indices, dx)
        return kernels::pool2d(op, args, {c, a, b, {}});
      case Pool2dOp::avg_forward:  // (x, divisor, y)
        return kernels::pool2d(op, args, {a, c, {}, b});
      case Pool2dOp::avg_backward:  // (dy, divisor, dx)
        return kernels::pool2d(op, args, {c, a, {}, b});
    }
  };
  switch (op) {
    case Pool2dOp::max_forward:
      return submit_views_writing<2>(on(stream), op_name(op), cost, run, v.x, v.indices, v.y);
    case Pool2dOp::max_backward:
      return submit_views(on(stream), op_name(op), cost, run, v.y, v.indices, v.x);
    case Pool2dOp::avg_forward:
      return submit_views(on(stream), op_name(op), cost, run, v.x, v.divisor, v.y);
    case Pool2dOp::avg_backward:
      return submit_views(on(stream), op_name(op), cost, run, v.y, v.divisor, v.x);
  }
}
void CpuBackend::gather(const StridedView& src, const StridedView& index, int dim,
                        const StridedView& out, Stream& stream) {
  submit_views(
      on(stream), "gather", out.numel(),
      [dim](const StridedView& s, const StridedView& i, const StridedView& o) {
        kernels::gather(s, i, dim, o);
      },
      src, index, out);
}
void CpuBackend::scatter_add(const StridedView& out, const StridedView& index, int dim,
                             const StridedView& src, Stream& stream) {
  submit_views(
      on(stream), "scatter_add", src.numel(),
      [dim](const StridedView& o, const StridedView& i, const StridedView& s) {
        kernels::scatter_add(o, i, dim, s);
      },
      out, index, src);
}
bool CpuBackend::supports(OpRef op, DType dtype, int device) const {
  if (op.family == OpFamily::softmax) return op_known(op) && is_floating_point(dtype);
  if (op.family == OpFamily::conv2d)  // the 16-bit dtypes: bfloat16 on oneDNN, else in float32
    return op_known(op) && is_floating_point(dtype);
  // 3-d convolution: float32 on oneDNN's native primitives; elsewhere (bfloat16, whose bias
  // the core would add after the rounding; float64; HETERO_CPU_ONEDNN=0) the core composes
  // it from conv2d.
  if (op.family == OpFamily::conv3d)
    return op_known(op) && dtype == DType::float32 && kernels::onednn_in_use();
  if (op.family == OpFamily::batch_norm || op.family == OpFamily::pool2d)
    return op_known(op) && (dtype == DType::float32 || dtype == DType::float64);
  return Backend::supports(op, dtype, device);
}
bool CpuBackend::reduces_into(ReductionOp op, DType in_dtype, DType out_dtype, int) const {
  if (out_dtype == DType::float32)  // torch.sum / mean(dtype=float32) of a 16-bit float
    return (op == ReductionOp::sum || op == ReductionOp::mean) &&
           (in_dtype == DType::float16 || in_dtype == DType::bfloat16);
  return op == ReductionOp::sum && out_dtype == DType::int64 &&
         (in_dtype == DType::int8 || in_dtype == DType::uint8 || in_dtype == DType::int32);
}
void CpuBackend::random(RandomDistribution dist, const StridedView& out, std::uint64_t seed,
                        std::uint64_t offset, Stream& stream) {
  submit_views(
      on(stream), "random", out.numel(),
      [dist, seed, offset](const StridedView& o) { kernels::random(dist, o, seed, offset); }, out);
}
void CpuBackend::gemm(const GemmArgs& args, Stream& stream) {
  auto run = [](const GemmArgs& a) { cpu::gemm(a); };
  // Cost in elementwise-element units: OpenBLAS does about 32 multiply-adds in the time
  // a strided loop takes per element, so a 100x100 product (31250) still runs inline.
  const std::int64_t cost = args.m * args.n * std::max<std::int64_t>(args.k, 1) * args.batch / 32;
  const KernelName name{"matmul", args.dtype, on(stream).index()};
  on(stream).queue().submit(
      cost, [&] { run_gemm_kernel(name, run, args); },
      [&] { return std::make_unique<GemmTask<decltype(run)>>(name, run, args); });
}

CpuDevice& CpuBackend::cpu_device(int device) const {
  // The core checks device indices before dispatch (backend.hpp).
  HETERO_INTERNAL_ASSERT(device >= 0 && static_cast<std::size_t>(device) < devices_.size(),
                         "cpu backend: device index " + std::to_string(device) + " of " +
                             std::to_string(devices_.size()));
  return *devices_[static_cast<std::size_t>(device)];
}

Stream& CpuBackend::default_stream(int device) { return cpu_device(device).stream(); }
CpuDevice& CpuBackend::on(Stream& stream) { return static_cast<CpuStream&>(stream).cpu_device(); }

}  // namespace hetero::cpu
