#include "plugin_library.hpp"

#include <array>
#include <cstring>
#include <fstream>

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

// glibc reports a foreign-architecture library as "No such file or directory"; reading
// the ELF header first gives a clear reason for text files, random bytes and other CPUs.
void check_elf_header(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open file");
  std::array<unsigned char, 20> h{};
  in.read(reinterpret_cast<char*>(h.data()), h.size());
  if (in.gcount() < static_cast<std::streamsize>(h.size()) || std::memcmp(h.data(),
                                                                          "\x7f"
                                                                          "ELF",
                                                                          4) != 0)
    fail(path, "not a shared library (no ELF header)");
  if (h[4] != 2) fail(path, "not a 64-bit ELF file");
  const std::uint16_t type = static_cast<std::uint16_t>(h[16] | (h[17] << 8));
  if (type != 3)
    fail(path, "ELF file is not a shared object (e_type " + std::to_string(type) + ")");
  const std::uint16_t machine = static_cast<std::uint16_t>(h[18] | (h[19] << 8));
  if (kHostMachine != 0 && machine != kHostMachine)
    fail(path, "built for another architecture (ELF machine " + std::to_string(machine) +
                   ", this process is " + std::to_string(kHostMachine) + ")");
}

std::string or_empty(const char* s) { return s ? std::string(s) : std::string(); }

}  // namespace

LoadedPlugin::~LoadedPlugin() { backend.reset(); }

std::shared_ptr<boost::dll::shared_library> open_plugin(const std::string& path,
                                                        BackendStatus& status) {
  status.path = path;
  check_elf_header(path);
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
  const HeteroPluginInfo* info = nullptr;
  try {
    info = info_fn();
  } catch (const std::exception& e) {
    fail(path, std::string("info record threw: ") + e.what());
  }
  if (!info) fail(path, "info record is null");
  if (info->struct_size < 3 * sizeof(std::uint32_t))
    fail(path, "info record too small (" + std::to_string(info->struct_size) + " bytes)");
  status.interface_version =
      std::to_string(info->interface_major) + "." + std::to_string(info->interface_minor);
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
  try {
    loaded->backend.reset(create());
  } catch (const std::exception& e) {
    fail(path, std::string("initialisation failed: ") + e.what());
  } catch (...) {
    fail(path, "initialisation failed: unknown exception");
  }
  if (!loaded->backend) fail(path, "initialisation returned no backend");
  const std::string name = loaded->backend->name();
  if (name != status.name)
    fail(path,
         "backend calls itself '" + name + "' but its info record says '" + status.name + "'");
  status.devices = loaded->backend->device_count();
  try {
    for (int i = 0; i < status.devices; ++i)
      if (loaded->backend->device_properties(i).name.empty())
        fail(path, "device " + std::to_string(i) + " reports an empty name");
  } catch (const PluginLoadError&) {
    throw;
  } catch (const std::exception& e) {
    fail(path, std::string("querying its devices failed: ") + e.what());
  }
  try {
    const std::string& v = status.interface_version;
    loaded->interface_minor = std::stoi(v.substr(v.find('.') + 1));
    loaded->support.build(*loaded->backend, status.devices, loaded->interface_minor);
  } catch (const std::exception& e) {
    fail(path, std::string("asking which ops it supports failed: ") + e.what());
  }
  status.loaded = true;
  if (status.devices == 0) {
    status.reason = loaded->backend->unavailable_reason();
    if (status.reason.empty()) status.reason = "no devices";
  }
  loaded->status = std::move(status);
  return loaded;
}

}  // namespace hetero::detail
