// SPDX-License-Identifier: Apache-2.0
#include "plugin_library.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <vector>

#include <boost/dll/shared_library.hpp>

#include <hetero/sdk/plugin.hpp>

namespace hetero::detail {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& reason) {
  throw PluginLoadError("cannot load plugin '" + path + "': " + reason);
}

#if defined(__x86_64__)
constexpr std::uint16_t kHostMachine = 62;  // EM_X86_64
#elif defined(__aarch64__)
constexpr std::uint16_t kHostMachine = 183;  // EM_AARCH64
#else
constexpr std::uint16_t kHostMachine = 0;  // not checked
#endif

// Little-endian fields of the ELF64 file (the only kind the checks below accept).
std::uint64_t read_le(const unsigned char* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// An open file descriptor, closed on every path.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Reads exactly `n` bytes at `offset`; false when the file is shorter.
bool read_at(int fd, std::uint64_t offset, unsigned char* out, std::size_t n) {
  while (n > 0) {
    const ssize_t got = ::pread(fd, out, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    out += got;
    n -= static_cast<std::size_t>(got);
    offset += static_cast<std::uint64_t>(got);
  }
  return true;
}

// Checks the file before dlopen maps it: a regular file (a FIFO or a device would block or
// never end), an ELF64 shared object of this machine, and every table and loadable segment
// the headers name inside the file. A truncated library otherwise maps pages past the end
// of the file, and the dynamic loader dies of SIGBUS reading them (issue #25); glibc also
// reports a foreign-architecture library as "No such file or directory".
void check_elf_file(const std::string& path) {
  const Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0) fail(path, std::string("cannot open file: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) fail(path, std::string("cannot stat file: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) fail(path, "not a regular file");
  // Whose code this is (as ld.so's secure mode and OpenSSL's module loader): owned by root
  // or by this user, and not writable by every user.
  if (st.st_uid != 0 && st.st_uid != ::geteuid())
    fail(path, "owned by uid " + std::to_string(st.st_uid) +
                   ", neither root nor this user (chown it to load it)");
  if ((st.st_mode & S_IWOTH) != 0) fail(path, "writable by every user (chmod o-w to load it)");
  const auto size = static_cast<std::uint64_t>(st.st_size);
  std::array<unsigned char, 64> h{};
  if (!read_at(f.fd, 0, h.data(), h.size()) || std::memcmp(h.data(),
                                                           "\x7f"
                                                           "ELF",
                                                           4) != 0)
    fail(path, "not a shared library (no ELF header)");
  if (h[4] != 2) fail(path, "not a 64-bit ELF file");
  if (h[5] != 1) fail(path, "not a little-endian ELF file");
  const auto type = read_le(&h[16], 2);
  if (type != 3)
    fail(path, "ELF file is not a shared object (e_type " + std::to_string(type) + ")");
  const auto machine = read_le(&h[18], 2);
  if (kHostMachine != 0 && machine != kHostMachine)
    fail(path, "built for another architecture (ELF machine " + std::to_string(machine) +
                   ", this process is " + std::to_string(kHostMachine) + ")");
  const std::uint64_t phoff = read_le(&h[32], 8), shoff = read_le(&h[40], 8);
  const std::uint64_t phentsize = read_le(&h[54], 2), phnum = read_le(&h[56], 2);
  const std::uint64_t shentsize = read_le(&h[58], 2), shnum = read_le(&h[60], 2);
  const auto truncated = [&](const std::string& what, std::uint64_t end) {
    fail(path, "truncated or corrupt ELF file: " + what + " ends at byte " + std::to_string(end) +
                   ", the file has " + std::to_string(size) + " bytes");
  };
  // Products of 16-bit counts and sizes: no overflow; offsets are checked before adding.
  if (phentsize < 56 || phnum == 0) fail(path, "ELF file has no program headers");
  if (phoff > size || phnum * phentsize > size - phoff)
    truncated("the program header table", phoff + phnum * phentsize);
  if (shoff != 0 && (shoff > size || std::max<std::uint64_t>(shnum, 1) * shentsize > size - shoff))
    truncated("the section header table", shoff + std::max<std::uint64_t>(shnum, 1) * shentsize);
  std::vector<unsigned char> ph(phnum * phentsize);
  if (!read_at(f.fd, phoff, ph.data(), ph.size())) truncated("the program header table", phoff);
  for (std::uint64_t i = 0; i < phnum; ++i) {
    const unsigned char* e = ph.data() + i * phentsize;
    const std::uint64_t offset = read_le(e + 8, 8), filesz = read_le(e + 32, 8);
    if (read_le(e, 4) == 1 /* PT_LOAD */ && (offset > size || filesz > size - offset))
      truncated("loadable segment " + std::to_string(i), offset + filesz);
  }
}

// Runs one call into a plugin: every exception it throws, standard or not, becomes a
// PluginLoadError naming the plugin and `what` was being asked (issue #25: a throwing
// name() must not escape untyped or stop discovery).
template <class F>
auto guarded(const std::string& path, const char* what, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const PluginLoadError&) {
    throw;
  } catch (const std::exception& e) {
    fail(path, std::string(what) + " failed: " + e.what());
  } catch (...) {
    fail(path, std::string(what) + " failed: a non-standard exception");
  }
}

std::string or_empty(const char* s) { return s ? std::string(s) : std::string(); }

}  // namespace

