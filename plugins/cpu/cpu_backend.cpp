#include "cpu_backend.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "blas.hpp"
#include "kernels.hpp"

namespace hetero::cpu {
namespace {

int env_int(const char* name, int fallback, int lo, int hi) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (*end != '\0' || n < lo || n > hi)
    throw Error(std::string(name) + "='" + v + "' is not an integer in [" + std::to_string(lo) + ", " +
                std::to_string(hi) + "]");
  return static_cast<int>(n);
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
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) : 0;
}

}  // namespace

CpuBackend::CpuBackend() {
  const int devices = env_int("HETERO_CPU_DEVICES", 1, 1, 64);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int threads = env_int("HETERO_CPU_THREADS", cores, 1, 4096);
  set_blas_threads(threads);
  total_memory_ = pages_bytes(_SC_PHYS_PAGES);
  pool_ = std::make_unique<ThreadPool>(threads);
  set_kernel_pool(pool_.get());
  for (int i = 0; i < devices; ++i) {
    streams_.push_back(std::make_unique<CpuStream>(i));
    counters_.push_back(std::make_shared<MemoryCounter>());
  }
}

CpuBackend::~CpuBackend() {
  if (kernel_pool() == pool_.get()) set_kernel_pool(nullptr);
}

DeviceProperties CpuBackend::device_properties(int device) const {
  DeviceProperties p;
  static const std::string model = cpu_model();
  p.name = model;
  if (device_count() > 1)
    p.name += " (virtual device " + std::to_string(device) + " of " + std::to_string(device_count()) + ")";
  p.kind = DeviceKind::cpu;
  p.total_memory = total_memory_;
  p.free_memory = pages_bytes(_SC_AVPHYS_PAGES);
  p.multiprocessor_count = pool_->size();
  return p;
}

Capabilities CpuBackend::capabilities(int) const {
  Capabilities c;
  c.async_copy = false;
  c.pinned_memory = false;
  c.peer_copy = true;  // all virtual devices share the host's address space
  c.events = true;
  c.max_allocation = total_memory_;
  return c;
}

MemoryStats CpuBackend::memory_stats(int device) const {
  return counters_.at(static_cast<std::size_t>(device))->stats();
}

std::unique_ptr<Buffer> CpuBackend::allocate(int device, std::size_t bytes) {
  const std::size_t free_bytes = pages_bytes(_SC_AVPHYS_PAGES);
  auto oom = [&] {
    return OutOfMemoryError("out of memory on cpu:" + std::to_string(device) + ": tried to allocate " +
                            std::to_string(bytes) + " bytes; " + std::to_string(free_bytes) +
                            " bytes free of " + std::to_string(total_memory_) + " total");
  };
  // Larger than the machine: refuse before asking malloc (overcommit would accept some).
  if (bytes > total_memory_) throw oom();
  const std::size_t rounded = ((bytes == 0 ? 1 : bytes) + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, rounded);
  if (!p) throw oom();
  return std::make_unique<CpuBuffer>(p, bytes, device, counters_.at(static_cast<std::size_t>(device)));
}

void CpuBackend::copy_host_to_device(const void* src, Buffer& dst, std::size_t dst_offset, std::size_t bytes,
                                     Stream&) {
  if (bytes) std::memcpy(static_cast<char*>(dst.handle()) + dst_offset, src, bytes);
}

void CpuBackend::copy_device_to_host(const Buffer& src, std::size_t src_offset, void* dst, std::size_t bytes,
                                     Stream&) {
  if (bytes) std::memcpy(dst, static_cast<const char*>(src.handle()) + src_offset, bytes);
}

void CpuBackend::copy_device_to_device(const Buffer& src, std::size_t src_offset, Buffer& dst,
                                       std::size_t dst_offset, std::size_t bytes, Stream&) {
  if (bytes)
    std::memmove(static_cast<char*>(dst.handle()) + dst_offset,
                 static_cast<const char*>(src.handle()) + src_offset, bytes);
}

void CpuBackend::fill(const StridedView& out, Scalar value, Stream&) { kernels::fill(out, value); }
void CpuBackend::copy_strided(const StridedView& src, const StridedView& dst, Stream&) {
  kernels::convert(src, dst);
}
void CpuBackend::cast(const StridedView& src, const StridedView& dst, Stream&) { kernels::convert(src, dst); }
void CpuBackend::unary(UnaryOp op, const StridedView& in, const StridedView& out, Stream&) {
  kernels::unary(op, in, out);
}
void CpuBackend::binary(BinaryOp op, const StridedView& a, const StridedView& b, const StridedView& out,
                        Stream&) {
  kernels::binary(op, a, b, out);
}
void CpuBackend::reduce(ReduceOp op, const StridedView& in, const StridedView& out, Stream&) {
  kernels::reduce(op, in, out);
}
void CpuBackend::random(RandomDistribution dist, const StridedView& out, std::uint64_t seed,
                        std::uint64_t offset, Stream&) {
  kernels::random(dist, out, seed, offset);
}
void CpuBackend::gemm(const GemmArgs& args, Stream&) { cpu::gemm(args); }

}  // namespace hetero::cpu
