// SPDX-License-Identifier: Apache-2.0
#include "atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <hetero/error.hpp>

namespace hetero::detail {

namespace {

// The process's umask, read without changing it (umask(2) sets it, racing other threads):
// /proc/self/status's "Umask:" line (Linux 4.7+), else the usual 022.
mode_t current_umask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("Umask:", 0) == 0)
      return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
  return 022;
}

// Removes temporaries of `target` left by writers that were killed: they are named
// .<file>.tmp.<pid>.XXXXXX, and a pid no longer alive cannot come back for its file.
void remove_stale_temporaries(const std::filesystem::path& dir, const std::string& file) {
  const std::string prefix = "." + file + ".tmp.";
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string rest = name.substr(prefix.size());
    const auto dot = rest.find('.');
    if (dot == std::string::npos || dot == 0 || rest.find_first_not_of("0123456789") != dot)
      continue;
    const long pid = std::strtol(rest.substr(0, dot).c_str(), nullptr, 10);
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
      std::filesystem::remove(e.path(), ec);
  }
}

}  // namespace

AtomicFile::AtomicFile(std::filesystem::path target) : target_(std::move(target)) {
  // A symlink is written through (its target replaced), as open() would, not replaced by a
  // regular file.
  std::error_code ec;
  if (std::filesystem::is_symlink(target_, ec)) {
    const auto resolved = std::filesystem::canonical(target_, ec);
    if (!ec) target_ = resolved;
  }
  struct stat st {};
  const bool exists = ::stat(target_.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) {
    errno = EINVAL;
    fail("not a regular file");
  }
  if (exists && ::access(target_.c_str(), W_OK) != 0) fail("the file is not writable");
  const auto dir =
      target_.parent_path().empty() ? std::filesystem::path(".") : target_.parent_path();
  remove_stale_temporaries(dir, target_.filename().string());
  temp_ =
      (dir / ("." + target_.filename().string() + ".tmp." + std::to_string(::getpid()) + ".XXXXXX"))
          .string();
  std::vector<char> name(temp_.begin(), temp_.end());
  name.push_back('\0');
  fd_ = ::mkstemp(name.data());
  if (fd_ < 0) fail("cannot create a temporary file in " + dir.string());
  temp_ = name.data();
  // mkstemp makes the file 0600; give it the target's mode, or 0666 less the umask (as
  // open(O_CREAT, 0666) would).
  const mode_t mode = exists ? (st.st_mode & 07777) : (0666 & ~current_umask());
  if (::fchmod(fd_, mode) != 0) fail("fchmod failed");
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_.empty()) ::unlink(temp_.c_str());
}

void AtomicFile::fail(const std::string& what) const {
  throw Error("cannot write '" + target_.string() + "': " + what + ": " + std::strerror(errno));
}

void AtomicFile::write(const void* data, std::size_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::write(fd_, p, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("write failed");
    p += n;
    bytes -= static_cast<std::size_t>(n);
  }
}

void AtomicFile::commit() {
  if (::fsync(fd_) != 0) fail("fsync failed");
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("close failed");
  if (::rename(temp_.c_str(), target_.c_str()) != 0) fail("rename of " + temp_ + " failed");
  temp_.clear();
  // Make the rename itself durable.
  const auto dir =
      target_.parent_path().empty() ? std::filesystem::path(".") : target_.parent_path();
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace hetero::detail