std::atomic<int> retired_plugins_alive{0};

LoadedPlugin::~LoadedPlugin() {
  backend.reset();
  if (retired.load(std::memory_order_acquire))
    retired_plugins_alive.fetch_sub(1, std::memory_order_acq_rel);
}

std::shared_ptr<boost::dll::shared_library> open_plugin(const std::string& path,
                                                        BackendStatus& status) {
  status.path = path;
  check_elf_file(path);
  auto lib = std::make_shared<boost::dll::shared_library>();
  try {
    // rtld_now: an unresolved symbol fails here, not as exit 127 at its first call.
    lib->load(path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    // For a missing dependency the loader names the dependency, not the plugin.
    fail(path, e.what());
  }
  if (!lib->has(HETERO_PLUGIN_INFO_SYMBOL))
    fail(path, "no entry point '" HETERO_PLUGIN_INFO_SYMBOL "' (not a hetero plugin)");
  const auto info_fn = lib->get<const HeteroPluginInfo*()>(HETERO_PLUGIN_INFO_SYMBOL);
  const HeteroPluginInfo* info =
      guarded(path, "reading its info record", [&] { return info_fn(); });
  if (!info) fail(path, "info record is null");
  if (info->struct_size < 3 * sizeof(std::uint32_t))
    fail(path, "info record too small (" + std::to_string(info->struct_size) + " bytes)");
  status.interface_version =
      std::to_string(info->interface_major) + "." + std::to_string(info->interface_minor);
  status.interface_minor = static_cast<int>(info->interface_minor);
  const std::string core_version = std::to_string(HETERO_INTERFACE_VERSION_MAJOR) + "." +
                                   std::to_string(HETERO_INTERFACE_VERSION_MINOR);
  if (info->interface_major != HETERO_INTERFACE_VERSION_MAJOR ||
      info->interface_minor > HETERO_INTERFACE_VERSION_MINOR)
    fail(path, "interface version mismatch: plugin " + status.interface_version + ", core " +
                   core_version);
  if (info->struct_size < sizeof(HeteroPluginInfo))
    fail(path, "info record too small for interface " + core_version);
  status.name = or_empty(info->name);
  status.version = or_empty(info->version);
  status.compiler = or_empty(info->compiler);
  status.vendor_libraries = or_empty(info->vendor_libraries);
  if (status.name.empty()) fail(path, "info record has an empty backend name");
  const std::string stdlib = or_empty(info->cxx_stdlib);
  if (stdlib != HETERO_CXX_STDLIB_ID)
    fail(path, "C++ standard library mismatch: plugin '" + stdlib + "' (" + status.compiler +
                   "), core '" HETERO_CXX_STDLIB_ID "' (" HETERO_COMPILER_ID ")");
  return lib;
}

std::shared_ptr<LoadedPlugin> create_backend(std::shared_ptr<boost::dll::shared_library> lib,
                                             BackendStatus status) {
  const std::string& path = status.path;
  if (!lib->has(HETERO_PLUGIN_CREATE_SYMBOL))
    fail(path, "no entry point '" HETERO_PLUGIN_CREATE_SYMBOL "'");
  auto create = lib->get<Backend*()>(HETERO_PLUGIN_CREATE_SYMBOL);
  auto loaded = std::make_shared<LoadedPlugin>();
  loaded->library = std::move(lib);
  Backend* const created = guarded(path, "initialisation", [&] { return create(); });
  loaded->backend.reset(created);
  if (!loaded->backend) fail(path, "initialisation returned no backend");
  Backend& b = *loaded->backend;
  const std::string name = guarded(path, "asking its name", [&] { return b.name(); });
  if (name != status.name)
    fail(path,
         "backend calls itself '" + name + "' but its info record says '" + status.name + "'");
  status.devices = guarded(path, "counting its devices", [&] { return b.device_count(); });
  if (status.devices < 0) fail(path, "reports " + std::to_string(status.devices) + " devices");
  guarded(path, "querying its devices", [&] {
    for (int i = 0; i < status.devices; ++i)
      if (b.device_properties(i).name.empty())
        fail(path, "device " + std::to_string(i) + " reports an empty name");
  });
  loaded->interface_minor = status.interface_minor;
  guarded(path, "asking which ops it supports",
          [&] { loaded->support.build(b, status.devices, loaded->interface_minor); });
  if (status.devices == 0) {
    status.reason =
        guarded(path, "asking why it has no device", [&] { return b.unavailable_reason(); });
    if (status.reason.empty()) status.reason = "no devices";
  }
  status.loaded = true;
  loaded->status = std::move(status);
  return loaded;
}

}  // namespace hetero::detail
