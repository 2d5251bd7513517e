#include "atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include <hetero/error.hpp>

namespace hetero::detail {

AtomicFile::AtomicFile(std::filesystem::path target) : target_(std::move(target)) {
  const auto dir =
      target_.parent_path().empty() ? std::filesystem::path(".") : target_.parent_path();
  temp_ = (dir / ("." + target_.filename().string() + ".tmp.XXXXXX")).string();
  std::vector<char> name(temp_.begin(), temp_.end());
  name.push_back('\0');
  fd_ = ::mkstemp(name.data());
  if (fd_ < 0) fail("cannot create a temporary file in " + dir.string());
  temp_ = name.data();
  // mkstemp makes the file 0600; give it the target's mode, or the usual 0644.
  struct stat st {};
  const mode_t mode = ::stat(target_.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0644;
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
